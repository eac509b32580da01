"""Connect Four: lines, draws, illegal moves, Pons notation, symmetry, compiled helpers, and a
cross-check against OpenSpiel."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

import rlgames
from rlgames import TERMINAL, IllegalActionError
from rlgames.games.connect_four.data import load_pons_set
from rlgames.games.connect_four.features import LINES, NUM_FEATURES, PATTERNS, features
from rlgames.games.connect_four.game import ConnectFour
from rlgames.games.connect_four.rules import (
    BOTTOM,
    KERNELS,
    MASK,
    PLIES,
    can_win_next,
    has_four,
    possible_moves,
    winning_positions,
)

pyspiel = pytest.importorskip("pyspiel")

GAME = rlgames.load_game("connect_four")
assert isinstance(GAME, ConnectFour)

# A full board with no four (found among random games, checked against OpenSpiel below).
DRAW = "455714637617614767242476316455122212535333"


def bit(col: int, row: int) -> int:
    """The bitboard bit of a cell: ``col`` 1..7 (Pons), ``row`` 0 at the bottom."""
    return 1 << 7 * (col - 1) + row


def cells(*pairs: tuple[int, int]) -> int:
    return sum(bit(col, row) for col, row in pairs)


def spiel_state(moves: str):
    state = pyspiel.load_game("connect_four").new_initial_state()
    for digit in moves:
        state.apply_action(int(digit) - 1)
    return state


def random_actions(rng: random.Random) -> list[int]:
    """The actions of one random game, to its end."""
    state, actions = GAME.new_initial_state(), []
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state = state.apply(actions[-1])
    return actions


# --- the game record -------------------------------------------------------------------------------


def test_sizes_and_start_position() -> None:
    assert (GAME.num_actions, GAME.observation_shape, GAME.max_game_length) == (7, (2, 6, 7), 42)
    start = GAME.new_initial_state()
    assert start.compact == (0, 0, 0, 0, 0)
    assert start.current_player() == 0
    assert start.legal_actions() == list(range(7))
    assert start.returns() == [0.0, 0.0]


# --- how a game ends -------------------------------------------------------------------------------

WINS = [  # (moves, winner, the four as (column 1..7, row from the bottom))
    ("4545454", 0, [(4, 0), (4, 1), (4, 2), (4, 3)]),  # vertical
    ("14141424", 1, [(4, 0), (4, 1), (4, 2), (4, 3)]),
    ("1122334", 0, [(1, 0), (2, 0), (3, 0), (4, 0)]),  # horizontal
    ("71122334", 1, [(1, 0), (2, 0), (3, 0), (4, 0)]),
    ("1122443", 0, [(1, 0), (2, 0), (3, 0), (4, 0)]),  # horizontal, the gap filled last
    ("12233434544", 0, [(1, 0), (2, 1), (3, 2), (4, 3)]),  # diagonal going up to the right
    ("712233434544", 1, [(1, 0), (2, 1), (3, 2), (4, 3)]),
    ("76655454344", 0, [(7, 0), (6, 1), (5, 2), (4, 3)]),  # diagonal going up to the left
    ("176655454344", 1, [(7, 0), (6, 1), (5, 2), (4, 3)]),
]


@pytest.mark.parametrize("moves, winner, four", WINS, ids=[w[0] for w in WINS])
def test_win_on_every_kind_of_line(moves: str, winner: int, four: list[tuple[int, int]]) -> None:
    for n in range(len(moves)):
        assert not GAME.state_from_pons(moves[:n]).is_terminal(), f"over after {n} moves"
    state = GAME.state_from_pons(moves)
    assert state.is_terminal() and state.current_player() == TERMINAL
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert state.returns() == expected
    assert spiel_state(moves).returns() == expected
    grid = state.board_grid()
    assert [grid[5 - row, col - 1] for col, row in four] == [winner + 1] * 4
    assert state.legal_actions() == []


def test_full_board_without_four_is_a_draw() -> None:
    for n in range(len(DRAW)):
        assert not GAME.state_from_pons(DRAW[:n]).is_terminal(), f"over after {n} moves"
    state = GAME.state_from_pons(DRAW)
    assert len(DRAW) == 42
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.legal_actions() == []
    assert (state.board_grid() != 0).all()
    reference = spiel_state(DRAW)
    assert reference.is_terminal() and list(reference.returns()) == [0.0, 0.0]


def test_returns_are_zero_until_the_end_and_players_alternate() -> None:
    state = GAME.state_from_pons("4545454"[:-1])
    assert state.returns() == [0.0, 0.0] and state.current_player() == 0
    assert GAME.state_from_pons("45").current_player() == 0
    assert GAME.state_from_pons("454").current_player() == 1


# --- illegal moves -------------------------------------------------------------------------------


def test_move_into_a_full_column_is_illegal() -> None:
    state = GAME.state_from_pons("444444")
    assert state.legal_actions() == [0, 1, 2, 4, 5, 6]
    with pytest.raises(IllegalActionError, match=r"move 4 \(action 3\) is illegal"):
        state.apply(3)


def test_move_after_the_game_is_over_is_illegal() -> None:
    state = GAME.state_from_pons("4545454")
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(0)


@pytest.mark.parametrize("action", [-1, 7, 100])
def test_action_out_of_range_is_illegal(action: int) -> None:
    with pytest.raises(IllegalActionError, match=f"action {action} is illegal"):
        GAME.new_initial_state().apply(action)


@pytest.mark.parametrize("action", [3.0, "4", None])
def test_action_that_is_not_an_integer_is_illegal(action: object) -> None:
    with pytest.raises(IllegalActionError, match=f"action {action!r} is illegal"):
        GAME.new_initial_state().apply(action)


def test_numpy_integer_actions_play_like_ints() -> None:
    state = GAME.state_from_pons("445")
    assert state.apply(np.int64(2)) == state.apply(np.int32(2)) == state.apply(2)


# --- notation ------------------------------------------------------------------------------------


def test_notation_is_the_column_counted_from_one() -> None:
    state = GAME.new_initial_state()
    assert [state.action_to_string(a) for a in range(7)] == list("1234567")
    assert [state.string_to_action(text) for text in ("1", " 4 ", "7")] == [0, 3, 6]


@pytest.mark.parametrize("text", ["0", "8", "a", "12", "", "-1"])
def test_unreadable_move_is_rejected(text: str) -> None:
    with pytest.raises(ValueError, match="cannot read move"):
        GAME.new_initial_state().string_to_action(text)


def test_state_from_moves_reads_pons_strings_and_separated_moves() -> None:
    expected = GAME.state_from_actions([3, 3, 4, 2])
    assert GAME.state_from_moves("4453") == expected
    assert GAME.state_from_moves("4 4 5 3") == expected
    assert GAME.state_from_moves("4,4,5,3") == expected
    assert GAME.state_from_moves(["4", "4", "5", "3"]) == expected
    assert GAME.state_from_pons("4453") == expected
    assert GAME.state_from_moves("") == GAME.new_initial_state()


def test_state_from_pons_rejects_bad_strings() -> None:
    with pytest.raises(ValueError, match=r"move 3 \('0'\) of '4408' is not a column digit"):
        GAME.state_from_pons("4408")
    with pytest.raises(ValueError, match="not a column digit"):
        GAME.state_from_moves("44x3")
    with pytest.raises(IllegalActionError, match=r"move 7 \('4'\) of '4444444' is played in a full column"):
        GAME.state_from_pons("4444444")
    with pytest.raises(IllegalActionError, match=r"move 8 \('1'\) of '45454541' comes after the game is over"):
        GAME.state_from_pons("45454541")


def test_board_picture() -> None:
    state = GAME.state_from_pons("4453")
    expected_grid = np.zeros((6, 7), dtype=np.int8)
    expected_grid[5, [3, 4]] = 1  # x on 4 and 5, bottom row
    expected_grid[4, 3] = 2  # o on top of the first x
    expected_grid[5, 2] = 2
    np.testing.assert_array_equal(state.board_grid(), expected_grid)
    assert state.board_grid().dtype == np.int8
    empty_row = ". . . . . . ."
    assert str(state) == "\n".join([empty_row] * 4 + [". . . o . . .", ". . o x x . .", "1 2 3 4 5 6 7"])


# --- what the players see ------------------------------------------------------------------------


def test_observation_planes_are_from_the_side_to_move() -> None:
    state = GAME.state_from_pons("4453")  # x to move
    x_plane = np.zeros((6, 7), dtype=np.float32)
    x_plane[5, [3, 4]] = 1
    o_plane = np.zeros((6, 7), dtype=np.float32)
    o_plane[4, 3] = o_plane[5, 2] = 1
    observation = state.observation()
    assert observation.dtype == np.float32 and observation.shape == (2, 6, 7)
    np.testing.assert_array_equal(observation, np.stack([x_plane, o_plane]))
    x_plane[3, 3] = 1  # x plays 4 again; now o is to move
    np.testing.assert_array_equal(state.apply(3).observation(), np.stack([o_plane, x_plane]))


def test_hash_key_is_pons_key_plus_bottom() -> None:
    state = GAME.state_from_pons("4453")
    x, o = cells((4, 0), (5, 0)), cells((4, 1), (3, 0))
    assert state.hash_key() == x + (x | o) + BOTTOM == KERNELS.hash_key(state.compact)
    assert state.hash_key() == GAME.state_from_pons("4354").hash_key()  # the same board, moves transposed
    assert state.hash_key() != GAME.state_from_pons("4435").hash_key()


def test_mirror_symmetry_maps_observations_and_policies() -> None:
    identity, mirror = GAME.symmetries()
    assert identity.name == "identity" and mirror.action_map.tolist() == [6, 5, 4, 3, 2, 1, 0]
    rng = random.Random(5)
    for _ in range(20):
        actions = random_actions(rng)
        state, image = GAME.new_initial_state(), GAME.new_initial_state()
        for action in actions:
            np.testing.assert_array_equal(mirror.observation(state.observation()), image.observation())
            np.testing.assert_array_equal(identity.observation(state.observation()), state.observation())
            np.testing.assert_array_equal(mirror.policy(state.legal_action_mask()), image.legal_action_mask())
            state, image = state.apply(action), image.apply(int(mirror.action_map[action]))
        assert image.is_terminal() and image.returns() == state.returns()
        np.testing.assert_array_equal(image.board_grid(), state.board_grid()[:, ::-1])


# --- the compiled helpers ------------------------------------------------------------------------


def test_has_four_on_each_direction_and_not_across_columns() -> None:
    assert has_four(cells((2, 1), (2, 2), (2, 3), (2, 4)))  # vertical
    assert has_four(cells((3, 5), (4, 5), (5, 5), (6, 5)))  # horizontal, top row
    assert has_four(cells((1, 2), (2, 3), (3, 4), (4, 5)))  # up to the right
    assert has_four(cells((4, 0), (5, 1), (6, 2), (7, 3)))
    assert has_four(cells((7, 2), (6, 3), (5, 4), (4, 5)))  # up to the left
    assert not has_four(cells((1, 3), (1, 4), (1, 5), (2, 0)))  # would wrap into the next column
    assert not has_four(cells((1, 4), (1, 5), (2, 0), (2, 1)))
    assert not has_four(cells((4, 2), (5, 3), (6, 4), (7, 5)) ^ bit(5, 3))
    assert not has_four(0)


def test_winning_positions_and_possible_moves() -> None:
    state = GAME.state_from_pons("445566")  # x to move with three in the bottom row
    _, _, current, mask, _ = state.compact
    assert current == cells((4, 0), (5, 0), (6, 0))
    assert winning_positions(current, mask) == cells((3, 0), (7, 0))
    assert winning_positions(current ^ mask, mask) == cells((3, 1), (7, 1))  # o's, not playable yet
    assert possible_moves(mask) == cells((1, 0), (2, 0), (3, 0), (4, 2), (5, 2), (6, 2), (7, 0))
    assert can_win_next(state.compact)
    assert not can_win_next(GAME.state_from_pons("4455661").compact)  # o's threats (3, 1), (7, 1) hang in the air
    assert not can_win_next(GAME.state_from_pons("4455").compact)

    state = GAME.state_from_pons("1223343454")  # x completes the diagonal on (4, 3)
    _, _, current, mask, _ = state.compact
    assert winning_positions(current, mask) & possible_moves(mask) == bit(4, 3)
    full_column = GAME.state_from_pons("444444")
    assert possible_moves(full_column.compact[MASK]) == cells(*((c, 0) for c in (1, 2, 3, 5, 6, 7)))


def test_winning_positions_match_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(60):
        actions = random_actions(rng)
        state = GAME.new_initial_state()
        for action in actions[:-1]:
            state = state.apply(action)
            if state.is_terminal():
                break
            _, _, current, mask, _ = state.compact
            empty = [1 << b for b in range(49) if b % 7 < 6 and not mask >> b & 1]
            expected = sum(cell for cell in empty if has_four(current | cell))
            assert winning_positions(current, mask) == expected
            wins_now = any(state.apply(a).returns()[state.current_player()] == 1.0 for a in state.legal_actions())
            assert can_win_next(state.compact) == wins_now


def completes_four(board: np.ndarray, row: int, col: int) -> bool:
    """Whether a stone on the empty cell (row, col) of ``board`` (bool[6, 7] of one player's stones, row 0
    at the top) makes four in a line, counted cell by cell."""
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < 6 and 0 <= c < 7 and board[r, c]:
                run, r, c = run + 1, r + sign * dr, c + sign * dc
        if run >= 4:
            return True
    return False


def test_threat_planes_match_their_definition_cell_by_cell_from_both_seats() -> None:
    """The ``threats`` encoding: the observation's planes, each side's empty cells that would complete a four,
    and the playable cells, as counted on the board; and the mirror maps it as it maps the observation."""
    encoding = GAME.encodings["threats"]
    assert encoding.shape == (5, 6, 7) and encoding.extends_observation
    _, mirror = GAME.symmetries()
    rng = random.Random(3)
    out, image_out = np.zeros(encoding.shape, np.float32), np.zeros(encoding.shape, np.float32)
    seen = [0, 0]
    for _ in range(30):
        state, image = GAME.new_initial_state(), GAME.new_initial_state()
        for action in random_actions(rng)[:-1]:
            state, image = state.apply(action), image.apply(int(mirror.action_map[action]))
            for player in (0, 1):
                encoding.encode(state.compact, player, out)
                planes = state.observation(player)
                np.testing.assert_array_equal(out[:2], planes)
                empty = planes.sum(axis=0) == 0
                for side in (0, 1):
                    stones = planes[side] > 0
                    expected = [[empty[r, c] and completes_four(stones, r, c) for c in range(7)] for r in range(6)]
                    np.testing.assert_array_equal(out[2 + side], np.array(expected, np.float32))
                    seen[side] += int(out[2 + side].sum())
                lowest = [[empty[r, c] and (r == 5 or not empty[r + 1, c]) for c in range(7)] for r in range(6)]
                np.testing.assert_array_equal(out[4], np.array(lowest, np.float32))
                encoding.encode(image.compact, player, image_out)
                np.testing.assert_array_equal(mirror.observation(out), image_out)
    assert min(seen) > 50  # the threats the games reached, each side's


# --- against OpenSpiel and Pons' benchmark -------------------------------------------------------


def line_patterns(state: rlgames.State, player: int) -> list[int]:
    """The NNUE inputs `features` computes, cell by cell from `LINES`: each line's base-4 number of
    its cells' states (0 empty and not playable yet, 1 playable now, 2 ``player``'s, 3 the other's)."""
    board = state.observation(player)  # [2, 6, 7], row 0 at the top
    heights = [int(board[:, :, col].sum()) for col in range(7)]
    playable = {7 * col + height for col, height in enumerate(heights) if height < 6}
    patterns = []
    for line, cells in enumerate(LINES.tolist()):
        pattern = 0
        for i, cell in enumerate(cells):
            col, row = divmod(cell, 7)
            mine, theirs = board[0, 5 - row, col], board[1, 5 - row, col]
            digit = 2 if mine else 3 if theirs else 1 if cell in playable else 0
            pattern += digit * 4**i
        patterns.append(PATTERNS * line + pattern)
    return patterns


def test_line_pattern_features_match_their_definition_cell_by_cell() -> None:
    """The rows and columns gathered a board at a time equal each line read cell by cell, both views."""
    rng = np.random.default_rng(0)
    out = np.zeros(NUM_FEATURES, dtype=np.int64)
    for _ in range(40):
        state = GAME.new_initial_state()
        while not state.is_terminal():
            for player in (0, 1):
                n = features(state.compact, player, out)
                assert out[:n].tolist() == line_patterns(state, player)
            state = state.apply(int(rng.choice(state.legal_actions())))


def test_same_games_as_openspiel() -> None:
    reference_game = pyspiel.load_game("connect_four")
    rng = random.Random(2024)
    buffer = np.empty(KERNELS.max_actions, dtype=np.int64)
    boards: dict[int, str] = {}
    for _ in range(300):
        ours, theirs = GAME.new_initial_state(), reference_game.new_initial_state()
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            player = ours.current_player()
            assert player == theirs.current_player()
            legal = ours.legal_actions()
            assert legal == theirs.legal_actions()
            assert buffer[: KERNELS.legal_actions(ours.compact, buffer)].tolist() == legal
            tensor = np.asarray(theirs.observation_tensor(), dtype=np.float32).reshape(3, 6, 7)[:, ::-1]
            np.testing.assert_array_equal(ours.observation(), tensor[[player, 1 - player]])
            assert boards.setdefault(ours.hash_key(), str(theirs)) == str(theirs)  # no key collision
            action = rng.choice(legal)
            assert KERNELS.apply(ours.compact, action) == ours.apply(action).compact
            ours = ours.apply(action)
            theirs.apply_action(action)
        assert ours.is_terminal()
        assert ours.returns() == list(theirs.returns())
        assert ours.compact[PLIES] == theirs.move_number()


def test_every_pons_end_game_position_parses() -> None:
    positions = load_pons_set("Test_L3_R1")
    assert len(positions) == 1000
    for moves in (p.moves for p in positions):
        state = GAME.state_from_moves(moves)
        assert not state.is_terminal(), moves
        assert state.compact[PLIES] == len(moves) == int(np.count_nonzero(state.board_grid()))
        assert state.current_player() == len(moves) % 2
        assert not can_win_next(state.compact), moves  # as the README says of every position


@pytest.mark.slow
def test_random_playout_through_the_api_is_faster_than_openspiel() -> None:
    reference_game = pyspiel.load_game("connect_four")

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

    totals = {ours: [0, 0.0], theirs: [0, 0.0]}
    rngs = {ours: random.Random(0), theirs: random.Random(0)}
    for _ in range(20):  # interleaved, so that a busy machine slows both alike
        for play in (ours, theirs):
            start, plies = time.perf_counter(), sum(play(rngs[play]) for _ in range(500))
            totals[play][0] += plies
            totals[play][1] += time.perf_counter() - start
    rate = {play: plies / seconds for play, (plies, seconds) in totals.items()}
    assert rate[ours] >= rate[theirs]
