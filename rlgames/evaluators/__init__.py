"""Evaluators: position estimates for search, all behind one protocol (see `rlgames.evaluators.base`).

Game-specific evaluators live in modules named after their game (``rlgames.games.tic_tac_toe.evaluator``)
and are imported from there, so that importing this package compiles nothing. `load_evaluator` makes
one by name:

* ``"heuristic"`` -- the game's hand-crafted `LinearEvaluator` (params: ``weights``, a list of
  weights or the path of a weights file);
* ``"learned"`` -- the same features with weights fitted from self-play, read from
  ``weights=FILE``, a JSON file written by ``python -m rlgames.train.linear`` (see `read_weights_file`);
* ``"zero"`` -- `ZeroEvaluator`;
* ``"rollout"`` -- `rlgames.evaluators.rollout.RolloutEvaluator` (params: ``rollouts``, ``seed``);
* ``"model"`` -- a trained network, ``path=CHECKPOINT`` (`rlgames.models.NetworkEvaluator`; needs torch);
* a game's own evaluators (`Game.evaluators`: backgammon's ``"pubeval"``);
* ``"policy_rollout"`` -- AlphaGo's leaf values: a network's value head mixed with rollouts sampled from
  its policy head or from a separate ``rollout_path=CHECKPOINT`` (`rlgames.models.rollout.PolicyRolloutEvaluator`;
  params ``mix``, ``temperature``, ``seed``).
"""

from __future__ import annotations

import importlib
import json
import os
import warnings
from typing import Any, Callable, cast

import numpy as np

from rlgames.evaluators.base import (
    Evaluator,
    LinearEvaluator,
    ZeroEvaluator,
    uniform_policy,
)
from rlgames.game import Game

__all__ = [
    "Evaluator",
    "LinearEvaluator",
    "ZeroEvaluator",
    "list_evaluators",
    "load_evaluator",
    "read_weights_file",
    "uniform_policy",
]


def _import(target: str) -> Any:
    module_name, attribute = target.split(":")
    return getattr(importlib.import_module(module_name), attribute)


WEIGHTS_FORMAT = "rlgames.linear_weights/1"
"""The ``format`` tag of a weights file (written by ``python -m rlgames.train.linear``)."""


def _hand_crafted(game: Game, **params: Any) -> Evaluator:
    """The game's hand-crafted evaluator, named by its `Game.heuristic`. A class whose evaluation
    depends on game parameters that the compact state lacks (nim's misere flag) defines a classmethod
    ``for_game(game, **params)``; the others are built as ``Class(**params)``."""
    if game.heuristic is None:
        raise ValueError(f"{game.name} has no heuristic evaluator")
    cls = game.locate(game.heuristic)
    for_game = getattr(cls, "for_game", None)
    return for_game(game, **params) if for_game is not None else cls(**params)


def read_weights_file(path: str | os.PathLike, game: Game, evaluator: LinearEvaluator) -> np.ndarray:
    """The weights stored in the JSON file ``path`` for ``evaluator``, the hand-crafted evaluator of
    ``game``, rescaled to its ``scale`` (the file's value ``tanh(w . f / file_scale)`` is kept).

    Raises `ValueError` when the file cannot be read, or was fitted for another game, another
    evaluator (nim's misere rule) or other features; warns when only the game's parameters differ."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        names, weights = data["feature_names"], np.asarray(data["weights"], dtype=np.float64)
        scale = float(data.get("scale", evaluator.scale))
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ValueError(f"cannot read evaluator weights from {os.fspath(path)!r}: {error!r}") from None
    where = f"weights file {os.fspath(path)!r}"
    if data.get("format", WEIGHTS_FORMAT) != WEIGHTS_FORMAT:
        raise ValueError(f"{where}: unknown format {data.get('format')!r} (expected {WEIGHTS_FORMAT!r})")
    if data.get("game") != game.name:
        raise ValueError(f"{where} was fitted for game {data.get('game')!r}, not {game.name!r}")
    expected = type(evaluator).__name__
    if data.get("evaluator", expected) != expected:
        raise ValueError(f"{where} was fitted for evaluator {data['evaluator']!r}, but {game!r} uses {expected!r}")
    if list(names) != list(evaluator.feature_names):
        raise ValueError(
            f"{where} has features {list(names)}, but {expected} of {game.name} has features "
            f"{list(evaluator.feature_names)}"
        )
    if weights.shape != (len(names),):
        raise ValueError(f"{where} has {weights.size} weights for its {len(names)} features")
    if not np.all(np.isfinite(weights)) or not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"{where}: weights and scale must be finite (and the scale positive)")
    if "game_params" in data and data["game_params"] != json.loads(json.dumps(game.params)):
        warnings.warn(
            f"{where} was fitted for {game.name} with parameters {data['game_params']}, used here with {game.params}",
            stacklevel=3,
        )
    return weights * (evaluator.scale / scale)


def _heuristic(game: Game, **params: Any) -> Evaluator:
    weights = params.pop("weights", None)
    if isinstance(weights, (str, os.PathLike)):
        # a weights file holds a linear heuristic's weights (another heuristic fails on reading it)
        weights = read_weights_file(weights, game, cast(LinearEvaluator, _hand_crafted(game, **params)))
    if weights is not None:
        params["weights"] = weights
    return _hand_crafted(game, **params)


def _learned(game: Game, **params: Any) -> Evaluator:
    if not isinstance(params.get("weights"), (str, os.PathLike)):
        raise ValueError(
            "the 'learned' evaluator needs weights=FILE, a JSON file written by "
            "`python -m rlgames.train.linear GAME --games N --out FILE`"
        )
    return _heuristic(game, **params)


def _zero(game: Game, **params: Any) -> Evaluator:
    return ZeroEvaluator(**params)


def _rollout(game: Game, **params: Any) -> Evaluator:
    return _import("rlgames.evaluators.rollout:RolloutEvaluator")(game, **params)


def _model(game: Game, *, path: str | os.PathLike, **params: Any) -> Evaluator:
    """A network checkpoint as an evaluator. The `models` package (torch) is a plugin of the core: it is
    imported here, by name, only when a model is asked for. The network is the one of `Game.network_game`
    (backgammon with the cube: backgammon without it)."""
    return _import("rlgames.models.evaluator:NetworkEvaluator").from_checkpoint(path, game.network_game(), **params)


def _policy_rollout(
    game: Game, *, path: str | os.PathLike, rollout_path: str | os.PathLike | None = None, **params: Any
) -> Evaluator:
    """AlphaGo's leaf evaluation: the network at ``path`` gives priors and values, mixed with rollouts
    sampled from its policy head or from the network at ``rollout_path`` (`rlgames.models.rollout`)."""
    network = _model(game, path=path)
    rollout = None if rollout_path is None else _model(game, path=rollout_path)
    return _import("rlgames.models.rollout:PolicyRolloutEvaluator")(network, rollout=rollout, **params)


_EVALUATORS: dict[str, Callable[..., Evaluator]] = {
    "heuristic": _heuristic,
    "learned": _learned,
    "zero": _zero,
    "rollout": _rollout,
    "model": _model,
    "policy_rollout": _policy_rollout,
}
"""Evaluator name -> ``factory(game, **params)``; network evaluators register here too."""


def list_evaluators() -> list[str]:
    """The names `load_evaluator` accepts, sorted."""
    return sorted(_EVALUATORS)


def load_evaluator(name: str, game: Game, **params: Any) -> Evaluator:
    """The evaluator ``name`` for ``game``, e.g. ``load_evaluator("rollout", game, rollouts=8, seed=0)``.

    Raises `ValueError` for an unknown name (listing the known ones, the game's own included) or a game
    without a heuristic.
    """
    if name in game.evaluators:
        return game.locate(game.evaluators[name])(**params)
    try:
        factory = _EVALUATORS[name]
    except KeyError:
        known = ", ".join(sorted([*_EVALUATORS, *game.evaluators]))
        raise ValueError(f"unknown evaluator {name!r}; known evaluators for {game.name}: {known}") from None
    return factory(game, **params)
