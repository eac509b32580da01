"""Positions written as lines of moves: opening files for the arena, position files for analysis.

A line is a sequence of moves from the start position in the game's notation, read by the game
(`Game.parse_position_line`): moves separated by spaces or commas (tic-tac-toe: ``b2 a1``), or the
game's own format (connect four: Pons' notation, ``4453``, possibly followed by a score, ``4453 -2``,
kept as a label).

Blank lines and lines starting with ``#`` are skipped.

A *labelled* file (``.jsonl``, written by `rlgames.arena.sampling`) holds one JSON object per line:
the position as above, its game-theoretic result for the side to move, and every move that keeps it,
e.g. ``{"position": "4453", "value": 1, "keeps": ["4"], "score": 16}``. With it, accuracy needs no
solver at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlgames.game import Game

Line = tuple[int, ...]
"""A sequence of actions from the start position."""


@dataclass(frozen=True)
class PositionLine:
    """One position read from a file: where it was, its text, its actions, and its score if given."""

    number: int
    text: str
    actions: Line
    score: int | None = None
    value: int | None = None
    """The game-theoretic result for the side to move (-1, 0 or 1), where a labelled file gives it."""
    keeps: tuple[int, ...] | None = None
    """Every action that keeps ``value``, where a labelled file gives them."""

    @property
    def result(self) -> int | None:
        """The game-theoretic result for the side to move where the file gives it: a labelled file's
        value, or the sign of Pons' score; None otherwise."""
        if self.value is not None:
            return self.value
        return None if self.score is None else (self.score > 0) - (self.score < 0)


def parse_position_line(game: Game, text: str) -> tuple[Line, int | None]:
    """The actions of one line and its score (None when there is none), as the game reads them;
    raises `ValueError` naming the bad move."""
    return game.parse_position_line(text)


def read_position_file(path: str | Path, game: Game) -> list[PositionLine]:
    """Every position of a file, a labelled one when its name ends in ``.jsonl``; raises `ValueError`
    naming the file and line of the first bad one."""
    read = _labelled_line if str(path).endswith(".jsonl") else _plain_line
    positions = []
    for number, raw in enumerate(Path(path).read_text().splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            positions.append(read(game, number, text))
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
    if not positions:
        raise ValueError(f"{path}: no positions in the file")
    return positions


def _plain_line(game: Game, number: int, text: str) -> PositionLine:
    actions, score = parse_position_line(game, text)
    return PositionLine(number, text, actions, score)


def _labelled_line(game: Game, number: int, text: str) -> PositionLine:
    try:
        record = json.loads(text)
        position, value, keeps = record["position"], record["value"], record["keeps"]
    except (json.JSONDecodeError, TypeError, KeyError) as error:
        raise ValueError(f"expected a JSON object with position, value and keeps ({error})") from None
    if value not in (-1, 0, 1) or not isinstance(keeps, list):
        raise ValueError(f"value must be -1, 0 or 1 and keeps a list of moves, got {value!r} and {keeps!r}")
    actions, score = parse_position_line(game, position)
    state = game.state_from_actions(actions)
    kept = tuple(sorted(state.string_to_action(str(move)) for move in keeps))
    return PositionLine(number, position, actions, record.get("score", score), value, kept)


def labelled_record(game: Game, actions: Line, value: int, keeps: Line, score: int | None) -> dict[str, Any]:
    """One line of a labelled file (the inverse of reading one): moves in the game's notation."""
    state = game.state_from_actions(actions)
    record: dict[str, Any] = {
        "position": moves_to_text(game, actions),
        "plies": len(actions),
        "value": value,
        "keeps": [state.action_to_string(action) for action in keeps],
    }
    if score is not None:
        record["score"] = score
    return record


def moves_to_text(game: Game, actions: Line) -> str:
    """The actions as a line of the game's notation (the inverse of `parse_position_line`)."""
    state = game.new_initial_state()
    moves = []
    for action in actions:
        moves.append(state.action_to_string(action))
        state = state.apply(action)
    return game.move_separator.join(moves)
