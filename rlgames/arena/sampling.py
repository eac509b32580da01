"""Positions sampled from varied games and labelled by the exact solver: test sets for `rlgames accuracy`.

A benchmark set drawn from one engine's games says how an agent does on that engine's positions. The
games here vary: a seeded agent plays them, each of its moves replaced with probability
``random_fraction`` by a uniformly random legal move, and each game stops at a ply drawn uniformly from
``plies``, so that every stage is sampled. A position is kept once (by `State.hash_key`), and labelled
by `rlgames.solvers.solve` with its result for the side to move and every move that keeps it
(`rlgames.arena.positions.labelled_record`), so that measuring an agent on the file solves nothing.

Labelling is the slow part (an early connect-four position takes the solver minutes), so a file is
written a position at a time, the games' positions taken in batches of as many as the file still needs,
each batch from its latest ply to its earliest (a run that stops early holds the cheap positions), and
every batch labelled whole (the kept positions stay spread over the stages). An interrupted run is
continued by the same settings: the same seed replays the same games and batches, and the positions
already in the file are skipped.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from tqdm import tqdm

from rlgames.analysis import value_sign
from rlgames.arena.positions import Line, labelled_record, moves_to_text, read_position_file
from rlgames.game import Game
from rlgames.solvers import solve

GIVE_UP_AFTER = 10_000
"""Consecutive games without a new position after which sampling stops: the stages hold no more."""


@dataclass(frozen=True)
class SamplingConfig:
    """How the games that positions are sampled from are played, and which positions are kept."""

    plies: tuple[int, int] = (0, 36)
    """A game stops at a ply drawn uniformly from this range, both ends included."""
    random_fraction: float = 0.25
    """The chance that a move of the games is uniformly random rather than the agent's."""
    results: tuple[int, ...] = (-1, 0, 1)
    """Keep the positions whose result for the side to move is one of these (lost, drawn, won)."""
    seed: int = 0
    """Seeds the random moves and the stopping plies (the agent has its own seed)."""

    def __post_init__(self) -> None:
        lo, hi = self.plies
        if not 0 <= lo <= hi:
            raise ValueError(f"plies must be a range LO-HI with 0 <= LO <= HI, got {lo}-{hi}")
        if not 0.0 <= self.random_fraction <= 1.0:
            raise ValueError(f"random_fraction must be in [0, 1], got {self.random_fraction}")
        if not self.results or not set(self.results) <= {-1, 0, 1}:
            raise ValueError(f"results must be some of -1, 0, 1, got {self.results}")


def sample_lines(game: Game, agent: Any, config: SamplingConfig) -> Iterator[Line]:
    """Distinct positions, as lines of actions, from games played as ``config`` says; stops when
    `GIVE_UP_AFTER` games in a row find no new one."""
    rng = np.random.default_rng(config.seed)
    seen: set[int] = set()
    lo, hi = config.plies
    misses = 0
    while misses < GIVE_UP_AFTER:
        stop = int(rng.integers(lo, hi + 1))
        state, actions = game.new_initial_state(), list[int]()
        while len(actions) < stop and not state.is_terminal():
            if rng.random() < config.random_fraction:
                action = int(rng.choice(state.legal_actions()))
            else:
                action = int(agent.act(state))
            state = state.apply(action)
            actions.append(action)
        if state.is_terminal() or state.hash_key() in seen:
            misses += 1
            continue
        misses = 0
        seen.add(state.hash_key())
        yield tuple(actions)


def label(game: Game, actions: Line) -> dict[str, Any]:
    """The labelled record of the position after ``actions``: its result and the moves that keep it."""
    solution = solve(game.state_from_actions(actions))
    value = value_sign(solution.value)  # a return, which may be worth 2 points: its sign is the result
    return labelled_record(game, actions, value, solution.value_preserving_actions, solution.score)


def write_labelled_positions(
    path: str | Path, game: Game, agent: Any, config: SamplingConfig, *, count: int, progress: bool = False
) -> int:
    """Adds labelled positions to the ``.jsonl`` file at ``path`` until it holds ``count``, continuing a
    file that the same settings began; returns how many it holds (fewer when the stages run out)."""
    if game.has_chance:
        raise ValueError(f"{game.name} has chance nodes: the exact solver, so the labels, need a deterministic game")
    path = Path(path)
    done = {position.text for position in read_position_file(path, game)} if _has_positions(path) else set()
    lines, held = sample_lines(game, agent, config), 0
    with path.open("a") as out, tqdm(total=count, initial=len(done), unit="position", disable=not progress) as bar:
        while held < count and (batch := list(itertools.islice(lines, count - held))):
            for actions in sorted(batch, key=len, reverse=True):  # the cheap late positions first
                text = moves_to_text(game, actions)
                if text in done:
                    held += 1
                    continue
                record = label(game, actions)
                if record["value"] in config.results:
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                    done.add(text)
                    held += 1
                    bar.update()
    return len(done)


def _has_positions(path: Path) -> bool:
    return path.is_file() and any(line.strip() and not line.startswith("#") for line in path.open())
