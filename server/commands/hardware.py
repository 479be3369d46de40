"""Hardware verbs: shake (the solenoid's bring-up test), hw-test (the whole tower)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager

from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware import GpioTower, coil_safety, factory_from_environment, open_pi_gpio
from firmware.bringup import BringUp, mock_presser
from server.commands import Subparsers, print_json
from server.config import Config, load_config
from server.errors import UserError

MAX_TIMES = 100


def register(sub: Subparsers) -> None:
    p = sub.add_parser("shake", help="bring-up test of the solenoid")
    p.add_argument("--mock", action="store_true", help="drive gpiozero's mock pins")
    p.add_argument("--times", type=int, default=1, metavar="N", help="shakes to run")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument("--json", action="store_true", help="print the pulses driven as JSON")
    p.set_defaults(func=run_shake)

    p = sub.add_parser("hw-test", help="walk through the solenoid, the light and each button")
    p.add_argument("--mock", action="store_true", help="drive gpiozero's mock pins")
    p.add_argument("--config", metavar="FILE", help="configuration file")
    p.add_argument(
        "--timeout", type=float, default=15.0, metavar="S", help="seconds to wait for each button"
    )
    p.add_argument(
        "--light-s", type=float, default=None, metavar="S",
        help="seconds to show each light pattern (default 3, or 0.3 with --mock)",
    )  # fmt: skip
    p.set_defaults(func=run_hw_test)


@contextmanager
def _tower(config: Config, mock: bool) -> Iterator[tuple[GpioTower, Factory | None]]:
    """The configured tower on the Pi's GPIO (or mock pins), coil forced off on the way out.

    On the Pi the header chip is found by label and the solenoid pulsed by
    lgpio outside Python, as the service does.
    """
    if not mock and factory_from_environment():  # GPIOZERO_PIN_FACTORY chose the pins
        with GpioTower.from_config(config) as tower, coil_safety(tower.force_off):
            yield tower, None
        return
    if not mock:
        gpio = open_pi_gpio()
        try:
            tower = GpioTower.from_config(config, gpio=gpio)
        except BaseException:
            gpio.close()
            raise
        with tower, coil_safety(tower.force_off):  # the tower closes the chip
            yield tower, gpio.factory
        return
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        tower = GpioTower.from_config(config, pin_factory=factory)
        with tower, coil_safety(tower.force_off):
            yield tower, factory
    finally:
        factory.reset()
        factory.close()


def run_shake(args: argparse.Namespace) -> int:
    """Fire the coil ``--times`` times; print the pulses driven, seconds from the first shake."""
    if not 1 <= args.times <= MAX_TIMES:
        raise UserError(f"--times {args.times}: expected a whole number from 1 to {MAX_TIMES}")
    config = load_config(args.config)
    pulses: list[list[float]] = []
    waited = 0.0
    with _tower(config, args.mock) as (tower, _):
        begin = time.monotonic()
        for _ in range(args.times):
            driven = tower.shake()
            offset = tower.solenoid.last_start - begin
            pulses += [[round(offset + on, 4), round(offset + off, 4)] for on, off in driven]
            waited += tower.last_wait_s
    if args.json:
        print_json({"pulses": pulses, "mock": bool(args.mock), "waited_s": round(waited, 3)})
    else:
        where = "mock pins" if args.mock else f"BCM {tower.pin_map.solenoid}"
        print(f"{len(pulses)} pulses driven on {where}:")
        for n, (on, off) in enumerate(pulses, 1):
            print(f"  pulse {n}: on at {on:.3f} s, off at {off:.3f} s ({(off - on) * 1000:.0f} ms)")
        if waited:
            print(f"waited {waited:.2f} s in all to keep the coil within its safety limits")
    return 0


def run_hw_test(args: argparse.Namespace) -> int:
    """Walk a person through the tower; exit 1 naming the steps that failed."""
    if not 0 < args.timeout <= 600:
        raise UserError(f"--timeout {args.timeout:g}: expected seconds from 0 to 600")
    light_s = args.light_s if args.light_s is not None else (0.3 if args.mock else 3.0)
    if not 0 <= light_s <= 60:
        raise UserError(f"--light-s {light_s:g}: expected seconds from 0 to 60")
    config = load_config(args.config)
    with _tower(config, args.mock) as (tower, factory):
        press = None
        if isinstance(factory, MockFactory):
            press = mock_presser(factory, tower.pin_map, tower.long_press_s)
        walk = BringUp(
            tower,
            lambda line: print(line, flush=True),
            step_timeout_s=args.timeout,
            light_s=light_s,
            press=press,
        )
        results = walk.run()
    failed = [r for r in results if not r.ok]
    if failed:
        names = "; ".join(f"{r.step}: {r.detail}" for r in failed)
        raise UserError(f"{len(failed)} of {len(results)} steps failed ({names})")
    print(f"all {len(results)} steps passed" + (" (on mock pins)" if args.mock else ""))
    return 0
