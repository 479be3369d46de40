"""A stand-in ``picamera2`` that behaves as picamera2 and libcamera do on a Pi.

Written from their documented behaviour, not from their code:

- ``sensor_modes`` lists each mode's ``size``, ``bit_depth`` and
  ``crop_limits`` (the sensor area it reads), as picamera2 reports them.
- ``configure`` without a ``sensor`` entry picks the mode the way
  libcamera's Raspberry Pi pipeline scores them against the raw stream's
  size, which picamera2 sets to the main stream's size: a mode smaller
  than asked costs twice the shortfall, a larger one a quarter of the
  excess, the aspect ratio's difference counts 1500 times, and every bit
  of depth away from the one asked 500. With ``sensor={"output_size":
  ..., "bit_depth": ...}`` exactly that mode runs, or configuring fails.
  Either way ``camera_config["sensor"]`` says which mode runs.
- ``camera_controls`` maps control names to ``(min, max, default)``; only
  cameras with a focus motor have ``AfMode`` and ``LensPosition``.
- Metadata: frames start at libcamera's start-up exposure (20 ms, gain 1);
  AGC moves half-way to its target each frame and reports ``AeState`` 1
  (searching) until within 2%, then 2 (converged); AWB recomputes the
  colour gains only every third frame, so two frames in a row can agree
  while white balance is still far off.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Sensor:
    model: str
    pixel_array: tuple[int, int]
    modes: tuple[dict[str, Any], ...]
    controls: dict[str, tuple[Any, Any, Any]]


_COMMON_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AeEnable": (False, True, True),
    "AwbEnable": (False, True, True),
    "ExposureTime": (26, 220_417_486, 20_000),
    "AnalogueGain": (1.0, 16.0, 1.0),
    "ColourGains": (0.0, 32.0, None),
}

IMX708 = Sensor(  # Camera Module 3: 16:9, a focus motor
    "imx708",
    (4608, 2592),
    (
        {"size": (1536, 864), "bit_depth": 10, "crop_limits": (768, 432, 3072, 1728)},
        {"size": (2304, 1296), "bit_depth": 10, "crop_limits": (0, 0, 4608, 2592)},
        {"size": (4608, 2592), "bit_depth": 10, "crop_limits": (0, 0, 4608, 2592)},
    ),
    _COMMON_CONTROLS
    | {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0), "AfTrigger": (0, 1, 0)},
)

IMX219 = Sensor(  # Camera Module 2: 4:3, fixed focus
    "imx219",
    (3280, 2464),
    (
        {"size": (640, 480), "bit_depth": 10, "crop_limits": (1000, 752, 1280, 960)},
        {"size": (1640, 1232), "bit_depth": 10, "crop_limits": (0, 0, 3280, 2464)},
        {"size": (1920, 1080), "bit_depth": 10, "crop_limits": (680, 692, 1920, 1080)},
        {"size": (3280, 2464), "bit_depth": 10, "crop_limits": (0, 0, 3280, 2464)},
    ),
    dict(_COMMON_CONTROLS),
)


def _score_axis(desired: float, actual: float) -> float:
    shortfall = desired - actual
    return 2 * shortfall if shortfall >= 0 else -shortfall / 4


def libcamera_pick(modes: tuple[dict[str, Any], ...], size: tuple[int, int], bits: int) -> dict:
    """The mode libcamera's scoring picks for a raw stream of ``size`` (ties: the later one)."""
    best: dict[str, Any] = {}
    best_score = float("inf")
    for mode in modes:
        width, height = mode["size"]
        score = _score_axis(size[0], width) + _score_axis(size[1], height)
        score += 1500 * _score_axis(size[0] / size[1], width / height)
        score += 500 * abs(mode["bit_depth"] - bits)
        if score <= best_score:
            best, best_score = mode, score
    return best


@dataclass
class Scene:
    """Where AGC and AWB settle, and how (``ae_state=False``: an older libcamera without it)."""

    exposure: float = 12_000.0
    gain: float = 2.9
    colour: tuple[float, float] = (1.8, 1.7)
    ae_state: bool = True
    awb_every: int = 3
    still: bool = True  # False: the light keeps flickering, nothing ever settles


@dataclass
class Log:
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    metadata: list[dict[str, Any]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [call[0] for call in self.calls]


def fake_picamera2(
    sensor: Sensor = IMX708,
    scene: Scene | None = None,
    log: Log | None = None,
    *,
    fail: bool = False,
    broken: str = "",
    metadata_keys: tuple[str, ...] | None = None,
) -> Any:
    """A ``picamera2`` module whose one camera is ``sensor`` looking at ``scene``."""
    scene = scene or Scene()
    log = log if log is not None else Log()

    class Picamera2:
        def __init__(self, camera_num: int = 0) -> None:
            if fail:
                raise IndexError("list index out of range")
            log.calls.append(("open", camera_num))
            self.sensor_modes = [dict(m) for m in sensor.modes]
            self.camera_controls = dict(sensor.controls)
            self.camera_properties = {"Model": sensor.model, "PixelArraySize": sensor.pixel_array}
            self.camera_config: dict[str, Any] = {}
            self.frame = 0
            self.exposure, self.gain, self.colour = 20_000.0, 1.0, (1.0, 1.0)
            self.ae, self.awb = True, True
            self.lens: float | None = None

        def create_video_configuration(
            self, main: dict[str, Any], sensor: dict[str, Any] | None = None, **rest: Any
        ) -> dict[str, Any]:
            log.calls.append(("config", dict(main), sensor))
            config = {"main": dict(main), "raw": {"size": tuple(main["size"])}, "sensor": sensor}
            return config | rest

        def configure(self, config: dict[str, Any]) -> None:
            log.calls.append(("configure", config))
            wanted = config.get("sensor")
            if wanted:
                matches = [
                    m
                    for m in sensor.modes
                    if tuple(m["size"]) == tuple(wanted["output_size"])
                    and m["bit_depth"] == wanted.get("bit_depth", m["bit_depth"])
                ]
                if not matches:
                    raise RuntimeError(f"no sensor mode matches {wanted}")
                mode = matches[0]
            else:
                mode = libcamera_pick(sensor.modes, tuple(config["raw"]["size"]), 10)
            self.mode = mode
            self.camera_config = {
                "main": dict(config["main"]),
                "raw": {"size": tuple(mode["size"])},
                "sensor": {"output_size": tuple(mode["size"]), "bit_depth": mode["bit_depth"]},
            }

        def start(self) -> None:
            if broken == "start":
                raise RuntimeError("Failed to start camera: Device or resource busy")
            log.calls.append(("start",))

        def _advance(self) -> dict[str, Any]:
            self.frame += 1
            flicker = 1.0 if scene.still else 1.0 + 0.1 * (-1) ** self.frame
            if self.ae and self.frame > 2:  # AGC acts from the third frame
                self.exposure += 0.5 * (scene.exposure * flicker - self.exposure)
                self.gain += 0.5 * (scene.gain - self.gain)
            if self.awb and self.frame > 2 and self.frame % scene.awb_every == 0:
                self.colour = tuple(
                    c + 0.5 * (t * flicker - c)
                    for c, t in zip(self.colour, scene.colour, strict=True)
                )  # type: ignore[assignment]
            searching = abs(self.exposure / (scene.exposure * flicker) - 1) > 0.02
            metadata: dict[str, Any] = {
                "ExposureTime": round(self.exposure),
                "AnalogueGain": self.gain,
                "ColourGains": tuple(self.colour),
                "Lux": 300.0,
            }
            if scene.ae_state:
                metadata["AeState"] = 0 if not self.ae else 1 if searching else 2
            if self.lens is not None:
                metadata["LensPosition"] = self.lens
            if metadata_keys is not None:
                metadata = {k: v for k, v in metadata.items() if k in metadata_keys}
            log.metadata.append(metadata)
            return metadata

        def capture_metadata(self) -> dict[str, Any]:
            log.calls.append(("metadata", self.frame + 1))
            return dict(self._advance())

        def set_controls(self, controls: dict[str, Any]) -> None:
            unknown = set(controls) - set(self.camera_controls)
            if unknown:
                raise RuntimeError(f"Control {sorted(unknown)[0]} is not advertised by libcamera")
            log.calls.append(("set_controls", dict(controls), self.frame))
            self.ae = controls.get("AeEnable", self.ae)
            self.awb = controls.get("AwbEnable", self.awb)
            self.exposure = controls.get("ExposureTime", self.exposure)
            self.gain = controls.get("AnalogueGain", self.gain)
            self.colour = controls.get("ColourGains", self.colour)
            if "LensPosition" in controls:
                self.lens = controls["LensPosition"]

        def capture_array(self, stream: str = "main") -> np.ndarray:
            if broken == "capture":
                raise RuntimeError("Camera frontend has timed out!")
            log.calls.append(("capture", stream))
            self._advance()
            width, height = self.camera_config["main"]["size"]
            return np.full((height, width, 3), 40, np.uint8)

        def stop(self) -> None:
            log.calls.append(("stop",))

        def close(self) -> None:
            log.calls.append(("close",))

    module = types.SimpleNamespace(Picamera2=Picamera2, log=log)
    return module
