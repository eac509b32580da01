"""Checkers' rules against OpenSpiel's (random games, its playthrough), and the facade: notation, multi-jumps,
the draw counter, wins and draws from both seats, drawing, PDN."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.game import IllegalActionError, Outcome
from rlgames.games.checkers.game import parse_move
from rlgames.jit.rng import new_rng_state
from rlgames.playout import make_buffered_playout

pyspiel = pytest.importorskip("pyspiel")

GAME = rlgames.load_game("checkers")


def play_both(ours, theirs, rng: np.random.Generator) -> float:
    """One random game in both implementations, checking the player, the legal actions and both players'
    observations at every step, and the returns at the end; returns player 0's return."""
    plies = 0
    while not theirs.is_terminal():
        assert not ours.is_terminal() and ours.current_player() == theirs.current_player()
        actions = theirs.legal_actions()
        assert ours.legal_actions() == actions, f"legal actions differ after {plies} plies"
        for player in (0, 1):
            expected = np.array(theirs.observation_tensor(player), dtype=np.float32)
            assert np.array_equal(ours.observation(player).ravel(), expected)
        action = int(actions[rng.integers(len(actions))])
        ours, plies = ours.apply(action), plies + 1
        theirs.apply_action(action)
    assert ours.is_terminal() and ours.returns() == list(theirs.returns())
    return ours.returns()[0]


def test_same_rules_as_openspiel():
    theirs = pyspiel.load_game("checkers")
    assert (GAME.num_actions, GAME.max_game_length) == (theirs.num_distinct_actions(), theirs.max_game_length())
    assert GAME.observation_shape == tuple(theirs.observation_tensor_shape())
    rng = np.random.default_rng(3)
    results = {play_both(GAME.new_initial_state(), theirs.new_initial_state(), rng) for _ in range(400)}
    assert results == {-1.0, 0.0, 1.0}


@pytest.mark.slow
def test_same_rules_as_openspiel_over_many_games():
    theirs, rng = pyspiel.load_game("checkers"), np.random.default_rng(10_000)
    results = [play_both(GAME.new_initial_state(), theirs.new_initial_state(), rng) for _ in range(10_000)]
    assert set(results) == {-1.0, 0.0, 1.0}  # every game checked step by step; wins, draws and losses all met


PLAYTHROUGH = [336, 174, 352, 231, 395, 156, 283, 101, 424, 140, 267, 85, 482, 30, 354, 247, 425, 283, 119, 496]
PLAYTHROUGH += [190, 368, 247, 357, 440, 496, 370, 424, 411, 297, 85, 450, 68, 312, 62, 466, 46, 322, 118, 264]
PLAYTHROUGH += [173, 195, 13, 410, 228, 355, 158, 242, 318, 184, 372, 114, 446, 62, 102, 112, 496, 394, 426, 336]
PLAYTHROUGH += [215, 44, 372, 112, 158, 44, 446, 116, 496, 184, 430, 114, 214, 62, 480, 118, 324, 168, 270, 96]
PLAYTHROUGH += [408, 28, 396, 100, 336, 170, 466, 118, 264, 170, 324, 118, 196, 172, 266, 240, 408, 168, 208, 98, 396]
"""The game of OpenSpiel's playthrough ``integration_tests/playthroughs/checkers.txt``: drawn by its 40th
action without a capture."""


def test_openspiel_playthrough_replays_exactly():
    state = GAME.state_from_actions(PLAYTHROUGH)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.termination() == "40 moves without capture" and state.moves_without_capture() == 40
    # OpenSpiel draws it "8.....8..", "6.*......", "3..*.....", "1..*.....": a king of player 0 on f8,
    # player 1's kings on b6, c3 and c1.
    assert [line[2:17] for line in str(state).splitlines()[1:]] == [
        "  .   .   X   .",
        ".   .   .   .  ",
        "  O   .   .   .",
        ".   .   .   .  ",
        "  .   .   .   .",
        ".   O   .   .  ",
        "  .   .   .   .",
        ".   O   .   .  ",
    ]


def test_start_position_moves_and_drawing():
    state = GAME.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "12-16",
        "11-16",
        "11-15",
        "10-15",
        "10-14",
        "9-14",
        "9-13",
    ]
    assert str(state).splitlines() == [
        "  a b c d e f g h",
        "8   o   o   o   o   32 31 30 29",
        "7 o   o   o   o     28 27 26 25",
        "6   o   o   o   o   24 23 22 21",
        "5 .   .   .   .     20 19 18 17",
        "4   .   .   .   .   16 15 14 13",
        "3 x   x   x   x     12 11 10  9",
        "2   x   x   x   x    8  7  6  5",
        "1 x   x   x   x      4  3  2  1",
    ]
    assert state.board_grid()[7].tolist() == [1, 0, 1, 0, 1, 0, 1, 0]
    assert state.board_grid()[0].tolist() == [0, 2, 0, 2, 0, 2, 0, 2]
    assert state.hash_key() == -8720610905766546642  # the same in every process


def test_the_playout_kernel_plays_the_generic_random_playout():
    """Same stream, same games: the kernel draws the move the generic playout draws from the listed actions."""
    generic = make_buffered_playout(GAME.kernels._replace(playout=None))
    actions, probs = np.empty(GAME.kernels.max_actions, dtype=np.int64), np.empty(GAME.kernels.max_actions)
    start = GAME.initial_compact_state()
    for seed in range(300):
        ours_rng, generic_rng = new_rng_state(seed), new_rng_state(seed)
        ours = GAME.kernels.playout(start, ours_rng, actions, probs)
        assert ours == generic(start, generic_rng, actions, probs) and np.array_equal(ours_rng, generic_rng)


def test_notation_reads_squares_and_openspiel_strings():
    state = GAME.new_initial_state()
    assert state.string_to_action("11-15") == state.string_to_action("c3d4") == 338
    assert state.action_to_string(338) == "11-15" and state.string_to_action(" 9-13 ") == 370
    assert state.action_to_string(0) == "a8`9"  # no piece could make it: written as OpenSpiel does
    assert state.string_to_action("22x15") == ((2 * 8 + 5) * 4 + 3) * 2 + 1  # f6 jumps down-left to d4
    assert state.action_to_string(state.string_to_action("22x15")) == "22x15"
    assert state.string_to_action("f6d4") == state.string_to_action("22x15")
    assert parse_move("22x15x8") == [state.string_to_action("22x15"), state.string_to_action("15x8")]


def test_notation_agrees_with_openspiel_on_every_legal_move():
    theirs_game, rng = pyspiel.load_game("checkers"), np.random.default_rng(5)
    for _ in range(30):
        ours, theirs = GAME.new_initial_state(), theirs_game.new_initial_state()
        while not ours.is_terminal():
            for action in ours.legal_actions():
                assert ours.string_to_action(theirs.action_to_string(action)) == action
                assert ours.string_to_action(ours.action_to_string(action)) == action
            action = int(rng.choice(ours.legal_actions()))
            ours = ours.apply(action)
            theirs.apply_action(action)


@pytest.mark.parametrize(
    "text, message",
    [
        ("11_15", "cannot read move '11_15'; expected squares 1-32 as 11-15, 22x15 or 22x15x8"),
        ("", "cannot read move ''"),
        ("11-", "cannot read move '11-'"),
        ("33-29", "square 33 of move '33-29' is not one of 1-32"),
        ("0-5", "square 0 of move '0-5' is not one of 1-32"),
        ("11-16x20", "cannot read move"),
        ("11-18", "squares 11 and 18 are not a diagonal step apart"),
        ("11x15", "squares 11 and 15 are not a jump apart"),
        ("11x18x20", "squares 18 and 20 are not a jump apart"),
        ("a1b1", "names a light square"),
        ("c3f4", "squares 11 and 14 are not a diagonal step apart"),
        ("22x15x8", "'22x15x8' is a multi-jump of 2 actions; give its jumps one by one"),
    ],
)
def test_move_parser_errors_are_one_line(text, message):
    with pytest.raises(ValueError, match=message) as error:
        GAME.new_initial_state().string_to_action(text)
    assert str(error.value).startswith("checkers: ") and "\n" not in str(error.value)


def test_a_multi_jump_is_restricted_to_the_jumping_piece():
    state = GAME.state_from_squares(1, men0=[1, 11, 18], men1=[22, 32])
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["22x15"]
    middle = state.apply(state.string_to_action("22x15"))
    assert middle.current_player() == 1 and middle.jumper() == 15 and middle.moves_without_capture() == 0
    assert [middle.action_to_string(a) for a in middle.legal_actions()] == ["15x8"]
    assert middle.tactical_actions() == middle.legal_actions()
    with pytest.raises(IllegalActionError):
        middle.apply(middle.string_to_action("32-28"))  # another piece may not move in the middle
    after = middle.apply(middle.string_to_action("15x8"))
    assert after.current_player() == 0 and after.jumper() is None
    assert state.tactical_actions() == state.legal_actions() and GAME.new_initial_state().tactical_actions() == []


def test_a_man_crowned_by_a_jump_ends_the_turn_and_a_king_jumps_on():
    man = GAME.state_from_squares(0, men0=[22], men1=[26, 27, 9])
    crowned = man.apply(man.string_to_action("22x31"))
    assert crowned.current_player() == 1 and crowned.jumper() is None and crowned.compact[3] == 1 << 30
    king = GAME.state_from_squares(0, kings0=[22], men1=[26, 27, 9])
    on = king.apply(king.string_to_action("22x31"))
    assert on.current_player() == 0 and on.jumper() == 31
    assert [on.action_to_string(a) for a in on.legal_actions()] == ["31x24"]


def test_captures_are_mandatory_but_any_capture_may_be_chosen():
    state = GAME.state_from_squares(0, men0=[7, 14], men1=[11, 18, 27])  # 14x23x32 takes two, 7x16 one
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["14x23", "7x16"]


def test_every_action_counts_towards_the_draw_and_a_capture_resets_it():
    state = GAME.state_from_moves("11-15 23-19 8-11")
    assert state.moves_without_capture() == 3
    assert state.apply(state.string_to_action("22-17")).moves_without_capture() == 4
    taken = GAME.state_from_moves("11-15 24-20 15-19 23x16")
    assert taken.moves_without_capture() == 0 and taken.current_player() == 0


def shuffle(state, moves: str, times: int):
    """``state`` after the moves played ``times`` times over."""
    for _ in range(times):
        for move in moves.split():
            state = state.apply(state.string_to_action(move))
    return state


@pytest.mark.parametrize(
    "player, men0, men1, move, returns",
    [
        (0, [14], [17], "14x21", [1.0, -1.0]),  # player 0 takes the last piece
        (1, [14], [17], "17x10", [-1.0, 1.0]),  # player 1 takes the last piece
        (0, [1, 2], [5], "2-6", [1.0, -1.0]),  # player 1's man on 5 is left without a move: 1 blocks it
        (1, [28], [31, 32], "31-27", [-1.0, 1.0]),  # player 0's man on 28 is left without a move: 32 blocks it
    ],
)
def test_wins_and_losses_from_both_seats(player, men0, men1, move, returns):
    state = GAME.state_from_squares(player, men0=men0, men1=men1)
    end = state.apply(state.string_to_action(move))
    assert end.is_terminal() and end.returns() == returns and end.termination() == "no legal move"
    winner = 0 if returns[0] > 0 else 1
    assert end.outcome() == Outcome(winner, (returns[0], returns[1]), "no legal move")


@pytest.mark.parametrize("player, men0, men1, returns", [(0, [28], [32], [-1.0, 1.0]), (1, [1], [5], [1.0, -1.0])])
def test_a_player_who_cannot_move_has_lost(player, men0, men1, returns):
    blocked = GAME.state_from_squares(player, men0=men0, men1=men1)
    assert blocked.is_terminal() and blocked.returns() == returns and blocked.legal_actions() == []


@pytest.mark.parametrize("player", [0, 1])
def test_forty_actions_without_capture_draw_from_both_seats(player):
    state = GAME.state_from_squares(player, kings0=[1], kings1=[32])
    moves = "1-5 32-28 5-1 28-32" if player == 0 else "32-28 1-5 28-32 5-1"
    before = shuffle(state, moves, 9)
    last = shuffle(before, " ".join(moves.split()[:3]), 1)
    assert not last.is_terminal() and last.moves_without_capture() == 39
    end = last.apply(last.string_to_action(moves.split()[3]))
    assert end.is_terminal() and end.returns() == [0.0, 0.0] and end.termination() == "40 moves without capture"
    assert end.outcome() == Outcome(None, (0.0, 0.0), "40 moves without capture")


def test_positions_are_checked():
    for bad in ([0], [33], [1, 1]):
        with pytest.raises(ValueError, match="is not one of 1-32, or holds two pieces"):
            GAME.state_from_squares(0, men0=bad)
    with pytest.raises(ValueError, match="player 0 has a man on its crowning row"):
        GAME.state_from_squares(0, men0=[30])
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        GAME.state_from_squares(2)


def test_multi_jumps_read_as_one_move():
    line = "9-13 24-19 5-9 19-15 11x18 23x14x5"
    state = GAME.state_from_moves(line)
    assert state.current_player() == 0 and state.moves_without_capture() == 0
    assert GAME.parse_position_line(line)[0] == (370, 140, 440, 212, 339, 157, 301)
    assert GAME.state_from_moves(line.split()) == state


def test_pdn_export_of_a_short_game():
    actions = GAME.parse_position_line("9-13 24-19 5-9 19-15 11x18 23x14x5")[0]
    text = GAME.export_record(actions, players=("Ann", 'Bo "B"'), outcome=Outcome(1, (-1.0, 1.0)), round=3)
    assert text == (
        '[Event "rlgames"]\n'
        '[Round "3"]\n'
        '[White "Bo \\"B\\""]\n'
        '[Black "Ann"]\n'
        '[Result "1-0"]\n'
        '[GameType "21"]\n'
        "\n"
        "1. 9-13 24-19 2. 5-9 19-15 3. 11x18 23x14x5 1-0\n"
    )
    assert GAME.record_format == "pdn"
    drawn = GAME.export_record(actions[:1], players=("A", "B"), outcome=Outcome(None, (0.0, 0.0)))
    assert drawn.endswith('[Result "1/2-1/2"]\n[GameType "21"]\n\n1. 9-13 1/2-1/2\n') and '[Round "?"]' in drawn
