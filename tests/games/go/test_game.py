"""Go's rules against OpenSpiel's (random games, its playthrough), and the facade: notation, drawing,
superko, scoring, SGF."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.game import IllegalActionError
from rlgames.games.go.sgf import state_from_sgf, to_sgf

pyspiel = pytest.importorskip("pyspiel")


def play_both(ours, theirs, rng: np.random.Generator) -> int:
    """One random game in both implementations, checking the player, the legal actions and the
    observation at every step, and the returns at the end; returns its length."""
    plies = 0
    while not theirs.is_terminal():
        assert not ours.is_terminal() and ours.current_player() == theirs.current_player()
        actions = theirs.legal_actions()
        assert ours.legal_actions() == actions, f"legal actions differ after {plies} plies"
        assert np.array_equal(ours.observation(0).ravel(), np.array(theirs.observation_tensor(0), dtype=np.float32))
        action = int(actions[rng.integers(len(actions))])
        ours, plies = ours.apply(action), plies + 1
        theirs.apply_action(action)
    assert ours.is_terminal() and ours.returns() == list(theirs.returns())
    return plies


CASES = [
    ({"board_size": 9}, 300),
    ({"board_size": 19}, 20),
    ({"board_size": 13, "komi": 6.5}, 20),
    ({"board_size": 2}, 1000),  # superko draws, often on the game's last move
    ({"board_size": 3}, 1000),
    ({"board_size": 5, "komi": 0}, 500),
    ({"board_size": 7, "komi": -3.5, "max_game_length": 40}, 200),
    ({"board_size": 19, "handicap": 3, "komi": 0.5}, 5),
    ({"board_size": 19, "handicap": 9, "max_game_length": 100}, 10),
]


@pytest.mark.parametrize("params, games", CASES, ids=[str(c[0]) for c in CASES])
def test_same_rules_as_openspiel(params, games):
    ours = rlgames.load_game("go", **params)
    theirs = pyspiel.load_game("go", {k: float(v) if k == "komi" else v for k, v in params.items()})
    assert (ours.num_actions, ours.max_game_length) == (theirs.num_distinct_actions(), theirs.max_game_length())
    rng = np.random.default_rng(7)
    for _ in range(games):
        play_both(ours.new_initial_state(), theirs.new_initial_state(), rng)


@pytest.mark.slow
@pytest.mark.parametrize("size, games", [(9, 10_000), (19, 1_000)])
def test_same_rules_as_openspiel_over_many_games(size, games):
    ours, theirs = rlgames.load_game("go", board_size=size), pyspiel.load_game("go", {"board_size": size})
    rng = np.random.default_rng(size)
    lengths = [play_both(ours.new_initial_state(), theirs.new_initial_state(), rng) for _ in range(games)]
    assert len(lengths) == games and max(lengths) <= ours.max_game_length  # each game checked step by step


PLAYTHROUGH = [24, 17, 8, 29, 41, 2, 42, 37, 18, 4, 47, 0, 16, 23, 34, 20, 39, 5, 26, 21, 49, 15, 28, 38, 36, 31]
PLAYTHROUGH += [46, 1, 32, 25, 43, 24, 14, 6, 12, 9, 40, 49, 19, 27, 45, 7, 3, 35, 49, 44, 43, 30, 36, 16, 49, 14]
PLAYTHROUGH += [10, 8, 13, 28, 33, 20, 49, 42, 11, 36, 4, 6, 48, 49, 27, 49, 49]
"""The game of OpenSpiel's playthrough ``integration_tests/playthroughs/go.txt``, go(board_size=7,komi=4.5)."""


def test_openspiel_playthrough_replays_exactly():
    state = rlgames.load_game("go", board_size=7, komi=4.5).state_from_actions(PLAYTHROUGH)
    assert state.is_terminal() and state.returns() == [-1.0, 1.0] and state.termination() == "passes"
    drawn = ["O.OXXXX", "OOOOXXX", "OOOOXXX", "O.OOOXX", "OOOOXX.", "OOOXXXX", "OOOXX.O"]
    assert [row.replace(" ", "")[1:8] for row in str(state).splitlines()[1:8]] == drawn
    assert state.score() == 21 - 27 - 4.5  # black: 20 stones and G3; white: 25 stones, B7 and B4 (F1 is neutral)


def test_notation_skips_i_and_counts_rows_from_the_bottom():
    game = rlgames.load_game("go", board_size=19)
    state = game.new_initial_state()
    assert state.action_to_string(0) == "A1" and state.action_to_string(8) == "J1"
    assert state.action_to_string(3 * 19 + 3) == "D4" and state.action_to_string(360) == "T19"
    assert state.action_to_string(361) == "pass" and state.string_to_action("PASS") == 361
    assert state.string_to_action("q16") == 15 * 19 + 15
    for bad in ("I5", "U1", "A20", "A0", "D", ""):
        with pytest.raises(ValueError, match="go: cannot read point"):
            state.string_to_action(bad)


def test_simple_ko_forbids_the_immediate_retake():
    game = rlgames.load_game("go", board_size=5)
    # Black B3 C4 C2 and white D4 D2 E3 face each other; white's C3 is taken by black's D3, which sits
    # in white's eye: white may not retake at C3 at once, and may once both have played elsewhere.
    ko = game.state_from_moves("B3 D4 C2 E3 C4 D2 pass C3 D3")
    c3 = ko.string_to_action("C3")
    assert ko.board_grid()[5 - 3, 2] == 0 and ko.ko_point() == c3 and c3 not in ko.legal_actions()
    with pytest.raises(IllegalActionError):
        ko.apply(c3)
    later = ko.apply(ko.string_to_action("A5")).apply(ko.string_to_action("A1"))
    assert later.ko_point() is None and c3 in later.legal_actions()
    passed = ko.apply(25)
    assert passed.ko_point() is None and passed.passes() == 1  # a pass clears the ko
    assert passed.apply(25).is_terminal() and passed.apply(25).termination() == "passes"


def test_suicide_is_illegal_but_capturing_is_not():
    game = rlgames.load_game("go", board_size=3)
    surrounded = game.state_from_moves("C3 B1 C2 A2")  # white B1 and A2 close A1, and neither is in atari
    assert surrounded.string_to_action("A1") not in surrounded.legal_actions()
    atari = game.state_from_moves("B2 B1 C1 A2 A3")  # white B1 and A2 share their last liberty, A1
    a1 = atari.string_to_action("A1")
    assert a1 not in atari.legal_actions()  # for white, A1 would leave the joined chain no liberty
    taken = atari.apply(9).apply(a1)  # white passes; black's A1 takes both stones
    assert taken.stones() == ([0, 2, 4, 6], []) and taken.board_grid()[2].tolist() == [1, 0, 1]


def test_positional_superko_draws_at_once():
    """On 2x2 random play soon brings back a whole board; the first repetition by a stone ends it drawn,
    while a pass that leaves the board as it was does not."""
    game = rlgames.load_game("go", board_size=2, komi=0.5)
    rng = np.random.default_rng(0)
    superkos = 0
    for _ in range(200):
        state = game.new_initial_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state = state.apply(actions[rng.integers(len(actions))])
        if state.termination() == "superko":
            superkos += 1
            assert state.returns() == [0.0, 0.0] and state.outcome().winner is None
    assert superkos >= 5  # 9 of these 200 games


def test_handicap_stones_and_white_first():
    game = rlgames.load_game("go", board_size=19, handicap=4)
    state = game.new_initial_state()
    black, white = state.stones()
    names = sorted(state.action_to_string(p) for p in black)
    assert names == ["D16", "D4", "Q16", "Q4"] and white == [] and state.current_player() == 1
    with pytest.raises(ValueError, match="needs a board of 16"):
        rlgames.load_game("go", board_size=9, handicap=2)
    with pytest.raises(ValueError, match="multiple of 0.5"):
        rlgames.load_game("go", komi=7.25)


def test_board_drawing():
    state = rlgames.load_game("go", board_size=5).state_from_moves("C3 D4")
    assert str(state).splitlines() == [
        "   A B C D E",
        " 5 . . . . . 5",
        " 4 . . . O . 4",
        " 3 . . X . . 3",
        " 2 . . . . . 2",
        " 1 . . . . . 1",
        "   A B C D E",
    ]


def test_sgf_round_trip_with_a_pass_and_a_result():
    game = rlgames.load_game("go", board_size=9, komi=6.5)
    state = game.state_from_moves("E5 C3 G7 pass C7 G3 pass pass")
    actions = [game.new_initial_state().string_to_action(m) for m in "E5 C3 G7 pass C7 G3 pass pass".split()]
    text = to_sgf(game, actions, players=("Alice", "Bob"), outcome=state.outcome())
    assert "SZ[9]KM[6.5]" in text and "PB[Alice]PW[Bob]" in text and ";W[]" in text and ";B[ee]" in text
    assert state.score() == 3 - 2 - 6.5 and "RE[W+5.5]" in text  # no territory: stones alone count
    again = state_from_sgf(text)
    assert again.compact == state.compact and again.game == game


def test_sgf_reads_handicap_setups_and_refuses_bad_input():
    game = rlgames.load_game("go", board_size=19, handicap=2, komi=0.5)
    text = to_sgf(game, [game.new_initial_state().string_to_action("K10")])
    assert "HA[2]AB[dp][pd]" in text
    state = state_from_sgf(text)
    assert state.game.handicap == 2 and state.current_player() == 0 and len(state.stones()[1]) == 1
    setup = state_from_sgf("(;GM[1]SZ[5]KM[0]AB[cc]AW[dd]PL[W];W[bb])")
    assert setup.stones() == ([12], [8, 16]) and setup.current_player() == 0
    with pytest.raises(ValueError, match="not on a 5x5 board"):
        state_from_sgf("(;SZ[5];B[zz])")
    with pytest.raises(ValueError, match="is B's, but W is to move"):
        state_from_sgf("(;SZ[5];B[aa];B[bb])")
    with pytest.raises(ValueError, match="not an SGF game"):
        state_from_sgf("hello")
    variations = state_from_sgf("(;SZ[5];B[aa](;W[bb];B[cc])(;W[dd]))")
    assert variations.move_number() == 3
