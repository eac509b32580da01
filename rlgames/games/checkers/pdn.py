"""Checkers games as PDN (Portable Draughts Notation), the format checkers programs (CheckerBoard, the game
archives) read: `to_pdn` writes one.

English draughts is PDN's ``GameType "21"``: Black moves first from squares 1-12, the numbering of
`rlgames.games.checkers.rules`, so player 0 is written as Black and player 1 as White. Moves come in
numbered pairs, Black's then White's (``1. 11-15 23-19``), a multi-jump as one move (``22x15x8``)
though it is several actions. The result is PGN's, White's score first: ``1-0`` a win of White (player
1), ``0-1`` a win of Black (player 0), ``1/2-1/2`` a draw.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import cast

from rlgames.game import Outcome
from rlgames.games.checkers.game import Checkers, CheckersState

RESULTS = {0: "0-1", 1: "1-0", None: "1/2-1/2"}
"""PDN's result by winner: player 0 is Black, player 1 White."""


def _quote(value: str) -> str:
    """A tag's value between double quotes, its backslashes and quotes escaped (PGN's rule)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pdn_moves(game: Checkers, actions: Sequence[int]) -> list[str]:
    """The moves of a game from the start, in order, each jump that continues a multi-jump joined to
    the move it continues (``22x15`` then ``15x8`` make ``22x15x8``)."""
    state = cast(CheckersState, game.new_initial_state())
    moves: list[str] = []
    for action in actions:
        text = state.action_to_string(action)
        if state.jumper() is None:
            moves.append(text)
        else:
            moves[-1] += text[text.index("x") :]
        state = state.apply(action)
    return moves


def to_pdn(
    game: Checkers,
    actions: Sequence[int],
    *,
    players: tuple[str, str],
    outcome: Outcome,
    event: str = "rlgames",
    round: int | None = None,
) -> str:
    """The game of ``actions`` from the start as PDN, ``players`` as player 0 (Black) and player 1 (White)."""
    tags = {
        "Event": event,
        "Round": "?" if round is None else str(round),
        "White": players[1],
        "Black": players[0],
        "Result": RESULTS[outcome.winner],
        "GameType": "21",
    }
    header = "".join(f"[{key} {_quote(value)}]\n" for key, value in tags.items())
    moves = pdn_moves(game, actions)
    numbered = [f"{i // 2 + 1}. {move}" if i % 2 == 0 else move for i, move in enumerate(moves)]
    movetext = textwrap.fill(" ".join([*numbered, tags["Result"]]), width=79, break_on_hyphens=False)
    return f"{header}\n{movetext}\n"
