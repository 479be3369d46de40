"""The reader on real photographs (the shared development set), on a fixed sample.

The whole set is measured with ``zilch-tower vision-bench``; these tests keep the reader
from getting worse on real dice and check that it is never confidently wrong too often.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.bench import Score, folder_samples, run

SAMPLE_EVERY = 10  # every tenth image: a fixed, spread-out sample


def _score(shared_dir: Path, folder: str) -> Score:
    root = shared_dir / "data" / "dice-photos" / folder
    if not (root / "labels.jsonl").is_file():
        pytest.skip(f"{root} is absent: the development photos are not beside the project")
    samples = [s for i, s in enumerate(folder_samples(root)) if i % SAMPLE_EVERY == 0]
    return run(samples, folder, len(samples), show_progress=False)


def test_nell_byler_sample(shared_dir: Path) -> None:
    score = _score(shared_dir, "nell-byler")
    assert score.labelled > 50
    assert score.detected / score.labelled > 0.6
    assert score.confident_wrong <= 0.05 * score.labelled


def test_matteop65_sample(shared_dir: Path) -> None:
    score = _score(shared_dir, "matteop65")
    assert score.labelled > 50
    assert score.detected / score.labelled > 0.6
    assert score.confident_wrong <= 0.05 * score.labelled
