"""Synthetic top-down frames of a dice tray, with the ground truth of every die.

The simulated tower and the tests draw the tray data of ``docs/architecture.md``
(dicts with ``value``, ``x``, ``y`` in millimetres, ``angle`` in degrees and
``cocked``) through :func:`render_tray`. Everything is drawn with OpenCV on
``uint8`` images so a 640x480 frame takes a few milliseconds, and every random
choice comes from the seed so a frame can be rebuilt exactly.

Scene parts (floor colour, dice colours, lighting, perspective) depend on
``seed`` only; sensor parts (noise, a little lighting flicker) also depend on
``frame``, so consecutive frames of a still tray differ like a real camera's.

The parts, bottom up: :mod:`~vision.render.style` (colours and the style knobs),
:mod:`~vision.render.camera` (floor to pixels), :mod:`~vision.render.painting`
(each die's look, faces and paint), :mod:`~vision.render.scene` (floor, light,
shadows, sensor; :func:`render_tray`) and :mod:`~vision.render.throwing` (random
trays; :func:`random_scene`). The tray's sizes come from :mod:`dicetray`, which
the simulated tower shares.
"""

from __future__ import annotations

from dicetray import DIE_MM, TRAY_MM
from vision.render.painting import MAX_TRAY_DICE, top_pip_centres
from vision.render.scene import render_tray
from vision.render.style import (
    DIE_COLORS,
    HARD,
    MIN_PIP_CONTRAST,
    PIP_COLORS,
    STYLES,
    TOWER,
    Color,
    Frame,
    RenderError,
    RenderStyle,
    pip_colors_for,
    resolve_style,
)
from vision.render.throwing import (
    MAX_PILE_DICE,
    MAX_RANDOM_DICE,
    random_pile,
    random_scene,
    random_tray,
)

__all__ = [
    "DIE_COLORS",
    "DIE_MM",
    "HARD",
    "MAX_PILE_DICE",
    "MAX_RANDOM_DICE",
    "MAX_TRAY_DICE",
    "MIN_PIP_CONTRAST",
    "PIP_COLORS",
    "STYLES",
    "TOWER",
    "TRAY_MM",
    "Color",
    "Frame",
    "RenderError",
    "RenderStyle",
    "pip_colors_for",
    "random_pile",
    "random_scene",
    "random_tray",
    "render_tray",
    "resolve_style",
    "top_pip_centres",
]
