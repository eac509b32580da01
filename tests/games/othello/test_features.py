"""Othello's NNUE inputs: the patterns of lines and corners, held to their definition square by square."""

from __future__ import annotations

from collections import Counter

import numpy as np

import rlgames
from rlgames.games.othello import features as op
from rlgames.games.othello.features import features

GAME = rlgames.load_game("othello")


def random_states(count: int, seed: int) -> list[rlgames.State]:
    """Positions of random games, from the start to the end of a game (the last one terminal)."""
    rng, states = np.random.default_rng(seed), []
    while len(states) < count:
        state = GAME.new_initial_state()
        while not state.is_terminal():
            states.append(state)
            state = state.apply(int(rng.choice(state.legal_actions())))
        states.append(state)
    return states[:count]


def read_patterns(state: rlgames.State, player: int) -> list[int]:
    """Each pattern's row read from the printed board, square by square: the class's first row plus
    the base-3 number of its squares (0 empty, 1 ``player``'s, 2 the opponent's); then the stage."""
    grid = state.board_grid()  # 1 black (player 0), 2 white
    rows = []
    for k, squares in op.PATTERNS:
        digits = [0 if grid[r, c] == 0 else 1 if grid[r, c] == player + 1 else 2 for r, c in squares]
        rows.append(int(op.OFFSETS[k]) + sum(d * 3**i for i, d in enumerate(digits)))
    empties = int((grid == 0).sum())
    return [*rows, int(op.OFFSETS[-1]) + min(op.STAGES - 1, empties // 4)]


def turned_patterns(state: rlgames.State, player: int, out: np.ndarray) -> list[int]:
    """The inputs `op.patterns` finds on the board turned a quarter (square (row, col) to (col, 7 - row))."""
    grid = state.board_grid()  # 1 black (player 0), 2 white
    mine, theirs = (
        np.uint64(sum(1 << 8 * c + 7 - r for r in range(8) for c in range(8) if grid[r, c] == v))
        for v in (player + 1, 2 - player)
    )
    return out[: op.patterns(mine, theirs, int((grid == 0).sum()), out)].tolist()


def test_the_patterns_are_the_symmetric_images_of_each_class() -> None:
    """4 edges, 4 of each row in from them, 2 long diagonals, 4 of each shorter one down to 4
    squares, 4 corners: 38 patterns over distinct squares, 55,728 shared rows and 16 stages."""
    sizes = Counter(k for k, _ in op.PATTERNS)
    assert [sizes[k] for k in range(len(op.CLASSES))] == [4, 4, 4, 4, 2, 4, 4, 4, 4, 4]
    assert len({frozenset(squares) for _, squares in op.PATTERNS}) == op.NUM_PATTERNS == 38
    assert GAME.feature_sets["patterns"].inputs == op.NUM_FEATURES == 55_728 + 16
    assert GAME.feature_sets["patterns"].most == op.NUM_ACTIVE == 39


def test_the_patterns_gathered_by_multiplication_equal_the_board_read_square_by_square() -> None:
    """Every pattern of positions from the start to the end of random games, seen by either player."""
    out = np.zeros(op.NUM_ACTIVE, dtype=np.int64)
    for state in random_states(400, seed=0):
        for player in (0, 1):
            n = features(state.compact, player, out)
            assert out[:n].tolist() == read_patterns(state, player)


def test_a_quarter_turn_of_the_board_permutes_the_patterns_within_their_classes() -> None:
    """Rows shared by symmetry: the board turned a quarter activates the same rows, by other patterns
    of the same classes (read in corresponding orders); but for the long diagonals, each of which a
    half turn maps onto itself read backwards."""
    out = np.zeros(op.NUM_ACTIVE, dtype=np.int64)
    diagonals = range(op.OFFSETS[4], op.OFFSETS[5])
    assert op.CLASSES[4][0] == "diagonal 8"

    def rows(inputs: list[int]) -> Counter:
        return Counter(int(r) for r in inputs if r not in diagonals)

    for state in random_states(100, seed=1):
        for player in (0, 1):
            before = rows(out[: features(state.compact, player, out)].tolist())
            assert rows(turned_patterns(state, player, out)) == before
