"""The renderer's tower-setup knobs: the lamp's highlight, glossy sets, translucent colours,
how far cocked dice lean, and the ``setup`` style built from them."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import pytest

from vision.render import STYLES, RenderError, RenderStyle, random_scene, render_tray
from vision.render.painting import _looks

PLAIN = RenderStyle(
    name="plain",
    floor_colors=((120, 120, 120),),
    die_colors=("black",),
    size_jitter=0.0,
    color_jitter=0.0,
    perspective=0.0,
    shadow=0.0,
    light_gradient=0.0,
    vignette=0.0,
    floor_texture=0.0,
    noise=0.0,
    blur_px=0.0,
    flicker=0.0,
)


def plain(**changes: Any) -> RenderStyle:
    return dataclasses.replace(PLAIN, **changes)


def tray(values: list[int], **extra: Any) -> list[dict[str, Any]]:
    return [
        {"value": v, "x": 30.0 + 45.0 * i, "y": 60.0, "angle": 10.0, "cocked": False} | extra
        for i, v in enumerate(values)
    ]


def face(frame: np.ndarray, die: dict[str, Any]) -> np.ndarray:
    """Grey levels of a die's top face, off its rounded edge."""
    corners = np.array(die["corners"])
    centre = corners.mean(axis=0)
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, (centre + (corners - centre) * 0.8).round().astype(np.int32), 255)
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)[mask > 0], np.float64)


def test_the_highlight_lights_a_soft_patch_of_every_dark_face() -> None:
    dice = tray([2, 2, 2, 2], pip_color="red")
    dull, truth = render_tray(dice, style=PLAIN, die_mm=24.0)
    lit, _ = render_tray(dice, style=plain(highlight=0.8), die_mm=24.0)
    for d in truth["dice"]:
        before, after = face(dull, d), face(lit, d)
        assert np.median(after) > np.median(before) + 3  # a broad patch, not a dot
        assert np.percentile(after, 90) > np.percentile(before, 90) + 10
        assert after.max() < 200  # soft: no pip-white spot


def test_a_glossy_set_shows_a_sharp_spot() -> None:
    dice = tray([2, 2, 2, 2], pip_color="red")
    dull, truth = render_tray(dice, style=plain(highlight=0.3), die_mm=24.0)
    shiny, _ = render_tray(dice, style=plain(highlight=0.3, glossy=1.0), die_mm=24.0)
    for d in truth["dice"]:
        assert face(shiny, d).max() > 200 > face(dull, d).max()


def test_translucent_colours_limit_which_sets_are_clear() -> None:
    rng = np.random.default_rng
    for color, finish in (("green", "translucent"), ("red", "solid")):
        style = plain(die_colors=(color,), translucent=1.0, translucent_colors=("green", "blue"))
        assert {look.finish for look in _looks(style, rng(3))} == {finish}
    anyone = plain(die_colors=("red",), translucent=1.0)
    assert {look.finish for look in _looks(anyone, rng(3))} == {"translucent"}


def test_cocked_tilt_sets_how_far_a_die_leans() -> None:
    die = [{"value": 3, "x": 120.0, "y": 90.0, "angle": 0.0, "cocked": True}]

    def width(tilt: float) -> int:
        _, truth = render_tray(die, style=plain(cocked_tilt_deg=(tilt, tilt)), die_mm=24.0)
        x0, y0, x1, y1 = truth["dice"][0]["box"]
        return max(x1 - x0, y1 - y0)

    assert width(8.0) < width(20.0) < width(40.0)


def test_new_knobs_leave_older_styles_alone_and_are_checked() -> None:
    frame, _ = random_scene(4, 6, style="tower")
    same = dataclasses.replace(STYLES["tower"], translucent_colors=(), cocked_tilt_deg=(18, 38))
    again, _ = random_scene(4, 6, style=same)
    assert np.array_equal(frame, again)
    for knob in ("highlight", "glossy"):
        with pytest.raises(RenderError, match=f"{knob}=1.5 is out of range"):
            RenderStyle(**{knob: 1.5})
    for tilt in ((2.0, 10.0), (30.0, 20.0), (10.0,)):
        with pytest.raises(RenderError, match="cocked_tilt_deg"):
            RenderStyle(cocked_tilt_deg=tilt)  # type: ignore[arg-type]
    with pytest.raises(RenderError, match="unknown die colour"):
        RenderStyle(translucent_colors=("purple",))


def test_the_setup_style_is_one_tower_per_seed() -> None:
    style = STYLES["setup"]
    assert style.highlight > 0 and style.glossy > 0 and style.cocked_tilt_deg[0] <= 10
    a, truth_a = random_scene(7, 6, style="setup", cocked=1)
    b, truth_b = random_scene(7, 6, style="setup", cocked=1)
    assert np.array_equal(a, b) and truth_a == truth_b
    assert sum(d["cocked"] for d in truth_a["dice"]) == 1
    assert len({d["color"] for d in truth_a["dice"]}) == 1  # one set of dice
