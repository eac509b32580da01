"""Positions written as lines of moves: opening files for the arena, position files for analysis.

A line is a sequence of moves from the start position in the game's notation, read by the game
(`Game.parse_position_line`): moves separated by spaces or commas (tic-tac-toe: ``b2 a1``), or the
game's own format (connect four: Pons' notation, ``4453``, possibly followed by a score, ``4453 -2``,
kept as a label).

Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def parse_position_line(game: Game, text: str) -> tuple[Line, int | None]:
    """The actions of one line and its score (None when there is none), as the game reads them;
    raises `ValueError` naming the bad move."""
    return game.parse_position_line(text)


def read_position_file(path: str | Path, game: Game) -> list[PositionLine]:
    """Every position of a file; raises `ValueError` naming the file and line of the first bad one."""
    positions = []
    for number, raw in enumerate(Path(path).read_text().splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            actions, score = parse_position_line(game, text)
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
        positions.append(PositionLine(number, text, actions, score))
    if not positions:
        raise ValueError(f"{path}: no positions in the file")
    return positions


def moves_to_text(game: Game, actions: Line) -> str:
    """The actions as a line of the game's notation (the inverse of `parse_position_line`)."""
    state = game.new_initial_state()
    moves = []
    for action in actions:
        moves.append(state.action_to_string(action))
        state = state.apply(action)
    return game.move_separator.join(moves)
