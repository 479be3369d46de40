"""Strategy: exact odds, the computer players, the long-run optimal solver and the coach.

Pure like the rest of :mod:`zilch`: no I/O (the service caches solutions on
disk), no clock, randomness injected.
"""

from zilch.strategy.bots import BOTS, Bot, DicenowBot, OptimalBot, UnknownBot, make_bot
from zilch.strategy.coach import Choice, advice, coach, coach_line, coach_view
from zilch.strategy.preview import Preview, preview, preview_dice
from zilch.strategy.solution import Solution, SolutionDataError
from zilch.strategy.solver import SolverError, solve, solve_cached
from zilch.strategy.view import Decision, InvalidSituation, TurnView

__all__ = [
    "BOTS",
    "Bot",
    "Choice",
    "Decision",
    "DicenowBot",
    "InvalidSituation",
    "OptimalBot",
    "Preview",
    "Solution",
    "SolutionDataError",
    "SolverError",
    "TurnView",
    "UnknownBot",
    "advice",
    "coach",
    "coach_line",
    "coach_view",
    "make_bot",
    "preview",
    "preview_dice",
    "solve",
    "solve_cached",
]
