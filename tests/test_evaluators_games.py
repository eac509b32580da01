"""The game evaluators (connect four, othello, nim, halving, pig), the rollout evaluator and
`load_evaluator`: exact features on hand-built positions, colour symmetry, kernels against `value`,
exactness against the solvers, and strength in play."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import Evaluator, ZeroEvaluator, list_evaluators, load_evaluator
from rlgames.evaluators.rollout import RolloutEvaluator
from rlgames.game import State
from rlgames.games.connect_four.evaluator import ConnectFourEvaluator
from rlgames.games.halving.evaluator import HalvingEvaluator
from rlgames.games.nim.evaluator import MisereNimEvaluator, NimEvaluator
from rlgames.games.othello.evaluator import OthelloEvaluator
from rlgames.games.othello.rules import PASS
from rlgames.games.pig.evaluator import PigEvaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.alphabeta.driver import AlphaBeta, AlphaBetaConfig
from rlgames.solvers import solve

C4 = rlgames.load_game("connect_four")
OTHELLO = rlgames.load_game("othello")
PIG = rlgames.load_game("pig")
SMALL_TT = 0.25  # MB


def random_states(game, count: int, seed: int, max_plies: int) -> list[State]:
    """Non-terminal states reached by random play (chance outcomes by their probabilities)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, max_plies + 1)):
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state = state.apply(int(rng.choice(outcomes, p=probs)))
            else:
                state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            states.append(state)
    return states


def features(evaluator, state) -> dict[str, float]:
    return dict(zip(evaluator.feature_names, evaluator.feature_values(state).tolist()))


# --- connect four ---------------------------------------------------------------------------------


def c4_reference(state) -> list[int]:
    """The connect-four features recomputed from the board picture, window by window."""
    grid = state.board_grid()[::-1]  # row 0 the bottom row
    mover = 1 + state.current_player()
    opponent = 3 - mover
    counts = dict.fromkeys(("twos", "threes"), (0, 0))
    threats = [set(), set()]
    for col, row, dc, dr in itertools.product(range(7), range(6), (0, 1), (-1, 0, 1)):
        if (dc, dr) in ((0, 0), (0, -1)):
            continue
        cells = [(row + i * dr, col + i * dc) for i in range(4)]
        if not all(0 <= r < 6 and 0 <= c < 7 for r, c in cells):
            continue
        values = [grid[r, c] for r, c in cells]
        for side, (me, them) in enumerate(((mover, opponent), (opponent, mover))):
            if them in values:
                continue
            n = values.count(me)
            for name, k in (("twos", 2), ("threes", 3)):
                if n == k:
                    pair = list(counts[name])
                    pair[side] += 1
                    counts[name] = tuple(pair)
            if n == 3:
                threats[side].add(cells[values.index(0)])
    playable = [(r, c) for c in range(7) for r in range(6) if grid[r, c] == 0 and (r == 0 or grid[r - 1, c])]
    centre = [(grid[:, 3] == side).sum() for side in (mover, opponent)]
    return [*counts["twos"], *counts["threes"], len(threats[0]), len(threats[1]),
            len(threats[0] & set(playable)), len(threats[1] & set(playable)), *centre]


def test_c4_windows_and_threats_on_a_hand_built_position():
    # x: a1 b1 c1, o: a2 b2 c2; x to move. x: the three a1-d1, the two b1-e1, the threat d1 (playable);
    # o: the three a2-d2, the two b2-e2, the threat d2 (not playable yet).
    state = C4.state_from_moves("112233")
    assert features(ConnectFourEvaluator(), state) == {
        "twos_mover": 1, "twos_opponent": 1, "threes_mover": 1, "threes_opponent": 1,
        "threats_mover": 1, "threats_opponent": 1, "playable_threats_mover": 1,
        "playable_threats_opponent": 0, "centre_mover": 0, "centre_opponent": 0,
    }
    assert ConnectFourEvaluator().value(state) > 0.9  # a win on the next move


def test_c4_centre_and_the_opponents_playable_threat():
    # x: d1 d2 d3 (a vertical three, its threat d4 playable), o: a1 b1; o to move.
    state = C4.state_from_moves("41424")
    f = features(ConnectFourEvaluator(), state)
    assert f["centre_mover"] == 0 and f["centre_opponent"] == 3
    assert f["threes_opponent"] == 1 and f["threats_opponent"] == 1 and f["playable_threats_opponent"] == 1
    assert f["playable_threats_mover"] == 0


def test_c4_features_match_a_window_by_window_reference():
    evaluator = ConnectFourEvaluator()
    for state in random_states(C4, 60, seed=1, max_plies=30):
        assert evaluator.feature_values(state).tolist() == c4_reference(state), str(state)


def test_c4_swapping_colours_swaps_mover_and_opponent_features():
    evaluator = ConnectFourEvaluator()
    antisymmetric = ConnectFourEvaluator(np.repeat([1.0, 3.0, 2.0, 5.0, 1.5], 2) * np.tile([1, -1], 5))
    for state in random_states(C4, 40, seed=2, max_plies=25):
        player, ret, current, mask, plies = state.compact
        swapped = C4.state_class(C4, (player, ret, current ^ mask, mask, plies))
        f, g = evaluator.feature_values(state), evaluator.feature_values(swapped)
        np.testing.assert_array_equal(g.reshape(5, 2), f.reshape(5, 2)[:, ::-1])
        assert antisymmetric.value(swapped) == pytest.approx(-antisymmetric.value(state), abs=1e-12)


# --- othello --------------------------------------------------------------------------------------


def sq(name: str) -> int:
    return OTHELLO.new_initial_state().string_to_action(name)


def board(*names: str) -> int:
    return sum(1 << sq(n) for n in names)


def othello(black: tuple[str, ...], white: tuple[str, ...], player: int = 0):
    return OTHELLO.state_from_boards(board(*black), board(*white), player)


def moves(state) -> int:
    """The number of legal disc placements (a pass is not one)."""
    return len([a for a in state.legal_actions() if a != PASS])


def test_othello_corners_x_c_squares_positional_and_stable_discs():
    # black: corner a1 with b1 c1 along the top edge, g7 (the X-square of the empty h8);
    # white: d1, h2 (a C-square of the empty h1), b2 (the X-square of a1, which is taken).
    state = othello(("a1", "b1", "c1", "g7"), ("d1", "h2", "b2"))
    f = features(OthelloEvaluator(), state)
    assert f["disc_difference"] == 1
    assert f["corners"] == 1
    assert f["x_squares"] == 1 - 0  # white's b2 does not count: a1 is occupied
    assert f["c_squares"] == 0 - 1  # black's b1 does not count either
    assert f["positional"] == (100 - 20 + 10 - 50) - (5 - 20 - 50)
    assert f["stable"] == 3 - 0  # a1 b1 c1: a run from black's corner
    white_to_move = othello(("a1", "b1", "c1", "g7"), ("d1", "h2", "b2"), player=1)
    assert f["mobility"] == moves(state) - moves(white_to_move) == 4 - 0  # white would pass
    assert features(OthelloEvaluator(), white_to_move) == {k: -v for k, v in f.items()}


def test_othello_a_full_edge_is_stable_and_a_broken_one_is_not():
    full = othello(("a8", "h8", "d4"), ("b8", "c8", "d8", "e8", "f8", "g8", "e4"))
    assert features(OthelloEvaluator(), full)["stable"] == 2 - 6
    broken = othello(("a8", "h8", "d4"), ("b8", "c8", "d8", "f8", "g8", "e4"))  # e8 empty
    assert features(OthelloEvaluator(), broken)["stable"] == 2 - 0


def test_othello_start_is_balanced_and_mobility_counts_moves():
    start = OTHELLO.new_initial_state()
    assert OthelloEvaluator().feature_values(start).tolist() == [0.0] * 7
    for state in random_states(OTHELLO, 10, seed=7, max_plies=40):
        player, _, black, white, _ = state.compact
        other = OTHELLO.state_from_boards(black, white, 1 - player)  # the same discs, the opponent to move
        assert features(OthelloEvaluator(), state)["mobility"] == moves(state) - moves(other)


def test_othello_swapping_colours_negates_every_feature():
    evaluator = OthelloEvaluator()
    for state in random_states(OTHELLO, 40, seed=3, max_plies=50):
        player, _, black, white, _ = state.compact
        swapped = OTHELLO.state_from_boards(white, black, player)
        np.testing.assert_allclose(evaluator.feature_values(swapped), -evaluator.feature_values(state))
        assert evaluator.value(swapped) == pytest.approx(-evaluator.value(state), abs=1e-12)


# --- nim and halving: exact -----------------------------------------------------------------------


@pytest.mark.parametrize("misere", [False, True])
def test_nim_value_is_the_exact_game_value_everywhere(misere):
    game = rlgames.load_game("nim", heaps=(1, 3, 5, 7), misere=misere)
    evaluator = load_evaluator("heuristic", game)
    assert type(evaluator) is (MisereNimEvaluator if misere else NimEvaluator)
    for heaps in itertools.product(*(range(h + 1) for h in game.heaps)):
        if sum(heaps) == 0:
            continue
        for player in (0, 1):
            state = game.state_class(game, (player, 0, *heaps))
            value = evaluator.value(state)
            assert value == solve(state).value, (heaps, value)
            assert evaluator.kernel(state.compact) == value


def test_nim_misere_differs_from_normal_play_only_when_every_heap_is_small():
    normal, misere = NimEvaluator(), MisereNimEvaluator()
    game = rlgames.load_game("nim", heaps=(3, 3))
    for heaps, same in (((1, 1), False), ((1, 0), False), ((2, 1), True), ((3, 3), True)):
        state = game.state_class(game, (0, 0, *heaps))
        assert (normal.value(state) == misere.value(state)) == same


def test_halving_value_has_the_sign_of_the_game_value():
    game = rlgames.load_game("halving", n=300)
    evaluator = HalvingEvaluator()
    for n in range(1, 301):
        state = game.state_class(game, (n % 2, 0, n))
        value = evaluator.value(state)
        assert abs(value) == pytest.approx(math.tanh(2.0))
        assert np.sign(value) == solve(state).value, n
    assert features(evaluator, game.state_class(game, (0, 0, 12))) == {
        "trailing_zeros_parity": 1, "power_of_two_parity": 0}
    assert features(evaluator, game.state_class(game, (0, 0, 8))) == {
        "trailing_zeros_parity": -1, "power_of_two_parity": -1}


# --- pig ------------------------------------------------------------------------------------------


def pig(score0: int, score1: int, total: int = 0, turn: int = 0, chance: bool = False):
    return PIG.state_at(score0, score1, total, turn, chance=chance)


def test_pig_features_from_the_turn_player():
    evaluator = PigEvaluator()
    assert evaluator.feature_values(PIG.new_initial_state()).tolist() == [0.0] * 5
    assert evaluator.value(PIG.new_initial_state()) == 0.0
    assert features(evaluator, pig(30, 50, total=25, turn=1)) == pytest.approx({
        "score_difference": 0.2, "turn_total": 0.25, "held_turn_total": 0.25,
        "closeness": 0.75**2 - 0.3**2, "can_win_by_holding": 0.0})
    assert features(evaluator, pig(30, 50, total=19, turn=1))["held_turn_total"] == 0.0
    assert features(evaluator, pig(90, 0, total=10))["can_win_by_holding"] == 1.0
    assert evaluator.value(pig(90, 0, total=10)) > 0.99


def test_pig_value_is_monotone_and_seat_symmetric():
    evaluator = PigEvaluator()
    values = [evaluator.value(pig(mine, 40, total=5)) for mine in range(0, 95, 5)]
    assert all(a < b for a, b in itertools.pairwise(values))
    assert all(-1 < v < 1 for v in values)
    assert evaluator.value(pig(20, 60)) < 0 < evaluator.value(pig(60, 20))
    for score0, score1, total in ((10, 70, 12), (55, 3, 0), (80, 80, 21)):
        assert evaluator.value(pig(score0, score1, total, turn=0)) == evaluator.value(pig(score1, score0, total, turn=1))


def test_pig_chance_node_is_valued_for_the_player_who_rolled():
    evaluator = PigEvaluator()
    decision = pig(10, 60, total=8, turn=1)
    rolled = decision.apply(0)  # roll: a chance node, player 1 still the turn player
    assert rolled.is_chance_node() and rolled.observer() == 1
    assert evaluator.value(rolled) == evaluator.value(decision) > 0.5


# --- every game -----------------------------------------------------------------------------------

GAMES = [("tic_tac_toe", {}, 9), ("connect_four", {}, 30), ("othello", {}, 60), ("nim", {}, 10),
         ("nim", {"misere": True}, 10), ("halving", {"n": 1000}, 10), ("pig", {}, 80)]


@pytest.mark.parametrize("name, params, plies", GAMES)
def test_kernel_equals_value_and_values_are_in_range(name, params, plies):
    game = rlgames.load_game(name, **params)
    evaluator = load_evaluator("heuristic", game)
    for state in random_states(game, 40, seed=4, max_plies=plies):
        value = evaluator.value(state)
        assert -1.0 <= value <= 1.0
        assert evaluator.kernel(state.compact) == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("name, params, plies", GAMES)
def test_load_evaluator_for_every_game(name, params, plies):
    game = rlgames.load_game(name, **params)
    expected = {"tic_tac_toe": OpenLinesEvaluator, "connect_four": ConnectFourEvaluator,
                "othello": OthelloEvaluator, "nim": MisereNimEvaluator if params else NimEvaluator,
                "halving": HalvingEvaluator, "pig": PigEvaluator}[name]
    assert type(load_evaluator("heuristic", game)) is expected
    assert isinstance(load_evaluator("zero", game), ZeroEvaluator)
    rollout = load_evaluator("rollout", game, rollouts=2, seed=0)
    assert isinstance(rollout, RolloutEvaluator) and rollout.rollouts == 2
    for evaluator in (load_evaluator("heuristic", game), rollout):
        assert isinstance(evaluator, Evaluator) and evaluator.policy(game.new_initial_state()) is None


def test_load_evaluator_passes_params_and_rejects_unknown_names():
    weights = load_evaluator("heuristic", C4, weights=[0.0] * 10).weights
    assert weights.tolist() == [0.0] * 10
    assert {"heuristic", "learned", "rollout", "zero"} <= set(list_evaluators())
    with pytest.raises(ValueError, match="unknown evaluator 'neural'.*heuristic.*zero"):
        load_evaluator("neural", C4)


# --- rollouts -------------------------------------------------------------------------------------


def random_play_value(state) -> float:
    """The exact expected return of the side to move when both sides play uniformly at random."""
    total = 0.0
    actions = state.legal_actions()
    for action in actions:
        child = state.apply(action)
        if child.is_terminal():
            total += child.returns()[state.current_player()]
        else:
            total -= random_play_value(child)
    return total / len(actions)


def test_rollout_value_is_a_seeded_mean_of_playouts():
    ttt = rlgames.load_game("tic_tac_toe")
    evaluator = RolloutEvaluator(ttt, rollouts=8, seed=5)
    for moves_played, rollouts in (("a1 b1 a2 b2", 400), ("a1 b1 a2 b2 c3", 400), ("b2 a1", 400)):
        state = ttt.state_from_moves(moves_played)
        value = RolloutEvaluator(ttt, rollouts=rollouts, seed=0).value(state)
        assert value == pytest.approx(random_play_value(state), abs=0.15)  # about 3 standard errors
    state = ttt.state_from_moves("a1 b1 a2 b2")
    values = [evaluator.value(state) for _ in range(10)]
    assert all(-1 <= v <= 1 and (8 * v).is_integer() for v in values)
    replay = RolloutEvaluator(ttt, rollouts=8, seed=5)
    assert [replay.value(state) for _ in range(10)] == values
    last_move = ttt.state_from_moves("a1 a2 a3 b2 b1 b3 c2 c1")  # x to move: one cell left, a draw
    assert RolloutEvaluator(ttt, seed=1).value(last_move) == 0.0


def test_rollout_kernel_shares_the_stream_and_is_stochastic():
    first, second = RolloutEvaluator(C4, rollouts=3, seed=7), RolloutEvaluator(C4, rollouts=3, seed=7)
    states = random_states(C4, 10, seed=6, max_plies=20)
    assert [first.kernel(s.compact) for s in states] == [second.value(s) for s in states]
    start = C4.initial_compact_state()
    assert len({first.kernel(start) for _ in range(30)}) > 1


def test_rollout_kernel_drives_compiled_alphabeta():
    game = rlgames.load_game("nim", heaps=(1, 2, 3))
    result = AlphaBeta(RolloutEvaluator(game, rollouts=4, seed=0), AlphaBetaConfig(depth=2, tt_size_mb=SMALL_TT)
                       ).search(game.new_initial_state())
    assert result.action in game.new_initial_state().legal_actions() and -1 <= result.value <= 1


# --- strength -------------------------------------------------------------------------------------


def play(game, players, rng: np.random.Generator, opening: int = 0) -> float:
    """Player 0's return in one game; ``players[i]`` is an AlphaBeta or None (uniformly random);
    the first ``opening`` moves are random."""
    state = game.new_initial_state()
    ply = 0
    while not state.is_terminal():
        searcher = players[state.current_player()]
        if searcher is None or ply < opening:
            state = state.apply(int(rng.choice(state.legal_actions())))
        else:
            state = state.apply(searcher.search(state).action)
        ply += 1
    return state.returns()[0]


def score_vs(game, searcher, opponent, games: int, seed: int, opening: int = 0) -> float:
    """The searcher's points (win 1, draw 0.5) over ``games`` games, colours alternating."""
    rng = np.random.default_rng(seed)
    points = 0.0
    for i in range(games):
        seats = (searcher, opponent) if i % 2 == 0 else (opponent, searcher)
        result = play(game, seats, rng, opening) * (1 if i % 2 == 0 else -1)
        points += (result + 1) / 2
    return points


def test_connect_four_heuristic_beats_random_play():
    searcher = AlphaBeta(ConnectFourEvaluator(), AlphaBetaConfig(depth=3, tt_size_mb=SMALL_TT))
    assert score_vs(C4, searcher, None, games=20, seed=0) >= 19


def test_othello_heuristic_beats_random_play():
    searcher = AlphaBeta(OthelloEvaluator(), AlphaBetaConfig(depth=2, tt_size_mb=SMALL_TT))
    assert score_vs(OTHELLO, searcher, None, games=20, seed=0) >= 17


@pytest.mark.slow  # a match (about 20 s)
def test_connect_four_heuristic_beats_the_zero_evaluator_at_equal_depth():
    config = AlphaBetaConfig(depth=4, tt_size_mb=SMALL_TT)
    heuristic, zero = AlphaBeta(ConnectFourEvaluator(), config), AlphaBeta(ZeroEvaluator(), config)
    assert score_vs(C4, heuristic, zero, games=8, seed=1, opening=2) >= 7
