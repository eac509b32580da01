"""What the journal's tests share: a journal left as a stopped match leaves it, and a count of the games
really played."""

from __future__ import annotations

import json

import numpy as np

from rlgames.arena import tournament
from rlgames.arena.journal import KIND


def stopped_after(journal, games: int, *, cut: bool = False) -> None:
    """Leaves the journal as a match stopped after ``games`` games would: the header and their lines, and
    with ``cut`` the next line half written."""
    lines = journal.read_text().splitlines(keepends=True)
    tail = lines[games + 1][: len(lines[games + 1]) // 2] if cut else ""
    journal.write_text("".join(lines[: games + 1]) + tail)


def count_played(monkeypatch) -> list[int]:
    """The indices of the games really played from now on (the local, one-worker path)."""
    played: list[int] = []
    real = tournament.play_game

    def spy(game, agents, scheduled):
        played.append(scheduled.index)
        return real(game, agents, scheduled)

    monkeypatch.setattr(tournament, "play_game", spy)
    return played


def write_journal(path, game: str, params: dict, games: list[tuple[list[int], float]]) -> str:
    """A match journal (`rlgames.arena.journal`) of ``games`` (actions, black's result), each opening with its
    first 2 actions; returns its path."""
    header = {"journal": KIND, "game": game, "params": params, "specs": ["a", "b"], "seed": 0}
    lines = [json.dumps(header)]
    for index, (actions, black) in enumerate(games):
        record = {"index": index, "opening": actions[:2], "actions": actions, "returns": [black, -black]}
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def random_game(game, seed: int) -> tuple[list[int], float]:
    """A game of uniformly random legal actions: its actions and player 0's return."""
    rng, state, actions = np.random.default_rng(seed), game.new_initial_state(), []
    while not state.is_terminal():
        legal = state.legal_actions()
        actions.append(int(legal[rng.integers(len(legal))]))
        state = state.apply(actions[-1])
    return actions, float(state.returns()[0])
