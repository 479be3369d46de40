"""What the web service trusts: the Host a request names, who may see the PIN, page headers.

The table is a LAN appliance (docs/security.md). A page on the internet can
still reach it through a browser in the room by DNS rebinding (its own name,
re-pointed at the tower's address); the browser then sends that foreign name
as ``Host``. So a request is served only when its Host is loopback, one of
this machine's own addresses, this machine's name (``NAME``, ``NAME.local``)
or a name listed in ``[server] hostnames``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from werkzeug.wrappers import Response

# Every page and every API answer: no inline script or style, nothing from
# elsewhere, never inside another site's frame, no sniffing, no referrer.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' blob: data:",
        "connect-src 'self'",
        "font-src 'self'",
        "manifest-src 'self'",
        "media-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def add_security_headers(response: Response) -> Response:
    """Set :data:`SECURITY_HEADERS` on ``response`` (an ``after_request`` hook)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def _is_local_address(address: str) -> bool:
    """Whether ``address`` belongs to this machine: binding a socket to it works."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


def host_name(host_header: str) -> str:
    """The name or address in a Host header, without port or IPv6 brackets, lower case."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def machine_names() -> set[str]:
    """This machine's own names: ``localhost``, its host name, ``NAME.local``, its FQDN."""
    names = {"localhost"}
    for name in (socket.gethostname(), socket.getfqdn()):
        name = name.lower().rstrip(".")
        if name:
            names.add(name)
            names.add(name.split(".", 1)[0] + ".local")
    return names


class HostCheck:
    """Decides whether a Host header names this table.

    Addresses are checked by asking the operating system (so a DHCP change or
    a second interface needs no restart); answers are kept for
    ``cache_s`` seconds, and at most ``cache_size`` of them.
    """

    def __init__(
        self,
        hostnames: Iterable[str] = (),
        *,
        names: Callable[[], set[str]] = machine_names,
        is_local: Callable[[str], bool] = _is_local_address,
        clock: Callable[[], float] = time.monotonic,
        cache_s: float = 30.0,
        cache_size: int = 256,
    ) -> None:
        self._configured = {host_name(h) for h in hostnames}
        self._names = names
        self._is_local = is_local
        self._clock = clock
        self._cache_s = cache_s
        self._cache_size = cache_size
        self._cache: dict[str, tuple[float, bool]] = {}
        self._lock = threading.Lock()

    def allows(self, host_header: str | None) -> bool:
        """Whether a request with this Host header is for this table."""
        if not host_header:
            return False
        host = host_name(host_header)
        if host in self._configured:
            return True
        now = self._clock()
        with self._lock:
            hit = self._cache.get(host)
            if hit is not None and now - hit[0] < self._cache_s:
                return hit[1]
        answer = self._decide(host)
        with self._lock:
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            self._cache[host] = (now, answer)
        return answer

    def _decide(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self._names()
        return address.is_loopback or self._is_local(str(address))


def sees_pin(remote_addr: str | None, kiosk_addresses: Iterable[str]) -> bool:
    """Whether the browser at ``remote_addr`` is in the room: the tower's own, or a kiosk."""
    if not remote_addr:
        return False
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    if address.is_loopback:
        return True
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
        if address.is_loopback:
            return True
    return any(address == ipaddress.ip_address(k) for k in kiosk_addresses)
