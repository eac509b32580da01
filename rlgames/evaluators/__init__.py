"""Evaluators: position estimates for search, all behind one protocol (see `rlgames.evaluators.base`).

Game-specific evaluators live in modules named after their game (``rlgames.evaluators.tic_tac_toe``)
and are imported from there, so that importing this package compiles nothing.
"""

from rlgames.evaluators.base import (
    Evaluator,
    LinearEvaluator,
    ZeroEvaluator,
    uniform_policy,
)

__all__ = ["Evaluator", "LinearEvaluator", "ZeroEvaluator", "uniform_policy"]
