"""``/history``: past games, records, and whether the dice are fair.

Fairness: the counts of each face over every scored roll, a chi-square
goodness-of-fit test against a fair die (5 degrees of freedom, whose upper
tail has a closed form, so no statistics library is needed), and an SVG bar
plot with the expected count drawn across it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, render_template
from markupsafe import Markup

bp = Blueprint("history", __name__, template_folder="templates")

SIGNIFICANCE = 0.01


def chi2_sf_5(x: float) -> float:
    """P(X >= x) for a chi-square variable with 5 degrees of freedom."""
    if x <= 0:
        return 1.0
    root = math.sqrt(x)
    return math.erfc(root / math.sqrt(2)) + math.sqrt(2 / math.pi) * root * math.exp(-x / 2) * (
        1 + x / 3
    )


@dataclass(frozen=True)
class Fairness:
    """Face counts and the chi-square test of a fair die."""

    counts: tuple[int, ...]
    rolls: int

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        return self.dice / 6

    @property
    def chi2(self) -> float | None:
        if self.dice == 0:
            return None
        e = self.expected
        return sum((c - e) ** 2 / e for c in self.counts)

    @property
    def p_value(self) -> float | None:
        chi2 = self.chi2
        return None if chi2 is None else chi2_sf_5(chi2)

    def verdict(self) -> str:
        """A sentence a club can read."""
        p = self.p_value
        if p is None:
            return "No rolls yet."
        if self.dice < 60:
            return f"Only {self.dice} dice so far: too few to judge the dice."
        if p < SIGNIFICANCE:
            return (
                f"Suspicious: a fair set of dice would show counts this uneven "
                f"only {p:.2%} of the time."
            )
        return f"No sign of bias (p = {p:.3f})."

    def to_json(self) -> dict[str, object]:
        return {
            "counts": list(self.counts),
            "rolls": self.rolls,
            "dice": self.dice,
            "expected": self.expected,
            "chi2": self.chi2,
            "p_value": self.p_value,
            "verdict": self.verdict(),
        }


def bar_plot(counts: Sequence[int], width: int = 480, height: int = 240) -> Markup:
    """An inline SVG bar plot of face counts with the fair expectation as a dashed line.

    The line is drawn first, behind the bars, and each count sits inside its
    bar's foot, so the line never strikes through a label.
    """
    pad, base = 30, height - 30
    top_margin = 22  # room for the legend above the tallest bar
    top = max(max(counts, default=0), 1)
    expected = sum(counts) / 6 if counts else 0
    scale = (base - top_margin) / max(top, expected, 1)
    slot = (width - 2 * pad) / 6
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="dice faces counted" class="fairness-plot">'
    ]
    y = base - expected * scale
    parts.append(
        f'<line x1="{pad}" x2="{width - pad}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ffc94d" '
        f'stroke-dasharray="6 4" data-expected="{expected:.2f}"/>'
    )
    parts.append(  # the legend, in the top corner where no bar reaches
        f'<text x="{width - 4}" y="14" text-anchor="end" fill="#ffc94d" '
        f'font-size="12">- - - fair die: {expected:.0f} each</text>'
    )
    for i, count in enumerate(counts):
        h = count * scale
        x = pad + i * slot + slot * 0.15
        parts.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{slot * 0.7:.1f}" height="{h:.1f}" '
            f'fill="#6cc4ff" data-face="{i + 1}" data-count="{count}"/>'
        )
        parts.append(
            f'<text x="{x + slot * 0.35:.1f}" y="{base + 20}" text-anchor="middle" '
            f'fill="#eef1f6" font-size="16">{i + 1}</text>'
        )
        inside = h >= 20  # a short bar takes its count just above it, below the line's label
        label_y = base - 6 if inside else base - h - 5
        parts.append(
            f'<text x="{x + slot * 0.35:.1f}" y="{label_y:.1f}" text-anchor="middle" '
            f'fill="{"#10131a" if inside else "#9aa4b8"}" font-size="12">{count}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def fairness() -> Fairness:
    """Face counts of every scored roll in this table's database."""
    counts, rolls = current_app.extensions["zilch_tower"].store.face_counts()
    return Fairness(tuple(counts), rolls)


def local_time(stamp: str | None) -> str:
    """A stored UTC time as the tower's local time people read: "Tue 1 Dec 15:42"."""
    if not stamp:
        return ""
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    local = when.astimezone()
    return f"{local:%a} {local.day} {local:%b %H:%M}"


def final_scores(summary: Mapping[str, Any] | None) -> str:
    """A finished game's scores, highest first: "Ben 10,350, Ann 9,800"."""
    players = list((summary or {}).get("players", []))
    players.sort(key=lambda p: -int(p.get("score", 0)))
    return ", ".join(f"{p.get('name', '?')} {int(p.get('score', 0)):,}" for p in players)


STATUS_WORDS = {"finished": "finished", "playing": "playing", "abandoned": "not finished"}


@bp.get("/history")
def history() -> str:
    """Past games, records per player and preset, and the dice-fairness test."""
    store = current_app.extensions["zilch_tower"].store
    fair = fairness()
    rows = store.games(100)
    corrections = store.corrections([g.id for g in rows])
    games = [
        {
            "id": g.id,
            "started": local_time(g.started_at),
            "preset": g.preset,
            "players": g.players,
            "status": STATUS_WORDS.get(g.status, g.status),
            "winners": g.winners,
            "scores": final_scores(g.summary),
            "corrections": corrections.get(g.id, 0),
        }
        for g in rows
    ]
    # a player with no finished game (a computer player of an abandoned game) has no best game
    records = [dict(r, played=r["wins"] + r["losses"] > 0) for r in store.records()]
    return render_template(
        "history.html",
        games=games,
        records=records,
        fair=fair,
        plot=bar_plot(fair.counts),
    )


@bp.get("/history/<int:game_id>")
def game_page(game_id: int) -> tuple[str, int] | str:
    """One game in words: players, result and every line of its log."""
    store = current_app.extensions["zilch_tower"].store
    game = store.game(game_id)
    if game is None:
        return render_template("history_game.html", game=None, game_id=game_id), 404
    return render_template(
        "history_game.html",
        game=game,
        game_id=game_id,
        started=local_time(game.started_at),
        finished=local_time(game.finished_at),
        scores=final_scores(game.summary),
        log=store.log(game_id, 100_000),
    )


@bp.get("/api/fairness")
def fairness_json() -> dict[str, object]:
    """The fairness test as JSON."""
    return fairness().to_json()
