"""The Pi camera source against a picamera2 stand-in that scores sensor modes and runs AGC/AWB."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest

from server.config import SCHEMA
from tests.vision.fake_picamera2 import IMX219, IMX708, Log, Scene, fake_picamera2, libcamera_pick
from vision.camera_settings import (
    DEFAULT_LENS_HEIGHT_MM,
    close_enough,
    full_field_mode,
    lens_dioptres,
    same_aspect_size,
)
from vision.sources import CameraNotFound, Picamera2Source, SourceError, open_source


def install(monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> Log:
    log = kwargs.pop("log", None) or Log()
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2(log=log, **kwargs))
    return log


def set_controls(log: Log) -> list[tuple[dict[str, Any], int]]:
    return [(call[1], call[2]) for call in log.calls if call[0] == "set_controls"]


def crop_area(mode: dict[str, Any]) -> int:
    return int(mode["crop_limits"][2] * mode["crop_limits"][3])


# --- the sensor mode ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(1296, 972), (640, 480)])
def test_left_alone_libcamera_would_crop_the_middle(size: tuple[int, int]) -> None:
    """The stand-in's scoring reproduces the trap: these main sizes get the 1536x864 centre crop."""
    mode = libcamera_pick(IMX708.modes, size, 10)
    assert mode["size"] == (1536, 864)
    assert crop_area(mode) < 4608 * 2592 / 2


@pytest.mark.parametrize(
    ("size", "expected_mode", "expected_main"),
    [((1296, 972), (2304, 1296), (1728, 972)), ((640, 480), (2304, 1296), (854, 480)),
     ((2560, 1440), (4608, 2592), (2560, 1440))],
)  # fmt: skip
def test_the_camera_runs_a_full_field_mode_with_a_main_stream_of_its_aspect(
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    expected_mode: tuple[int, int],
    expected_main: tuple[int, int],
) -> None:
    log = install(monkeypatch)
    with Picamera2Source(size) as camera:
        frame = camera.read()
        assert camera.sensor_mode == {"output_size": expected_mode, "bit_depth": 10}
        assert camera.size == expected_main
    running = next(m for m in IMX708.modes if m["size"] == expected_mode)
    assert running["crop_limits"] == (0, 0, 4608, 2592)  # the whole sensor, binned
    config = next(call for call in log.calls if call[0] == "config")
    assert config[1] == {"size": expected_main, "format": "RGB888"}
    assert abs(expected_main[0] / expected_main[1] - 16 / 9) < 0.01
    assert expected_main[0] >= size[0] and expected_main[1] >= size[1]
    assert frame.shape == (expected_main[1], expected_main[0], 3)


def test_a_4_3_camera_keeps_4_3_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, sensor=IMX219)
    with Picamera2Source((1296, 972)) as camera:
        assert camera.sensor_mode["output_size"] == (1640, 1232)
        assert camera.size == (1296, 974)  # 1640x1232 is not quite 4:3


def test_mode_choice_helpers() -> None:
    modes = list(IMX708.modes)
    assert full_field_mode(modes, (5000, 3000)) is modes[2]  # nothing holds it: the largest
    assert full_field_mode([], (640, 480)) is None
    assert same_aspect_size((1296, 972), 16 / 9) == (1728, 972)
    assert same_aspect_size((1920, 800), 16 / 9) == (1920, 1080)


def test_a_mode_libcamera_will_not_run_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    log = install(monkeypatch)

    class Other(sys.modules["picamera2"].Picamera2):  # type: ignore[name-defined,misc]
        def configure(self, config: dict[str, Any]) -> None:
            cropped = {"output_size": (1536, 864), "bit_depth": 10}
            super().configure({**config, "sensor": cropped})  # runs another mode than asked

    monkeypatch.setattr(sys.modules["picamera2"], "Picamera2", Other)
    with pytest.raises(SourceError, match=r"instead of the full-field \(2304, 1296\)"):
        Picamera2Source((1296, 972))
    assert log.names()[-2:] == ["stop", "close"]


def test_a_picamera2_too_old_for_sensor_modes_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = install(monkeypatch)

    class Old(sys.modules["picamera2"].Picamera2):  # type: ignore[name-defined,misc]
        def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
            return super().create_video_configuration(main)

    monkeypatch.setattr(sys.modules["picamera2"], "Picamera2", Old)
    with pytest.raises(SourceError, match=r"cannot be given a sensor mode .*--only-upgrade"):
        Picamera2Source((1296, 972))
    assert log.names()[-2:] == ["stop", "close"]


# --- focus -------------------------------------------------------------------------------------


def test_the_lens_is_focused_manually_on_the_dice_at_the_configured_height(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = install(monkeypatch)
    camera = open_source("picamera2", width=1296, height=972, lens_height_mm=300)
    focus = set_controls(log)[0][0]
    assert focus == {"AfMode": 0, "LensPosition": pytest.approx(1000 / (300 - 16))}
    assert camera.read().shape[:2] == (972, 1728)
    camera.close()


def test_the_default_height_is_the_hardware_guides(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SCHEMA["camera"]["lens_height_mm"].default == DEFAULT_LENS_HEIGHT_MM == 262
    log = install(monkeypatch)
    with Picamera2Source((1296, 972)) as camera:
        assert camera.focus["LensPosition"] == pytest.approx(lens_dioptres(262)) == 1000 / 246
    assert set_controls(log)[0][0]["LensPosition"] == pytest.approx(4.065, abs=1e-3)


def test_a_camera_without_focus_control_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    log = install(monkeypatch, sensor=IMX219)
    with caplog.at_level(logging.INFO, logger="vision.sources"), Picamera2Source() as camera:
        assert camera.focus == {}
    assert all("LensPosition" not in c and "AfMode" not in c for c, _ in set_controls(log))
    assert "no focus control" in caplog.text


def test_a_height_the_lens_cannot_reach_is_clamped_and_said(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    install(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        camera = Picamera2Source(lens_height_mm=60)  # 44 mm: 22.7 dioptres, the lens stops at 15
    assert camera.focus["LensPosition"] == 15.0
    assert "outside the lens's 0..15" in caplog.text
    camera.close()
    with pytest.raises(SourceError, match=r"lens height 10 mm: use 50\.\.2000 mm"):
        Picamera2Source(lens_height_mm=10)


# --- exposure and white balance -----------------------------------------------------------------


def test_the_lock_waits_for_ae_converged_and_stable_colour_gains(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene = Scene()
    log = install(monkeypatch, scene=scene)
    camera = Picamera2Source((1296, 972))
    controls, frame = set_controls(log)[-1]
    seen = log.metadata[:frame]
    first_converged = next(i for i, m in enumerate(seen) if m["AeState"] == 2)
    assert frame >= max(camera.skip_frames, first_converged) + camera.stable_frames
    assert controls["AeEnable"] is False and controls["AwbEnable"] is False
    assert controls["ExposureTime"] == pytest.approx(scene.exposure, rel=0.02)
    for got, want in zip(controls["ColourGains"], scene.colour, strict=True):
        assert got == pytest.approx(want, rel=0.02)
    # Two frames within 2% came much earlier, while white balance was still far off:
    for k in range(1, frame):
        if close_enough(_values(seen[k - 1]), _values(seen[k])):
            early = seen[k]["ColourGains"]
            assert abs(early[0] / scene.colour[0] - 1) > 0.05
            break
    else:
        pytest.fail("the stand-in never showed two agreeing frames before settling")
    camera.close()


def _values(metadata: dict[str, Any]) -> dict[str, Any]:
    return {key: metadata[key] for key in Picamera2Source.LOCKED}


def test_the_first_frames_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up frames are steady (AGC has not acted) but must never be locked."""
    log = install(monkeypatch, scene=Scene(exposure=20_000, gain=1.0, colour=(1.0, 1.0)))
    camera = Picamera2Source((640, 480), skip_frames=4, stable_frames=3)
    assert set_controls(log)[-1][1] == 4 + 3
    camera.close()


def test_older_libcamera_without_ae_state_locks_on_stability(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene = Scene(ae_state=False)
    log = install(monkeypatch, scene=scene)
    camera = Picamera2Source((640, 480))
    assert "AeState" not in log.metadata[0]
    assert camera.controls["ExposureTime"] == pytest.approx(scene.exposure, rel=0.02)
    assert camera.controls["ColourGains"][1] == pytest.approx(scene.colour[1], rel=0.02)
    camera.close()


def test_a_scene_that_never_settles_locks_after_the_limit_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    log = install(monkeypatch, scene=Scene(still=False))
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        camera = Picamera2Source((640, 480), settle_frames=20)
    assert len(log.metadata) == 20
    assert "still moving after 20 frames" in caplog.text
    assert camera.controls["AeEnable"] is False
    camera.close()


def test_settling_options_are_checked() -> None:
    with pytest.raises(SourceError, match="settle_frames=0"):
        Picamera2Source(settle_frames=0)
    with pytest.raises(SourceError, match="skip_frames=10, stable_frames=6"):
        Picamera2Source(settle_frames=8, skip_frames=10)


# --- failures ------------------------------------------------------------------------------------


def test_picamera2_absent_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import raises ImportError
    with pytest.raises(CameraNotFound, match="picamera2 is not installed"):
        Picamera2Source()


def test_picamera2_without_a_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, fail=True)
    with pytest.raises(CameraNotFound, match="Pi camera 0 is not available"):
        Picamera2Source()


def test_metadata_without_exposure_closes_the_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    log = install(monkeypatch, metadata_keys=("Lux",))
    with pytest.raises(SourceError, match="lacks ExposureTime"):
        Picamera2Source(settle_frames=8)
    assert log.names()[-2:] == ["stop", "close"]


def test_a_busy_camera_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    log = install(monkeypatch, broken="start")
    with pytest.raises(SourceError, match="Pi camera 0 cannot start: Failed to start camera"):
        Picamera2Source()
    assert log.names()[-2:] == ["stop", "close"]


def test_a_capture_failure_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, broken="capture")
    with Picamera2Source() as camera, pytest.raises(SourceError, match="returned no frame"):
        camera.read()
