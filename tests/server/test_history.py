"""Dice fairness: the chi-square tail with 5 degrees of freedom, the verdict and the plot."""

import math

import pytest

from server.history import Fairness, bar_plot, chi2_sf_5


def _sf_by_integration(x: float, steps: int = 200_000) -> float:
    """1 - CDF of chi-square(5) by the trapezoid rule on its density (an independent check)."""

    def pdf(t: float) -> float:
        return t**1.5 * math.exp(-t / 2) / (2**2.5 * math.gamma(2.5)) if t > 0 else 0.0

    h = x / steps
    area = sum(pdf(i * h) for i in range(1, steps)) * h + (pdf(0) + pdf(x)) * h / 2
    return 1 - area


@pytest.mark.parametrize(
    ("x", "p"), [(0.0, 1.0), (1.145476, 0.95), (4.35146, 0.5), (11.0705, 0.05), (15.0863, 0.01)]
)
def test_chi2_tail_matches_published_critical_values(x: float, p: float) -> None:
    assert chi2_sf_5(x) == pytest.approx(p, abs=2e-5)


@pytest.mark.parametrize("x", [0.5, 3.0, 7.7, 20.0])
def test_chi2_tail_matches_numeric_integration(x: float) -> None:
    assert chi2_sf_5(x) == pytest.approx(_sf_by_integration(x), abs=1e-6)


def test_fair_counts_pass_and_loaded_counts_fail() -> None:
    fair = Fairness((100, 98, 103, 101, 99, 99), 100)
    assert fair.p_value is not None and fair.p_value > 0.9
    assert "No sign of bias" in fair.verdict()
    loaded = Fairness((60, 100, 100, 100, 100, 140), 100)
    assert loaded.chi2 == pytest.approx(32.0)
    assert loaded.p_value is not None and loaded.p_value < 1e-5
    assert loaded.verdict().startswith("Suspicious")


def test_no_rolls_and_too_few_rolls() -> None:
    assert Fairness((0,) * 6, 0).p_value is None
    assert Fairness((0,) * 6, 0).verdict() == "No rolls yet."
    assert "too few" in Fairness((2, 1, 1, 2, 0, 0), 1).verdict()


def test_bar_plot_draws_one_bar_per_face_scaled_to_counts() -> None:
    svg = str(bar_plot([10, 20, 30, 0, 5, 25]))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<rect") == 6
    assert 'data-face="3" data-count="30"' in svg
    assert 'data-expected="15.00"' in svg


def test_bar_plot_draws_the_fair_line_behind_the_bars_and_labels() -> None:
    svg = str(bar_plot([40, 41, 39, 40, 2, 38]))
    assert svg.index("<line") < svg.index("<rect"), "the line goes behind the bars"
    assert "fair die: 33 each" in svg


def test_local_time_and_final_scores() -> None:
    from datetime import datetime

    from server.history import final_scores, local_time

    stamp = "2026-12-01T09:52:55+00:00"
    local = datetime.fromisoformat(stamp).astimezone()
    assert local_time(stamp) == f"{local:%a} {local.day} {local:%b %H:%M}"
    assert "2026-12-01" not in local_time(stamp) and "+00:00" not in local_time(stamp)
    assert local_time(None) == "" and local_time("not a time") == "not a time"
    summary = {"players": [{"name": "Ann", "score": 9800}, {"name": "Ben", "score": 10350}]}
    assert final_scores(summary) == "Ben 10,350, Ann 9,800"
    assert final_scores(None) == ""
