"""Openings for arena games: random lines of a few plies drawn without repeats, or lines from a file.

Random openings are drawn uniformly among the distinct lines of ``plies`` actions from the start that
leave the game unfinished (a chance outcome counts as one action, and every outcome as one branch).
While that tree has at most `ENUMERATION_LIMIT` lines they are listed and dealt out in shuffled
passes, so no line repeats until all have been used; beyond it, lines are sampled by random playouts
(chance outcomes by their probabilities) and duplicates rejected.
"""

from __future__ import annotations

import numpy as np

from rlgames.arena.positions import Line, read_position_file
from rlgames.game import Game, State

ENUMERATION_LIMIT = 50_000
"""The most lines listed exhaustively; bigger trees are sampled."""
SAMPLING_ATTEMPTS = 100
"""Random playouts tried per opening wanted before sampling gives up on finding a new line."""


def random_openings(game: Game, count: int, plies: int, rng: np.random.Generator) -> list[Line]:
    """``count`` openings of ``plies`` actions, without repeats as far as the game allows."""
    if plies < 0:
        raise ValueError(f"opening plies must be >= 0, got {plies}")
    lines = _list_lines(game.new_initial_state(), plies, ENUMERATION_LIMIT)
    if lines is None:
        return _sample_lines(game, count, plies, rng)
    if not lines:
        raise ValueError(f"{game.name}: every line of {plies} plies ends the game; use fewer opening plies")
    passes = -(-count // len(lines))
    order = np.concatenate([rng.permutation(len(lines)) for _ in range(passes)])[:count]
    return [lines[i] for i in order]


def plies_for(game: Game, count: int) -> int:
    """The fewest opening plies (at least 1) giving ``count`` distinct unfinished lines; in a game too
    small for that, the plies giving the most."""
    best, most = 1, 0
    for plies in range(1, game.info.max_game_length + 1):
        lines = _list_lines(game.new_initial_state(), plies, count)
        if lines is None or len(lines) >= count:
            return plies
        if len(lines) > most:
            best, most = plies, len(lines)
        if not lines:
            break
    return best


def file_openings(game: Game, path: str, count: int) -> list[Line]:
    """The first ``count`` openings of a file (see `rlgames.arena.positions`), taken in order and
    cycled when the file has fewer."""
    lines = [position.actions for position in read_position_file(path, game)]
    for actions in lines:
        if game.state_from_actions(actions).is_terminal():
            raise ValueError(f"{path}: opening {actions} ends the game")
    return [lines[i % len(lines)] for i in range(count)]


def _list_lines(state: State, plies: int, limit: int) -> list[Line] | None:
    """Every unfinished line of ``plies`` actions from ``state``; None when there are over ``limit``."""
    lines: list[Line] = []
    stack: list[tuple[State, Line]] = [(state, ())]
    while stack:
        node, line = stack.pop()
        if node.is_terminal():
            continue
        if len(line) == plies:
            lines.append(line)
            if len(lines) > limit:
                return None
            continue
        stack.extend((node.apply(a), (*line, a)) for a in reversed(node.legal_actions()))
    return lines


def _sample_lines(game: Game, count: int, plies: int, rng: np.random.Generator) -> list[Line]:
    seen: set[Line] = set()
    lines: list[Line] = []
    for _ in range(SAMPLING_ATTEMPTS * count):
        line = _random_line(game.new_initial_state(), plies, rng)
        if line is not None and line not in seen:
            seen.add(line)
            lines.append(line)
            if len(lines) == count:
                return lines
    raise ValueError(
        f"{game.name}: found only {len(lines)} distinct openings of {plies} plies in {SAMPLING_ATTEMPTS * count} tries"
    )


def _random_line(state: State, plies: int, rng: np.random.Generator) -> Line | None:
    line = []
    for _ in range(plies):
        if state.is_chance_node():
            action = state.sample_chance_outcome(rng)
        else:
            actions = state.legal_actions()
            action = int(actions[rng.integers(len(actions))])
        state = state.apply(action)
        line.append(action)
        if state.is_terminal():
            return None
    return tuple(line)
