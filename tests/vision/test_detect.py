"""The learned die detector and face reader: decoding, crops, shipped models, training data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import labelled_folder, load_tool, trains
from vision.detect import (
    CLASSES,
    CROP_PX,
    DETECTOR_FILE,
    DETECTOR_INFO,
    FACES_FILE,
    FACES_INFO,
    OUTPUTS,
    STRIDE,
    Detector,
    FaceReader,
    decode,
    die_crop,
    load_detector,
    load_face_reader,
    prepare,
)
from vision.models import held_out, photos_seen
from vision.reader import read_dice
from vision.render import random_scene

train_detector = load_tool("train_detector")
train_faces = load_tool("train_faces")
training = load_tool("training")


def _grid(rows: int, cols: int) -> np.ndarray:
    out = np.zeros((1, OUTPUTS, rows, cols), np.float32)
    out[0, 0] = -10.0  # no centre anywhere
    return out


def _put(out: np.ndarray, i: int, j: int, score: float, side_px: float, value: int) -> None:
    out[0, 0, i, j] = np.log(score / (1 - score))
    out[0, 3, i, j] = np.log(side_px / STRIDE)
    out[0, 4:, i, j] = -5.0
    out[0, 4 + value, i, j] = 5.0


def test_decode_reads_centre_size_and_value() -> None:
    out = _grid(10, 12)
    _put(out, 4, 6, 0.9, 40.0, 5)
    out[0, 1, 4, 6], out[0, 2, 4, 6] = 0.25, -0.25
    (d,) = decode(out)
    assert d.centre == pytest.approx(((6 + 0.75) * STRIDE, (4 + 0.25) * STRIDE))
    assert d.side == pytest.approx(40.0, rel=1e-4)
    assert d.score == pytest.approx(0.9, rel=1e-4)
    assert d.value == 5 and d.probs.shape == (CLASSES,) and d.probs.sum() == pytest.approx(1.0)
    assert d.box == (34, 14, 74, 54)


def test_decode_scales_back_to_the_frame() -> None:
    out = _grid(10, 12)
    _put(out, 2, 3, 0.8, 20.0, 2)
    (d,) = decode(out, scale=0.5)
    assert d.centre == pytest.approx((3.5 * STRIDE * 2, 2.5 * STRIDE * 2))
    assert d.side == pytest.approx(40.0, rel=1e-4)


def test_decode_keeps_one_of_two_close_centres_and_both_of_two_dice() -> None:
    out = _grid(10, 12)
    _put(out, 4, 4, 0.9, 40.0, 3)
    _put(out, 4, 6, 0.6, 40.0, 3)  # 16 px from the first: the same die
    _put(out, 4, 10, 0.7, 40.0, 1)  # 48 px away: another die
    found = decode(out)
    assert [d.value for d in found] == [3, 1]
    assert found[0].score == pytest.approx(0.9, rel=1e-4)


def test_decode_drops_weak_and_padded_centres() -> None:
    out = _grid(10, 12)
    _put(out, 4, 4, 0.1, 40.0, 3)
    _put(out, 9, 11, 0.9, 40.0, 3)  # on the padding of a 70 x 90 frame
    assert decode(out, threshold=0.2, shape=(70, 90)) == []


def test_decode_refuses_a_grid_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="detector output has shape"):
        decode(np.zeros((1, 3, 4, 4), np.float32))


def test_prepare_pads_to_the_stride_and_shrinks_large_frames() -> None:
    blob, scale = prepare(np.full((101, 203, 3), 255, np.uint8))
    assert scale == 1.0 and blob.shape == (1, 3, 104, 208) and blob.dtype == np.float32
    assert blob.max() == pytest.approx(0.5)
    blob, scale = prepare(np.zeros((972, 1296, 3), np.uint8))
    assert scale == pytest.approx(640 / 1296) and blob.shape == (1, 3, 480, 640)


def test_a_corrupt_model_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a readable ONNX model"):
        Detector(bad)
    assert load_detector(tmp_path / "absent.onnx") is None


def test_shipped_detector_finds_rendered_dice() -> None:
    detector = load_detector()
    assert detector is not None, f"{DETECTOR_FILE} is missing: run tools/train_detector.py"
    right = total = 0
    for seed in range(8):  # bench seeds; the detector was trained on seeds from 700000
        frame, truth = random_scene(seed, 6, style="tower", cocked=0)
        found = [d for d in detector.detect(frame) if d.score >= 0.3]
        for die in truth["dice"]:
            total += 1
            near = [
                d
                for d in found
                if np.hypot(d.centre[0] - die["center"][0], d.centre[1] - die["center"][1])
                < 0.3 * truth["die_px"]
            ]
            right += len(near) == 1 and near[0].value == die["value"]
    assert right >= 0.97 * total


def test_reader_without_calibration_uses_the_detector() -> None:
    ok = 0
    for seed in range(6):
        frame, truth = random_scene(seed, 6, style="tower", cocked=0)
        reading = read_dice(frame, expected=6)
        assert sorted(reading.values) == sorted(d["value"] for d in truth["dice"])
        ok += reading.ok  # an unsure die may ask for another shake, but rarely
    assert ok >= 5


def test_detector_knows_its_training_photos() -> None:
    names = photos_seen(DETECTOR_INFO, FACES_INFO)
    assert names and all("/" in n for n in names)
    assert not any(held_out(n) for n in names)


def test_training_crops_keep_their_labels_on_the_dice() -> None:
    item = train_detector.rendered_items(1)[0]
    rng = np.random.default_rng(5)
    for _ in range(12):
        crop, dice = training.sample(item, rng)
        assert crop.shape == (training.CROP, training.CROP, 3)
        for x, y, side, _value in dice:
            if 0.3 * side <= x < training.CROP - 0.3 * side and 0.3 * side <= y < (
                training.CROP - 0.3 * side
            ):
                # the centre of a die is not the floor: it differs from the crop's median
                r = max(2, int(0.2 * side))
                patch = crop[int(y) - r : int(y) + r + 1, int(x) - r : int(x) + r + 1]
                floor = np.median(crop.reshape(-1, 3), axis=0)
                assert np.abs(patch.astype(float) - floor).max() > 25


def test_training_styles_add_finishes_only_when_asked() -> None:
    plain = [train_detector.rendered_style(np.random.default_rng(k)) for k in range(20)]
    assert all(s.marbled == s.translucent == s.glints == 0 for s in plain)
    fancy = [train_detector.rendered_style(np.random.default_rng(k), True) for k in range(20)]
    assert all(s.marbled > 0 and s.translucent > 0 and s.glints > 0 for s in fancy)
    # the other knobs are drawn first and the same either way
    assert [s.noise for s in plain] == [s.noise for s in fancy]


def test_face_training_turns_hues_and_keeps_greys() -> None:
    crop = np.full((48, 48, 3), (40, 40, 200), np.uint8)  # a red die body (BGR)
    crop[20:28, 20:28] = (250, 250, 250)  # a white pip
    crop[:4] = (128, 128, 128)  # grey floor
    hues = set()
    for k in range(8):
        out = training.rehue(crop, np.random.default_rng(k))
        assert out.shape == crop.shape and out.dtype == np.uint8
        # greys have no hue to turn; the body stays as bright as it was, in another colour
        assert np.abs(out[:4].astype(int) - 128).max() <= 2
        assert np.abs(out[24, 24].astype(int) - 250).max() <= 6
        assert int(out[40, 40].max()) == pytest.approx(200, abs=3)
        hues.add(int(np.argmax(out[40, 40])))
    assert len(hues) > 1
    again = training.rehue(crop, np.random.default_rng(3))
    assert np.array_equal(again, training.rehue(crop, np.random.default_rng(3)))


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("--hue", "-0.1", "--hue is -0.1; expected a chance from 0 to 1"),
        ("--hue", "1.5", "--hue is 1.5; expected a chance from 0 to 1"),
        ("--randconv", "-1", "--randconv is -1.0; expected a chance from 0 to 1"),
        ("--grey", "1.01", "--grey is 1.01; expected a chance from 0 to 1"),
        ("--invert", "-0.5", "--invert is -0.5; expected a chance from 0 to 1"),
        ("--crop", "30", "--crop is 30; expected a multiple of 8 from 8 to 256"),
        ("--crop", "264", "--crop is 264; expected a multiple of 8 from 8 to 256"),
    ],
)
def test_face_training_refuses_options_out_of_range(
    option: str, value: str, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", ".", option, value])
    assert error in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--hue", "-0.1"), ("--hue", "1.5"), ("--randconv", "2"), ("--grey", "3"), ("--invert", "-1")],
)
def test_detector_training_refuses_chances_out_of_range(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        train_detector.main(["--photos", "nowhere", option, value])
    assert f"{option} is {float(value)}; expected a chance from 0 to 1" in capsys.readouterr().err


@trains
def test_detector_batches_turn_hues_only_when_asked() -> None:
    pools = [train_detector.rendered_items(2)]

    def batch(hue: float) -> np.ndarray:
        looks = training.Looks(hue=hue)
        x, _ = training.batch_of(pools, [1.0], 6, np.random.default_rng(9), looks)
        return x.numpy()

    plain, turned = batch(0.0), batch(1.0)
    assert np.array_equal(plain, batch(0.0)) and turned.shape == plain.shape
    # the first crop is cut the same either way; another hue keeps each pixel's brightness
    assert not np.allclose(turned[0], plain[0], atol=0.02)
    assert np.allclose(turned[0].max(axis=0), plain[0].max(axis=0), atol=0.03)


def test_training_looks_grey_and_turn_over_only_when_asked() -> None:
    crop = np.full((48, 48, 3), (40, 40, 200), np.uint8)  # a red die body (BGR)
    crop[20:28, 20:28] = (250, 250, 250)  # a white pip
    rng = np.random.default_rng(4)
    # no look asked: the crop as it was, and no random number drawn for it
    assert training.PLAIN.apply(crop, rng) is crop
    assert rng.random() == np.random.default_rng(4).random()
    grey = training.Looks(grey=1.0).apply(crop, np.random.default_rng(1))
    assert grey.shape == crop.shape and grey.dtype == np.uint8
    assert (grey == grey[:, :, :1]).all()  # no colour left
    assert grey[24, 24, 0] > 240 and 60 < grey[40, 40, 0] < 100  # a red body's grey level
    turned = training.Looks(invert=1.0).apply(crop, np.random.default_rng(1))
    assert (turned[24, 24] == 5).all() and tuple(turned[40, 40]) == (215, 215, 55)
    # each look at its own chance: about half the crops greyed
    half = training.Looks(grey=0.5)
    rng = np.random.default_rng(2)
    kept = [bool((half.apply(crop, rng) == crop).all()) for _ in range(400)]
    assert 150 < sum(kept) < 250


def test_training_targets_mark_each_centre() -> None:
    dice = np.array([[20.0, 36.0, 40.0, 4.0], [100.0, 100.0, float("nan"), 2.0]], np.float32)
    t = training.targets(dice, 16)
    assert t["heat"][4, 2] == 1.0 and t["heat"][12, 12] == 1.0
    assert t["cls"][4, 2] == 4 and t["cls"][12, 12] == 2
    assert t["reg"][3, 4, 2] == 1.0 and t["reg"][3, 12, 12] == 0.0  # size known, unknown
    assert t["reg"][2, 4, 2] == pytest.approx(np.log(40.0 / STRIDE))
    assert t["reg"][0, 4, 2] == pytest.approx(20.0 / STRIDE - 2.5)
    assert (t["cls"] >= 0).sum() > 2


def test_die_crop_is_centred_on_the_die_whatever_the_angle() -> None:
    frame, truth = random_scene(2, 6, style="tower", cocked=0)
    die = truth["dice"][0]
    floor = np.median(frame.reshape(-1, 3), axis=0)
    for angle, px in ((0.0, CROP_PX), (37.0, 48), (90.0, 24)):
        crop = die_crop(frame, tuple(die["center"]), truth["die_px"], angle, px)
        assert crop.shape == (px, px, 3) and crop.dtype == np.uint8
        middle = crop[px // 2 - 6 : px // 2 + 6, px // 2 - 6 : px // 2 + 6]
        corner = crop[:3, :3]
        assert np.abs(middle.astype(float) - floor).mean() > 40  # the die's body
        assert np.abs(corner.astype(float) - floor).mean() < 40  # the floor beyond it


def test_a_corrupt_face_model_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "faces.onnx"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(ValueError, match="not a readable ONNX model"):
        FaceReader(bad)
    assert load_face_reader(tmp_path / "absent.onnx") is None


@pytest.mark.parametrize(
    ("description", "complaint"),
    [
        ('{"crop_px": 30}', "crop_px is 30; expected a multiple of 8"),
        ('{"crop_px": "48"}', "crop_px is '48'"),
        ('{"crop_px": 4096}', "crop_px is 4096"),
        ("[48]", "not a face reader's JSON description"),
        ("{crop", "not a face reader's JSON description"),
    ],
)
def test_a_bad_face_model_description_is_a_clear_error(
    tmp_path: Path, description: str, complaint: str
) -> None:
    model = tmp_path / "faces.onnx"
    model.write_bytes(FACES_FILE.read_bytes())
    model.with_suffix(".json").write_text(description, encoding="utf-8")
    with pytest.raises(ValueError, match=complaint):
        FaceReader(model)


def test_the_face_reader_reads_crops_of_the_side_its_description_gives(tmp_path: Path) -> None:
    shipped = FaceReader(FACES_FILE)
    assert shipped.crop_px % 8 == 0
    model = tmp_path / "faces.onnx"
    model.write_bytes(FACES_FILE.read_bytes())
    assert FaceReader(model).crop_px == CROP_PX  # no description: the default side


def test_shipped_face_reader_reads_rendered_dice_and_sees_no_face_on_the_floor() -> None:
    faces = load_face_reader()
    assert faces is not None, f"{FACES_FILE} is missing: run tools/train_faces.py"
    right = total = 0
    for seed in range(6):  # bench seeds; the face reader was trained on seeds from 800000
        frame, truth = random_scene(seed, 6, style="tower", cocked=0)
        dice = [(tuple(d["center"]), truth["die_px"]) for d in truth["dice"]]
        probs = faces.probabilities(frame, dice)
        assert probs.shape == (6, CLASSES) and np.allclose(probs.sum(axis=1), 1.0)
        values = [d["value"] for d in truth["dice"]]
        right += sum(int(np.argmax(p)) == v for p, v in zip(probs, values, strict=True))
        total += 6
    assert right >= 0.95 * total
    empty, _ = random_scene(0, 0, style="tower")
    floor = faces.probabilities(empty, [((320.0, 240.0), 42.0), ((200.0, 300.0), 42.0)])
    assert (np.argmax(floor, axis=1) == 0).all()


def test_the_wide_domain_renders_its_own_finishes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train_detector.main(["--photos", "nowhere", "--wide", "--finishes"])
    assert "--wide renders its own finishes; leave out --finishes" in capsys.readouterr().err


def test_the_wide_form_needs_the_wide_domain(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train_detector.main(["--photos", "nowhere", "--wide-form", "2"])
    assert "--wide-form 2 needs --wide" in capsys.readouterr().err


@trains
def test_the_detector_trains_on_the_wide_domain_when_asked(tmp_path: Path) -> None:
    photos = labelled_folder(tmp_path / "photos" / "rendered", range(950, 953))
    out, cache = tmp_path / "detector.onnx", tmp_path / "cache"
    argv = ["--photos", str(photos.parent), "--rendered", "2", "--minutes", "0.02"]
    knobs = ["--hue", "0.5", "--randconv", "0.5"]  # both change the crops, not the targets
    assert (
        train_detector.main([*argv, "--wide", "--cache", str(cache), "--out", str(out), *knobs])
        == 0
    )
    assert [p.name for p in cache.glob("*.npz")] == ["wide-600000-2.npz"]  # the wide frames
    assert Detector(out).detect(random_scene(0, 6)[0]) is not None
