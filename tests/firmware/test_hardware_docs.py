"""hardware/: the pin table, the wiring diagram and the model agree with the config defaults."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from firmware import DIE_MM, TRAY_MM
from firmware.pins import HEADER_PIN, ROLES
from server.config import SCHEMA
from vision.camera_settings import lens_dioptres, same_aspect_size

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _defaults() -> dict[str, int]:
    return {role: SCHEMA["pins"][role].default for role in ROLES}


def _readme_rows() -> list[list[str]]:
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    section = text.split("## Pin table", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines()]
    return [[cell.strip() for cell in row] for row in rows if len(row) == 5]


def _header_name(pin: int) -> str:
    header = MockFactory().board_info.headers["J8"]
    return str(header.pins[pin].name)


def _svg_texts() -> dict[str, str]:
    root = ET.parse(HARDWARE / "wiring.svg").getroot()
    return {el.get("id", ""): "".join(el.itertext()) for el in root.iter(f"{SVG_NS}text")}


def test_readme_pin_table_matches_the_config_defaults() -> None:
    rows = {row[1].strip("`"): row for row in _readme_rows() if row[1].startswith("`pins.")}
    assert set(rows) == {f"pins.{role}" for role in ROLES}
    for role, bcm in _defaults().items():
        _, _, bcm_cell, header_cell, _ = rows[f"pins.{role}"]
        assert int(bcm_cell.split()[0]) == bcm, role
        if bcm == -1:
            assert header_cell == "-"
        else:
            assert int(header_cell) == HEADER_PIN[bcm]
            assert _header_name(int(header_cell)) == f"GPIO{bcm}"


def test_readme_ground_pins_are_ground() -> None:
    grounds = [int(row[3]) for row in _readme_rows() if row[0].startswith("Ground")]
    assert len(grounds) == 2
    assert all(_header_name(pin) == "GND" for pin in grounds)


def test_svg_labels_match_the_config_defaults() -> None:
    texts = _svg_texts()
    for role, bcm in _defaults().items():
        if bcm == -1:
            assert f"pin-{role}" not in texts  # drawn dashed as an option, not as a default
            continue
        label = texts[f"pin-{role}"]
        assert label == f"GPIO{bcm} (pin {HEADER_PIN[bcm]})", role


def test_svg_grounds_match_the_readme() -> None:
    texts = _svg_texts()
    svg_grounds = {
        int(m[1]) for t in texts.values() if (m := re.fullmatch(r"GND \(pin (\d+)\)", t))
    }
    readme_grounds = {int(row[3]) for row in _readme_rows() if row[0].startswith("Ground")}
    assert svg_grounds == readme_grounds


@pytest.mark.parametrize(("name", "value"), [("tray_w", TRAY_MM[0]), ("tray_d", TRAY_MM[1])])
def test_model_tray_matches_the_firmware(name: str, value: float) -> None:
    scad = (HARDWARE / "tower.scad").read_text(encoding="utf-8")
    match = re.search(rf"^{name} = ([\d.]+);", scad, re.MULTILINE)
    assert match is not None and float(match[1]) == value


def test_camera_arithmetic_in_the_readme() -> None:
    """The die sizes the README quotes follow from the full-field view, the tray and the lens."""
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    half_v = math.tan(math.radians(41 / 2))
    height = (TRAY_MM[1] + 15) / 2 / half_v
    scad = (HARDWARE / "tower.scad").read_text(encoding="utf-8")
    assert f"lens_height = {math.ceil(height) + 1};" in scad
    lens = math.ceil(height) + 1
    depth_seen = 2 * lens * half_v  # the 16:9 view's short side spans the tray's depth
    for asked, delivered in (((640, 480), (854, 480)), ((1296, 972), (1728, 972))):
        assert same_aspect_size(asked, 16 / 9) == delivered
        assert f"**{delivered[0]} x {delivered[1]}**" in readme
        die_px = round(DIE_MM * delivered[1] / depth_seen)
        assert f"**{die_px} px**" in readme
    assert SCHEMA["camera"]["lens_height_mm"].default == lens
    assert f"{lens_dioptres(lens):.2f} dioptres" in readme


def _scad(name: str) -> float:
    scad = (HARDWARE / "tower.scad").read_text(encoding="utf-8")
    match = re.search(rf"^{name} = \[?([\d.]+)", scad, re.MULTILINE)
    assert match is not None, name
    return float(match[1])


def test_the_camera_cable_reaches_along_the_arm_and_down_the_mast() -> None:
    """The BOM's cable is long enough for the run in tower.scad, and the next size down is not."""
    outer_d = TRAY_MM[1] + 2 * _scad("wall_t")
    arm = outer_d / 2 + _scad("mast_gap") + _scad("mast_w") / 2
    foot_gap = _scad("solenoid") + _scad("plunger_rest") + _scad("plunger_gap") + _scad("strike_h")
    floor_z = _scad("base_t") + foot_gap + _scad("floor_t")
    cam_stack = _scad("standoff") + 1 + _scad("lens_protrude")
    plate_z = floor_z + _scad("lens_height") + cam_stack
    run = arm + plate_z + _scad("plate_t")  # along the arm, down the mast to the base
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    match = re.search(r"\| Pi 5 camera cable, 22-way to 15-way, (\d+) mm \|", readme)
    assert match is not None
    cable = int(match[1])
    assert cable >= run + 30  # and on to the Pi at the mast's foot
    assert run > 300  # a 300 mm cable would not do
    assert f"about {round(run, -1):.0f} mm" in readme
