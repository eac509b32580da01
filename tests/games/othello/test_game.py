"""Othello: flips, passes, the end of the game, notation, symmetries, and a cross-check against OpenSpiel."""

from __future__ import annotations

import random
import time
from typing import Callable

import numpy as np
import pytest

import rlgames
from rlgames import TERMINAL, IllegalActionError
from rlgames.games.othello.game import Othello, OthelloState
from rlgames.games.othello.rules import PASS, flips, moves_bitboard

pyspiel = pytest.importorskip("pyspiel")

GAME = rlgames.load_game("othello")
assert isinstance(GAME, Othello)

# Move lists found by searching random OpenSpiel games.
FORCED_PASS = "f5 f6 c4 g5 h5 h4 f7 h6"  # black, to move, has no move
WIPEOUT = "e6 d6 c6 f6 g6 c5 c4 e7 e8"  # white loses its last disc: black wins with 51 empty squares
STUCK = "e6 f4 g3 g4 g5 e7 c4 h2 e8 g6 h4 e3 g7 b4 a4 d6 f2 c5 c6 b5 a6 c7 b8 c3 c2 f5 f6 f7 g8"  # white keeps h2 only
FULL_BOARD = {  # returns -> a game that fills the board
    (-1.0, 1.0): "f5 f6 e6 f4 g6 d7 c3 c5 d3 g4 c6 c4 e8 g7 f3 c7 h4 b2 g5 h3 b4 f2 e7 e3 g8 a4 c2 c8 b5 d6 "
    "a2 c1 b1 h8 d1 a5 h2 e2 b7 a6 g3 f7 g2 h5 d2 b6 h7 g1 h6 a1 a7 d8 f1 h1 b3 e1 b8 a8 a3 f8",
    (1.0, -1.0): "f5 f4 c3 e6 g4 c4 e7 g5 f6 d3 c5 d8 e8 g6 d2 f8 h6 b5 c6 b4 d6 h3 g3 h5 e3 f7 a3 f3 h7 h8 "
    "h4 a4 a5 b7 b6 g7 b8 b3 e2 a6 h2 c8 c7 a2 f2 d7 a8 c2 g8 d1 b2 c1 b1 a7 e1 h1 g2 g1 a1 f1",
    (0.0, 0.0): "d3 c3 b3 d6 f6 f4 g4 g7 c7 b2 e6 b4 c4 c6 a4 a5 a1 g3 a6 b8 d7 g5 h2 e3 f2 b5 h4 e7 d2 d1 "
    "c5 c2 d8 f5 b7 a8 e2 g1 g2 b6 f3 e8 h8 c8 g6 b1 a2 h5 h6 h7 a7 h1 f7 e1 f1 f8 g8 a3 h3 c1",
}


def square(name: str) -> int:
    """The action of a cell written like ``d3``."""
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


def bitboard(names: str) -> int:
    """The bitboard of the cells listed, e.g. ``"d3 e4"``, as the int64 kept in compact states."""
    board = sum(1 << square(name) for name in names.split())
    return board - (1 << 64) if board >> 63 else board


def position(black: str, white: str, player: int = 0) -> OthelloState:
    return GAME.state_from_boards(bitboard(black), bitboard(white), player)


def random_history(rng: random.Random) -> list[int]:
    """The actions of one random game, to its end."""
    state, actions = GAME.new_initial_state(), []
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state = state.apply(actions[-1])
    return actions


# --- the start position ------------------------------------------------------------------------


def test_start_position_and_first_moves() -> None:
    state = GAME.new_initial_state()
    assert state.current_player() == 0
    assert state.legal_actions() == [19, 26, 37, 44]
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["d3", "c4", "f5", "e6"]
    grid = np.zeros((8, 8), dtype=np.int8)
    grid[3, 3] = grid[4, 4] = 2
    grid[3, 4] = grid[4, 3] = 1
    np.testing.assert_array_equal(state.board_grid(), grid)
    after = state.apply(square("d3"))
    assert after.current_player() == 1
    assert after.compact[2] == bitboard("d3 d4 e4 d5")
    assert after.compact[3] == bitboard("e5")
    assert after.legal_actions() == [square(c) for c in ("c3", "e3", "c5")]


def test_str_draws_the_board() -> None:
    assert str(GAME.state_from_moves("d3")) == "\n".join(
        [
            "  a b c d e f g h",
            "1 . . . . . . . .",
            "2 . . . . . . . .",
            "3 . . . x . . . .",
            "4 . . . x x . . .",
            "5 . . . x o . . .",
            "6 . . . . . . . .",
            "7 . . . . . . . .",
            "8 . . . . . . . .",
        ]
    )


def test_observation_is_from_the_side_to_move() -> None:
    start = GAME.new_initial_state().observation()
    assert start.shape == (2, 8, 8) and start.dtype == np.float32
    assert {(r, c) for r, c in zip(*np.nonzero(start[0]))} == {(3, 4), (4, 3)}  # black's discs
    assert {(r, c) for r, c in zip(*np.nonzero(start[1]))} == {(3, 3), (4, 4)}
    after = GAME.state_from_moves("d3").observation()  # white to move
    assert {(r, c) for r, c in zip(*np.nonzero(after[0]))} == {(4, 4)}
    assert {(r, c) for r, c in zip(*np.nonzero(after[1]))} == {(2, 3), (3, 3), (3, 4), (4, 3)}


# --- flips ---------------------------------------------------------------------------------------

DIRECTIONS = {
    "N": (-1, 0),
    "NE": (-1, 1),
    "E": (0, 1),
    "SE": (1, 1),
    "S": (1, 0),
    "SW": (1, -1),
    "W": (0, -1),
    "NW": (-1, -1),
}


def cell(row: int, col: int) -> str:
    return "abcdefgh"[col] + str(row + 1)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_flips_in_each_direction(direction: str) -> None:
    dr, dc = DIRECTIONS[direction]
    run = " ".join(cell(3 + k * dr, 3 + k * dc) for k in (1, 2))  # two white discs next to d4...
    end = cell(3 + 3 * dr, 3 + 3 * dc)  # ...then a black one
    state = position(black=end, white=run)
    assert flips(bitboard(end), bitboard(run), square("d4")) == bitboard(run)
    assert moves_bitboard(bitboard(end), bitboard(run)) == bitboard("d4")
    after = state.apply(square("d4"))
    assert after.compact[2] == bitboard(f"d4 {run} {end}")
    assert after.compact[3] == 0


@pytest.mark.parametrize(
    "move, black, white",
    [
        ("a1", "h8", "b2 c3 d4 e5 f6 g7"),  # the long diagonal, ending on the sign bit
        ("h8", "a1", "b2 c3 d4 e5 f6 g7"),
        ("a8", "h8", "b8 c8 d8 e8 f8 g8"),
        ("h1", "h8", "h2 h3 h4 h5 h6 h7"),
    ],
)
def test_flips_of_six_discs_to_the_corners(move: str, black: str, white: str) -> None:
    after = position(black, white).apply(square(move))
    assert after.compact[2] == bitboard(f"{move} {black} {white}")
    assert after.is_terminal() and after.returns() == [1.0, -1.0]


@pytest.mark.parametrize(
    "move, black, white",
    [
        ("h4", "b5", "a5"),  # east of h4 is not a5
        ("h4", "b7", "a6"),  # nor south-east
        ("a4", "g3", "h3"),  # west of a4 is not h3
        ("a4", "g1", "h2"),  # nor north-west
        ("d4", "", "e4 f4 g4 h4"),  # a run up to the edge
        ("d4", "h4", "e4 f4"),  # a run that stops on an empty square
    ],
)
def test_no_flip_across_the_edge_or_past_a_gap(move: str, black: str, white: str) -> None:
    assert flips(bitboard(black), bitboard(white), square(move)) == 0
    assert not moves_bitboard(bitboard(black), bitboard(white)) >> square(move) & 1


def test_one_move_flips_in_several_directions() -> None:
    state = position(black="b4 d2 f6 g4 a7", white="c4 d3 e5 e4 f4 c5")
    flipped = bitboard("c4 d3 e5 e4 f4")  # not c5: b6 beyond it is empty
    assert flips(state.compact[2], state.compact[3], square("d4")) == flipped
    after = state.apply(square("d4"))
    assert after.compact[2] == bitboard("b4 d2 f6 g4 a7 d4") | flipped
    assert after.compact[3] == bitboard("c5")


# --- passes and the end of the game ---------------------------------------------------------------


def test_forced_pass() -> None:
    state = GAME.state_from_moves(FORCED_PASS)
    assert state.current_player() == 0 and not state.is_terminal()
    assert state.legal_actions() == [PASS]
    np.testing.assert_array_equal(np.flatnonzero(state.legal_action_mask()), [PASS])
    with pytest.raises(IllegalActionError, match="illegal"):
        state.apply(square("a1"))
    after = state.apply(state.string_to_action("pass"))
    assert after.current_player() == 1
    assert after.compact[2:4] == state.compact[2:4]
    assert after.legal_actions() == [square("c5"), square("e7")]
    reference = pyspiel.load_game("othello").new_initial_state()
    for move in FORCED_PASS.split():
        reference.apply_action(square(move))
    assert reference.legal_actions() == [PASS]
    reference.apply_action(PASS)
    assert reference.legal_actions() == after.legal_actions()


def test_pass_is_illegal_when_there_is_a_move() -> None:
    with pytest.raises(IllegalActionError, match="illegal"):
        GAME.new_initial_state().apply(PASS)


@pytest.mark.parametrize("moves, empty, black_discs, white_discs", [(WIPEOUT, 51, 13, 0), (STUCK, 31, 32, 1)])
def test_end_when_neither_side_can_move(moves: str, empty: int, black_discs: int, white_discs: int) -> None:
    state = GAME.state_from_moves(moves)
    assert state.is_terminal() and state.current_player() == TERMINAL
    grid = state.board_grid()
    assert ((grid == 0).sum(), (grid == 1).sum(), (grid == 2).sum()) == (empty, black_discs, white_discs)
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(PASS)
    before = GAME.state_from_moves(moves.split()[:-1])
    assert not before.is_terminal() and before.returns() == [0.0, 0.0]


@pytest.mark.parametrize("returns", FULL_BOARD)
def test_end_on_a_full_board_from_both_seats(returns: tuple[float, float]) -> None:
    moves = FULL_BOARD[returns].split()
    state = GAME.state_from_moves(moves)
    assert len(moves) == 60 and state.is_terminal()
    grid = state.board_grid()
    assert (grid == 0).sum() == 0
    black, white = int((grid == 1).sum()), int((grid == 2).sum())
    assert np.sign(black - white) == returns[0]
    assert state.returns() == list(returns)
    assert state.compact[1] == returns[0]


def test_state_from_boards() -> None:
    only_black = GAME.state_from_boards(bitboard("a1 h8"), 0, 1)
    assert only_black.is_terminal() and only_black.returns() == [1.0, -1.0]
    tie = GAME.state_from_boards(bitboard("a1"), bitboard("h8"), 0)
    assert tie.is_terminal() and tie.returns() == [0.0, 0.0]
    must_pass = GAME.state_from_boards(bitboard("a1 b1"), bitboard("c1"), 1)  # only black can move (d1)
    assert must_pass.legal_actions() == [PASS]
    assert must_pass.apply(PASS).legal_actions() == [square("d1")]
    assert GAME.state_from_boards(GAME.initial_compact_state()[2], bitboard("d4 e5"), 0) == GAME.new_initial_state()
    with pytest.raises(ValueError, match="both"):
        GAME.state_from_boards(bitboard("a1"), bitboard("a1 b1"), 0)
    with pytest.raises(ValueError, match="player"):
        GAME.state_from_boards(0, 0, 2)
    with pytest.raises(ValueError, match="64 bits"):
        GAME.state_from_boards(1 << 64, 0, 0)


# --- illegal moves and notation --------------------------------------------------------------------


@pytest.mark.parametrize("action", [square("d4"), square("a1"), square("d6"), 65, -1])
def test_illegal_moves_raise(action: int) -> None:
    with pytest.raises(IllegalActionError, match="illegal"):
        GAME.new_initial_state().apply(action)


def test_notation_round_trip() -> None:
    state = GAME.new_initial_state()
    for action in range(GAME.num_actions):
        assert state.string_to_action(state.action_to_string(action)) == action
    assert [state.action_to_string(a) for a in (0, 7, 19, 56, 63, 64)] == ["a1", "h1", "d3", "a8", "h8", "pass"]
    assert state.string_to_action(" D3 ") == 19
    assert state.string_to_action("PASS") == PASS


@pytest.mark.parametrize("text", ["", "d", "i1", "a9", "a0", "33", "pas", "d3 e4"])
def test_bad_notation_raises(text: str) -> None:
    with pytest.raises(ValueError, match="cannot read move"):
        GAME.new_initial_state().string_to_action(text)


def test_action_to_string_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        GAME.new_initial_state().action_to_string(65)


# --- symmetries and hashing ---------------------------------------------------------------------------


def transformed_state(state: OthelloState, transform: Callable[[np.ndarray], np.ndarray]) -> OthelloState:
    """``state`` with both boards moved by ``transform`` (acting on [..., 8, 8] arrays), same side to move."""
    planes = transform(np.stack([state.board_grid() == 1, state.board_grid() == 2]))
    black, white = (sum(1 << int(c) for c in np.flatnonzero(plane)) for plane in planes)
    return GAME.state_from_boards(black, white, state.current_player())


def test_symmetries_map_observations_and_masks_consistently() -> None:
    rng = random.Random(7)
    symmetries = GAME.symmetries()
    assert len(symmetries) == 8 and symmetries[0].name == "rot0"
    for _ in range(3):
        history = random_history(rng)
        for ply in (5, 20, len(history) // 2, len(history) - 2):
            state = GAME.state_from_actions(history[:ply])
            for symmetry in symmetries:
                image = transformed_state(state, symmetry.transform)
                np.testing.assert_array_equal(symmetry.observation(state.observation()), image.observation())
                np.testing.assert_array_equal(symmetry.policy(state.legal_action_mask()), image.legal_action_mask())


def test_symmetries_fixing_the_start_replay_games() -> None:
    start = GAME.new_initial_state()
    fixing = [s for s in GAME.symmetries() if np.array_equal(s.observation(start.observation()), start.observation())]
    assert [s.name for s in fixing] == ["rot0", "rot90+flip", "rot180", "rot270+flip"]
    history = random_history(random.Random(3))
    for symmetry in fixing:
        image = GAME.state_from_actions([int(symmetry.action_map[a]) for a in history[:30]])
        assert image == transformed_state(GAME.state_from_actions(history[:30]), symmetry.transform)
        assert int(symmetry.action_map[PASS]) == PASS


def test_hash_key_is_stable_and_separates_positions() -> None:
    assert GAME.new_initial_state().hash_key() == 6600120151368367521  # pinned: the same in every process
    seen: dict[int, tuple] = {}
    rng = random.Random(11)
    for _ in range(20):
        state = GAME.new_initial_state()
        while not state.is_terminal():
            key = state.hash_key()
            assert seen.setdefault(key, state.compact[:4]) == state.compact[:4]  # no collision
            state = state.apply(rng.choice(state.legal_actions()))
    must_pass = GAME.state_from_moves(FORCED_PASS)
    assert must_pass.hash_key() != must_pass.apply(PASS).hash_key()  # same discs, other side to move


# --- OpenSpiel ------------------------------------------------------------------------------------------


def test_matches_openspiel_on_random_games() -> None:
    reference_game = pyspiel.load_game("othello")
    kernels, buffer = GAME.kernels, np.empty(GAME.kernels.max_actions, dtype=np.int64)
    rng = random.Random(2024)
    passes = 0
    for _ in range(200):
        ours, theirs = GAME.new_initial_state(), reference_game.new_initial_state()
        while not theirs.is_terminal():
            legal = theirs.legal_actions()
            assert ours.current_player() == theirs.current_player()
            assert ours.legal_actions() == legal
            n = kernels.legal_actions(ours.compact, buffer)
            assert buffer[:n].tolist() == legal
            tensor = np.asarray(theirs.observation_tensor(0)).reshape(-1, 64)
            np.testing.assert_array_equal(ours.board_grid().ravel(), tensor[1] + 2 * tensor[2])
            action = rng.choice(legal)
            assert ours.action_to_string(action) == theirs.action_to_string(theirs.current_player(), action)
            passes += action == PASS
            ours, _ = ours.apply(action), theirs.apply_action(action)
        assert ours.is_terminal()
        assert ours.returns() == theirs.returns()
    assert passes > 0  # the games went through passes too


@pytest.mark.slow
def test_random_playout_through_the_api_is_faster_than_openspiel() -> None:
    reference_game = pyspiel.load_game("othello")

    def plies_per_second(play: Callable[[random.Random], int]) -> float:
        rng, plies, start = random.Random(0), 0, time.perf_counter()
        for _ in range(300):
            plies += play(rng)
        return plies / (time.perf_counter() - start)

    def ours(rng: random.Random) -> int:
        state, plies = GAME.new_initial_state(), 0
        while not state.is_terminal():
            state, plies = state.apply(rng.choice(state.legal_actions())), plies + 1
        return plies

    def theirs(rng: random.Random) -> int:
        state, plies = reference_game.new_initial_state(), 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        return plies

    ours(random.Random(1))  # compile
    assert plies_per_second(ours) >= plies_per_second(theirs)


def test_the_solver_refuses_at_once_what_it_cannot_finish() -> None:
    """Up to 12 empty squares the exhaustive solver finishes (exact values, checked against the disc count
    at the end); more, and `solve` refuses at once, saying why (`Othello.too_big_to_solve`)."""
    from rlgames.solvers import solve

    def empties(state: OthelloState) -> int:
        return 64 - sum((int(board) & (2**64 - 1)).bit_count() for board in state.compact[2:4])

    rng, state = random.Random(3), GAME.new_initial_state()
    while empties(state) > 13 or state.is_terminal():
        state = GAME.new_initial_state() if state.is_terminal() else state.apply(rng.choice(state.legal_actions()))
    assert GAME.too_big_to_solve(state).startswith("othello: 13 empty squares")
    with pytest.raises(ValueError, match="13 empty squares.*nearer the end"):
        solve(state)
    while empties(state) > 8 and not state.is_terminal():
        state = state.apply(rng.choice(state.legal_actions()))
    if not state.is_terminal():
        assert GAME.too_big_to_solve(state) is None and solve(state).nodes > 0
