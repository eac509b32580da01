"""The registry of games: `load_game`, `describe_game` and `list_games`.

Games are imported lazily, by module path, so that importing rlgames compiles nothing.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from rlgames.game import Game, GameInfo

_GAMES: dict[str, str] = {
    "tic_tac_toe": "rlgames.games.tic_tac_toe:TicTacToe",
    "connect_four": "rlgames.games.connect_four:ConnectFour",
    "othello": "rlgames.games.othello:Othello",
    "nim": "rlgames.games.nim:Nim",
    "halving": "rlgames.games.halving:Halving",
    "pig": "rlgames.games.pig:Pig",
    "chess": "rlgames.games.chess:Chess",
    "backgammon": "rlgames.games.backgammon:Backgammon",
    "go": "rlgames.games.go:Go",
    "checkers": "rlgames.games.checkers:Checkers",
}

_VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "go": {"Go9x9": {"board_size": 9}, "Go13x13": {"board_size": 13}, "Go19x19": {"board_size": 19}},
}


def list_games() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_GAMES)


def game_class(name: str) -> type[Game]:
    """The `Game` subclass registered under ``name``."""
    try:
        module_name, class_name = _GAMES[name].split(":")
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}") from None
    return getattr(importlib.import_module(module_name), class_name)


def game_variants(name: str) -> dict[str, dict[str, Any]]:
    """The parameter sets game ``name`` is usually played with, by a CamelCase name (go's ``Go9x9``:
    ``{"board_size": 9}``); the envs register each as ``rlgames/<name>-v0``. Imports nothing."""
    if name not in _GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(list_games())}")
    return dict(_VARIANTS.get(name, {}))


def describe_game(name: str, **params: Any) -> GameInfo:
    """The `GameInfo` of game ``name`` with ``params``, without compiling anything."""
    cls = game_class(name)
    _check_params(cls, name, params)
    return cls.describe(**params)


def game_parameters(name: str) -> dict[str, Any]:
    """The parameters of game ``name`` and their defaults (from its `Game.describe`)."""
    return {p.name: p.default for p in inspect.signature(game_class(name).describe).parameters.values()}


def _check_params(cls: type[Game], name: str, params: dict[str, Any]) -> None:
    accepted = list(game_parameters(name))
    unknown = [key for key in params if key not in accepted]
    if unknown:
        takes = f"its parameters: {', '.join(accepted)}" if accepted else "it takes none"
        raise ValueError(f"{name} has no parameter {', '.join(map(repr, unknown))}; {takes}")


def load_game(name: str, **params: Any) -> Game:
    """Creates the game ``name`` with its parameters, e.g. ``load_game("nim", heaps=(1, 3, 5, 7))``.

    Raises `ValueError` naming the problem for an unknown game, an unknown parameter, or a value the
    game refuses."""
    cls = game_class(name)
    _check_params(cls, name, params)
    try:
        return cls(**params)
    except TypeError as error:  # a value of the wrong type met inside the constructor
        raise ValueError(f"{name}: bad parameters {params}: {error}") from None
