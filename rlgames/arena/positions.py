"""Positions written as lines of moves: opening files for the arena, position files for analysis.

A line is a sequence of moves from the start position in the game's notation:

* connect four uses Pons' notation, one digit 1-7 per move with no separator (``4453``), possibly
  followed by a score (Pons' benchmark format, ``4453 -2``), which is kept as a label;
* every other game takes moves separated by spaces or commas (tic-tac-toe: ``b2 a1``), with no label.

Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from rlgames.game import Game

PONS_NOTATION_GAMES = frozenset({"connect_four"})
"""Games whose position lines are Pons strings, optionally followed by a score."""

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
    """The actions of one line (see the module's docstring) and its score (None when there is none);
    raises `ValueError` naming the bad move."""
    fields = text.split()
    score = None
    if game.name in PONS_NOTATION_GAMES:
        if len(fields) not in (1, 2) or (len(fields) == 2 and not fields[1].lstrip("+-").isdigit()):
            raise ValueError(f"{game.name}: expected '<moves> [score]' in Pons' notation, got {text!r}")
        moves: Sequence[str] = list(fields[0])
        score = int(fields[1]) if len(fields) == 2 else None
    else:
        moves = text.replace(",", " ").split()
    state = game.new_initial_state()
    actions = []
    for move in moves:
        action = state.string_to_action(move)
        state = state.apply(action)
        actions.append(action)
    return tuple(actions), score


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
    return ("" if game.name in PONS_NOTATION_GAMES else " ").join(moves)
