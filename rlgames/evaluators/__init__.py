"""Evaluators: position estimates for search, all behind one protocol (see `rlgames.evaluators.base`).

Game-specific evaluators live in modules named after their game (``rlgames.evaluators.tic_tac_toe``)
and are imported from there, so that importing this package compiles nothing. `load_evaluator` makes
one by name:

* ``"heuristic"`` -- the game's hand-crafted `LinearEvaluator` (params: ``weights``);
* ``"zero"`` -- `ZeroEvaluator`;
* ``"rollout"`` -- `rlgames.evaluators.rollout.RolloutEvaluator` (params: ``rollouts``, ``seed``).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from rlgames.evaluators.base import (
    Evaluator,
    LinearEvaluator,
    ZeroEvaluator,
    uniform_policy,
)
from rlgames.game import Game

__all__ = ["Evaluator", "LinearEvaluator", "ZeroEvaluator", "list_evaluators", "load_evaluator", "uniform_policy"]

_HEURISTICS: dict[str, str] = {
    "tic_tac_toe": "rlgames.evaluators.tic_tac_toe:OpenLinesEvaluator",
    "connect_four": "rlgames.evaluators.connect_four:ConnectFourEvaluator",
    "othello": "rlgames.evaluators.othello:OthelloEvaluator",
    "nim": "rlgames.evaluators.nim:NimEvaluator",
    "halving": "rlgames.evaluators.halving:HalvingEvaluator",
    "pig": "rlgames.evaluators.pig:PigEvaluator",
}
"""Game name -> ``module:Class`` of its hand-crafted evaluator, imported on demand. A class whose
evaluation depends on game parameters that the compact state lacks (nim's misere flag) defines a
classmethod ``for_game(game, **params)``; the others are built as ``Class(**params)``."""


def _import(target: str) -> Any:
    module_name, attribute = target.split(":")
    return getattr(importlib.import_module(module_name), attribute)


def _heuristic(game: Game, **params: Any) -> Evaluator:
    try:
        target = _HEURISTICS[game.name]
    except KeyError:
        known = ", ".join(sorted(_HEURISTICS))
        raise ValueError(f"no heuristic evaluator for {game.name!r}; games with one: {known}") from None
    cls = _import(target)
    for_game = getattr(cls, "for_game", None)
    return for_game(game, **params) if for_game is not None else cls(**params)


def _zero(game: Game, **params: Any) -> Evaluator:
    return ZeroEvaluator(**params)


def _rollout(game: Game, **params: Any) -> Evaluator:
    return _import("rlgames.evaluators.rollout:RolloutEvaluator")(game, **params)


_EVALUATORS: dict[str, Callable[..., Evaluator]] = {
    "heuristic": _heuristic,
    "zero": _zero,
    "rollout": _rollout,
}
"""Evaluator name -> ``factory(game, **params)``; network evaluators register here too."""


def list_evaluators() -> list[str]:
    """The names `load_evaluator` accepts, sorted."""
    return sorted(_EVALUATORS)


def load_evaluator(name: str, game: Game, **params: Any) -> Evaluator:
    """The evaluator ``name`` for ``game``, e.g. ``load_evaluator("rollout", game, rollouts=8, seed=0)``.

    Raises `ValueError` for an unknown name (listing the known ones) or a game without a heuristic.
    """
    try:
        factory = _EVALUATORS[name]
    except KeyError:
        raise ValueError(f"unknown evaluator {name!r}; known evaluators: {', '.join(list_evaluators())}") from None
    return factory(game, **params)
