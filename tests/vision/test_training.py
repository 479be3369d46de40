"""The training tools' shared parts (tools/training.py): crop pools, schedule and loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.conftest import load_tool, trains

training = load_tool("training")


def item(h: int, w: int) -> object:
    return training.Item(np.zeros((h, w, 3), np.uint8), np.zeros((0, 4), np.float32), 40.0)


def test_crop_pools_give_the_photos_their_share_split_by_source() -> None:
    rendered, nell, other = [item(480, 640)], [item(600, 600)], [item(480, 640)]
    pools, weights = training.crop_pools(rendered, nell + other, 0.5)
    assert [len(p) for p in pools] == [1, 1, 1] and pools[1] == nell and pools[2] == other
    assert weights == pytest.approx([0.5, 0.5 * 0.58, 0.5 * 0.42])
    # a source left out takes its share with it: the others keep their ratios
    pools, weights = training.crop_pools(rendered, other, 0.5)
    assert pools == [rendered, other] and weights == pytest.approx([0.5 / 0.71, 0.21 / 0.71])
    pools, weights = training.crop_pools(rendered, [], 0.5)  # no photos: rendered only
    assert pools == [rendered] and weights == [1.0]
    pools, weights = training.crop_pools([], nell + other, 0.5)  # no rendered frames
    assert weights == pytest.approx([0.58, 0.42])
    with pytest.raises(SystemExit, match="no training frames"):
        training.crop_pools([], [], 0.5)


def test_the_schedule_warms_up_then_decays_to_a_fiftieth() -> None:
    schedule = training.Schedule(minutes=10, lr=1e-3, warm_up=100)
    assert schedule.rate(0, 0.0) == pytest.approx(1e-5)
    assert schedule.rate(99, 0.0) == pytest.approx(1e-3)
    assert schedule.rate(500, 300.0) == pytest.approx(1e-3 * (0.02 + 0.98 * 0.5))
    assert schedule.rate(900, 600.0) == pytest.approx(2e-5)
    assert schedule.rate(999, 900.0) == pytest.approx(2e-5)  # past the time: stays at the end
    cold = training.Schedule(minutes=10, lr=1e-3)
    assert cold.rate(0, 0.0) == pytest.approx(1e-3)


def test_a_rendered_frame_becomes_a_training_frame() -> None:
    from vision.render import random_scene

    frame, truth = random_scene(31, 5, style="tower", cocked=0)
    got = training.rendered_item(frame, truth)
    assert got.image is frame and got.dice.shape == (5, 4)
    assert sorted(got.dice[:, 3].astype(int)) == sorted(d["value"] for d in truth["dice"])
    assert np.all(np.abs(got.dice[:, 2] - truth["die_px"]) < 0.25 * truth["die_px"])


@trains
def test_the_loop_trains_logs_and_checkpoints(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    training.start_torch("a test", 3)
    net = torch.nn.Linear(2, 1)
    x, y = torch.randn(64, 2), torch.randn(64, 1)
    optimiser = torch.optim.SGD(net.parameters(), lr=0.1)
    calls: list[int] = []
    losses: list[float] = []

    def loss_step() -> tuple[torch.Tensor, dict[str, float]]:
        loss = torch.nn.functional.mse_loss(net(x), y)
        losses.append(float(loss.detach()))
        return loss, {"mse": losses[-1]}

    schedule = training.Schedule(0.02, 0.1, log_every=5, checkpoint_minutes=1e-9)
    steps = training.train_for(net, optimiser, schedule, loss_step, calls.append)
    assert steps == len(losses) >= 1 and calls == list(range(1, steps + 1))
    if steps > 1:
        assert losses[-1] < losses[0]
    assert capsys.readouterr().err.count("mse") == steps // 5


@trains
@pytest.mark.filterwarnings("ignore:ONNX export mode is set to TrainingMode.EVAL")  # see below
@pytest.mark.filterwarnings("ignore:Converting a tensor to a Python boolean")  # the tracer's
def test_a_normalising_face_reader_reads_a_crop_alike_at_any_contrast(tmp_path: Path) -> None:
    # --normalise: each crop's channels are brought to their own mean and spread inside the
    # exported model, so dull pips on a dark body reach the first layer as black on white do
    # (the exporter warns that instance normalisation uses the input's statistics: it should)
    import json

    import torch

    from vision.detect import FaceReader, crops_blob

    train_faces = load_tool("train_faces")
    torch.manual_seed(0)
    net = train_faces.build_net(16, (4, 4, 4), normalise=True)
    out = tmp_path / "faces.onnx"
    training.export_onnx(net, out, (1, 3, 16, 16), ("crops", "logits"), {"crops": {0: "dice"}})
    out.with_suffix(".json").write_text(json.dumps({"crop_px": 16}), encoding="utf-8")
    rng = np.random.default_rng(3)
    crop, other = rng.integers(0, 256, (2, 16, 16, 3)).astype(np.float32)
    dull = (crop * np.array([0.6, 0.7, 0.5]) + np.array([10, 60, 30])).round()
    crops = [c.astype(np.uint8) for c in (crop, dull, other)]
    for runtime in ("onnxruntime", "opencv"):
        reader = FaceReader(out, runtime=runtime)
        logits = reader.raw(crops_blob(crops))
        alike, apart = np.abs(logits[0] - logits[1]).max(), np.abs(logits[0] - logits[2]).max()
        assert alike < 0.25 * apart, (runtime, alike, apart)
    plain = train_faces.build_net(16, (4, 4, 4))
    assert not any(isinstance(m, torch.nn.InstanceNorm2d) for m in plain.modules())


@trains
def test_random_convolutions_change_the_chosen_crops_and_keep_their_level() -> None:
    import torch

    x = torch.rand(16, 3, 16, 16) - 0.5
    before = x.clone()
    rng = np.random.default_rng(5)
    assert training.random_convolution(x, 0.0, rng) is x
    seen = training.random_convolution(x, 1.0, rng)
    assert seen.shape == x.shape and torch.equal(x, before), "the batch is left as it was"
    changed = (seen - x).abs().amax(dim=(1, 2, 3))
    assert bool((changed > 1e-3).all())
    assert torch.allclose(seen.mean(dim=(1, 2, 3)), x.mean(dim=(1, 2, 3)), atol=1e-5)
    some = training.random_convolution(x, 0.5, np.random.default_rng(5))
    kept = int(((some - x).abs().amax(dim=(1, 2, 3)) == 0).sum())
    assert 0 < kept < 16


@trains
def test_the_face_loss_weighs_no_face_as_asked() -> None:
    import torch

    train_faces = load_tool("train_faces")
    targets = torch.tensor([0, 1])  # no face, then a 1
    says_one = torch.tensor([0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    says_none = torch.tensor([4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    no_face_missed = torch.stack([says_one, says_one])  # the cocked die read as a 1
    face_missed = torch.stack([says_none, says_none])  # the 1 read as no face

    def loss(weight: float, logits: torch.Tensor) -> float:
        return float(train_faces.face_loss(weight)(logits, targets))

    assert loss(3.0, no_face_missed) > loss(1.0, no_face_missed)
    assert loss(3.0, face_missed) < loss(1.0, face_missed)
    assert loss(1.0, no_face_missed) == pytest.approx(loss(1.0, face_missed))


@trains
def test_a_face_reader_that_learned_no_die_apart_exports_it_joined_with_no_face(
    tmp_path: Path,
) -> None:
    # --split-no-face: the net learns a finding of no die (the floor, a speck) apart from a
    # cocked die; the exported model has the shipped reader's seven outputs, "no face" taking
    # the two classes' probability together and every face its own
    import json

    import torch

    from vision.detect import CLASSES, FaceReader, crops_blob

    train_faces = load_tool("train_faces")
    torch.manual_seed(1)
    net = train_faces.build_net(16, (4, 4, 4), classes=CLASSES + 1)
    with torch.no_grad():  # a last layer that gives every class its own weight
        net[-1].bias.copy_(torch.linspace(-2.0, 2.0, CLASSES + 1))
    out = tmp_path / "faces.onnx"
    joined = train_faces.join_no_face(net)
    training.export_onnx(joined, out, (1, 3, 16, 16), ("crops", "logits"), {"crops": {0: "dice"}})
    out.with_suffix(".json").write_text(json.dumps({"crop_px": 16}), encoding="utf-8")
    crops = list(np.random.default_rng(4).integers(0, 256, (3, 16, 16, 3)).astype(np.uint8))
    net.eval()
    with torch.no_grad():
        inner = torch.softmax(net(torch.from_numpy(crops_blob(crops))), dim=1).numpy()
    want = np.concatenate([inner[:, :1] + inner[:, -1:], inner[:, 1:-1]], axis=1)
    reader = FaceReader(out)
    logits = reader.raw(crops_blob(crops))
    assert logits.shape == (3, CLASSES)
    got = np.exp(logits - logits.max(axis=1, keepdims=True))
    assert np.allclose(got / got.sum(axis=1, keepdims=True), want, atol=1e-5)
    assert (want[:, 0] > inner[:, 0]).all()  # "no die" is counted as no face


def test_split_no_face_is_refused_beside_a_model_to_fine_tune(
    capsys: pytest.CaptureFixture[str],
) -> None:
    train_faces = load_tool("train_faces")
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", ".", "--split-no-face", "--init", "faces.onnx"])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("--split-no-face trains a new net; it cannot fine-tune --init's")


@trains
def test_mixstyle_gives_a_crop_another_crops_look_and_keeps_its_pattern() -> None:
    # --mixstyle: each crop's channels keep their pattern and take a mean and spread mixed
    # from their own and another crop's; in evaluation, and at chance 0, the layer is a pass
    import torch

    torch.manual_seed(2)
    x = (
        torch.randn(6, 4, 8, 8) * torch.arange(1, 7).view(6, 1, 1, 1)
        + torch.arange(6).view(6, 1, 1, 1) * 10
    )
    mix = training.mix_style(1.0)
    mix.train()
    out = mix(x)

    def pattern(t: torch.Tensor) -> torch.Tensor:
        return (t - t.mean(dim=(2, 3), keepdim=True)) / t.std(dim=(2, 3), keepdim=True)

    assert torch.allclose(pattern(out), pattern(x), atol=1e-3)
    means, own = out.mean(dim=(2, 3)), x.mean(dim=(2, 3))
    assert bool((means >= own.min(dim=0).values - 1e-3).all())
    assert bool((means <= own.max(dim=0).values + 1e-3).all())
    moved = (means - own).abs().amax(dim=1)
    assert int((moved > 1.0).sum()) >= 2, moved  # crops that took another's look
    assert training.mix_style(0.0).train()(x) is x
    mix.eval()
    assert mix(x) is x


@trains
def test_a_face_reader_trained_with_mixstyle_exports_as_one_without(tmp_path: Path) -> None:
    import onnx
    import torch

    train_faces = load_tool("train_faces")
    torch.manual_seed(3)
    mixed = train_faces.build_net(16, (4, 4, 4), mixstyle=0.5)
    plain = train_faces.build_net(16, (4, 4, 4))
    with torch.no_grad():  # normalisations of a trained net's kind (the exporter folds them)
        for norm in (m for m in mixed.modules() if isinstance(m, torch.nn.BatchNorm2d)):
            norm.running_mean.uniform_(-0.5, 0.5)
            norm.running_var.uniform_(0.5, 2.0)
            norm.bias.uniform_(-0.5, 0.5)
    names = [type(m).__name__ for m in mixed.modules()]
    assert names.count("MixStyle") == 2 and "MixStyle" not in [
        type(m).__name__ for m in plain.modules()
    ]
    ops = []
    for net, name in ((mixed, "mixed"), (plain, "plain")):
        out = tmp_path / f"{name}.onnx"
        training.export_onnx(net, out, (1, 3, 16, 16), ("crops", "logits"), {"crops": {0: "dice"}})
        graph = onnx.load(str(out)).graph  # (the exporter shares equal weights by Identity)
        ops.append([n.op_type for n in graph.node if n.op_type != "Identity"])
    assert ops[0] == ops[1] and "Conv" in ops[0]
    bare = train_faces.build_net(16, (4, 4, 4), batch_norm=False)
    training.load_exported(bare, tmp_path / "mixed.onnx")
    crops = torch.rand(3, 3, 16, 16) - 0.5
    mixed.eval()
    bare.eval()
    with torch.no_grad():
        assert torch.allclose(bare(crops), mixed(crops), atol=1e-4)


def test_mixstyle_outside_a_share_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    train_faces = load_tool("train_faces")
    with pytest.raises(SystemExit):
        train_faces.main(["--photos", ".", "--mixstyle", "1.5"])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("--mixstyle is 1.5; expected a share of the batches from 0 to 1")
