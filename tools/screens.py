"""Screenshots of the TV, the phone and the host's pages from a real table, for docs/screens/.

Runs the service on the simulated tower (a fixed seed, a temporary state
directory) in this process, plays a club game to each moment worth showing
and saves PNGs of the TV at 1280x720, 1920x1080 and 3840x2160 and of a
390x844 phone:

    .venv/bin/python tools/screens.py [--out docs/screens] [--chromium /usr/bin/chromium]
        [--win-table FILE]

Each moment is reached through the API as a table would reach it: the host's
call at a turn's start (the announcement band), a roll waiting for its
set-aside (mid-turn), a zilch said from a phone (the moment), a set-aside
the host can take back (the Host panel).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from server.app import create_app
from server.config import load_config
from server.controller import Timing
from server.service import TableService
from server.solver_cache import CACHE_FOLDER

TABLE_PIN = "2468"
ADMIN_PIN = "13579"
TV_SIZES = [(1280, 720), (1920, 1080), (3840, 2160)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
ZILCH = [2, 2, 3, 4, 6, 6]


@contextmanager
def table(seed: int, win_table: Path | None = None) -> Iterator[tuple[str, TableService]]:
    """A served simulated table: (base URL, service), with ``win_table`` in its solver cache."""
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        if win_table is not None:
            (state / CACHE_FOLDER).mkdir()
            shutil.copy(win_table, state / CACHE_FOLDER / win_table.name)
        config_path = state / "tower.toml"
        config_path.write_text(
            f'[table]\npin = "{TABLE_PIN}"\nadmin_pin = "{ADMIN_PIN}"\nspeech = false\n'
            "[solenoid]\npulses = 1\npulse_ms = 1\ngap_ms = 100\n"
            f'[host]\ncall_timeout_s = 600\n[state]\ndir = "{state}"\n',
            encoding="utf-8",
        )
        config = load_config(config_path, env={})
        timing = Timing(settle_timeout_s=1.0, poll_s=0.05, bot_delay_s=0.0, reshakes=3)
        service = TableService(config, sim=True, seed=seed, sim_settle_s=0.0, timing=timing)
        service.start()
        server = make_server("127.0.0.1", 0, create_app(config, service), threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}", service
        finally:
            server.shutdown()
            thread.join(10)
            service.stop()


def until(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit("the table did not reach the state wanted in time")
        time.sleep(0.05)


def to_choose(service: TableService, options: int = 2) -> dict[str, Any]:
    """Play until a roll offers ``options`` set-asides or more."""
    for _ in range(60):
        state = service.state()
        if state["phase"] == "choose" and len(state["turn"]["options"]) >= options:
            return state
        if state["phase"] == "choose":
            service.keep(state["turn"]["options"][0]["dice"])
        elif state["turn"]["can_bank"]:
            service.bank()
        else:
            service.roll()
        service.wait_quiet(20)
    raise SystemExit("no roll with set-asides to choose from")


def win_screens(
    service: TableService, tv: tuple[str, Any], phone: Any, shot: Callable[..., None]
) -> None:
    """Each player's chance to win: two players mid-turn (exact), then three (simulated)."""
    size, page = tv
    service.new_game("dicenow", {}, ["Ann", "Ben"])
    service.wait_quiet(20)
    for _ in range(4):  # a few turns in, so the line of the last turns has something
        to_choose(service, 1)
        state = service.state()
        service.keep(state["turn"]["best"]["dice"])
        service.wait_quiet(20)
        if service.state()["turn"]["can_bank"]:
            service.bank()
            service.wait_quiet(20)
    to_choose(service, 1)
    state = service.state()
    service.keep(state["turn"]["best"]["dice"])
    service.wait_quiet(20)
    if not service.state()["win_chance"]:
        raise SystemExit("the win table given does not fit this table's rules")
    page.wait_for_selector("#win-chance:not([hidden]) .win-fill")
    shot(page, f"tv-win-chance-{size}")
    phone.wait_for_selector("#win-chance:not([hidden]) .win-fill")
    phone.evaluate("document.getElementById('turn-panel').scrollIntoView()")
    shot(phone, "phone-win-chance")
    service.new_game("dicenow", {}, ["Ann", "Ben", "Cat"])
    to_choose(service, 2)
    until(lambda: (service.state()["win_chance"] or {}).get("games", 0) >= 25, 900)
    page.wait_for_selector("#win-chance:not([hidden]) .win-fill")
    shot(page, f"tv-win-estimate-{size}")
    phone.wait_for_selector("#win-chance:not([hidden]) .win-fill")
    shot(phone, "phone-win-estimate")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screens"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--win-table", type=Path, help="a solved win-dicenow-*.npz")
    args = parser.parse_args()
    if args.win_table is not None and not args.win_table.name.startswith("win-dicenow-"):
        raise SystemExit(f"--win-table {args.win_table}: give a solved win-dicenow-*.npz")
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with table(args.seed, args.win_table) as (url, service), sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        saved: list[str] = []

        def shot(page: Any, name: str, full: bool = False, settle: bool = True) -> None:
            if settle:
                page.wait_for_timeout(400)  # the page's own transitions settle
            path = args.out / f"{name}.png"
            page.screenshot(path=str(path), full_page=full)
            saved.append(f"{path} {path.stat().st_size // 1024} KiB")

        tvs = []
        for width, height in TV_SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url + "/")
            tvs.append((f"{width}x{height}", page))
        phone_context = browser.new_context(**PHONE)
        phone_context.add_init_script("localStorage.setItem('zilch.name', 'Ann')")
        phone = phone_context.new_page()
        phone.goto(url + f"/play#pin={TABLE_PIN}")
        host = browser.new_context(**PHONE).new_page()
        host.goto(url + f"/play#pin={TABLE_PIN}")

        for size, page in tvs:
            page.wait_for_selector("#idle:not([hidden])")
            shot(page, f"tv-idle-{size}")
        shot(phone, "phone-idle")

        service.new_game("club", {}, ["Ann", "Ben", "Cat"])
        until(lambda: (service.state()["announcement"] or {}).get("kind") == "call")
        for size, page in tvs:
            page.wait_for_selector("#announcement:not([hidden])")
            shot(page, f"tv-announcement-{size}")

        state = to_choose(service)
        for size, page in tvs:
            page.wait_for_selector("#tray [data-die]:not([data-stale])")
            shot(page, f"tv-mid-turn-{size}")
        phone.wait_for_selector("#dice .die-button:not([disabled])")
        shot(phone, "phone-mid-turn", full=True)

        smallest = min(state["turn"]["options"], key=lambda o: o["points"])
        service.keep(smallest["dice"])
        service.wait_quiet(20)
        host.click("#host-panel summary")
        host.fill("#admin-input", ADMIN_PIN)
        host.click("#admin-form button[type=submit]")
        host.wait_for_selector("#undo:not([hidden])")
        host.evaluate("document.getElementById('host-panel').scrollIntoView()")
        shot(host, "phone-host-controls")
        service.undo()
        service.wait_quiet(20)

        # club forgives a player's first zilch: say it twice, the second one counts
        for _ in range(2):
            to_choose(service, 1)
            service.correct(ZILCH, "Ben")
            service.wait_quiet(20)
            if service.state()["log"][-1]["kind"] != "roll":
                break
        # a moment lasts 3.2 s: the phone first, then each TV, without waiting between
        phone.wait_for_selector("#moment[data-moment='zilch']:not([hidden])")
        shot(phone, "phone-moment", settle=False)
        for size, page in tvs:
            page.wait_for_selector("[data-moment='zilch']:not([hidden])")
            shot(page, f"tv-moment-{size}", settle=False)

        if args.win_table is not None:
            win_screens(service, tvs[1], phone, shot)

        for size, page in tvs[1:2]:
            page.goto(url + "/rules")
            shot(page, f"rules-{size}")
            page.goto(url + "/history")
            shot(page, f"history-{size}")
        phone.goto(url + "/rules")
        shot(phone, "phone-rules")
        phone.goto(url + "/history")
        phone.wait_for_timeout(800)
        shot(phone, "phone-history", full=True)
        browser.close()
    print("\n".join(saved))


if __name__ == "__main__":
    main()
