"""The doubling cube as a rule of backgammon (``cube=True``): its decisions, returns, IDs, and how search
and the agents meet it."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.games.backgammon import notation
from rlgames.games.backgammon.doubling import DOUBLE, DROP, ROLL, TAKE
from rlgames.games.backgammon.rules import OBSERVATION_SHAPE, observation
from rlgames.search import Expectiminimax, ExpectiminimaxConfig
from rlgames.search.reference import expectiminimax

FULL = {"scoring_type": "full_scoring"}
START = "4HPwATDgc/ABMA"


def cube_game(**params) -> rlgames.Game:
    return rlgames.load_game("backgammon", cube=True, **params)


def after_opening(game: rlgames.Game, roll: int = 2) -> rlgames.State:
    """The state after the opening roll ``roll`` (even: player 0 starts) and the first legal move."""
    state = game.new_initial_state().apply(roll)
    return state.apply(state.legal_actions()[0])


def play_out(state: rlgames.State, rng: np.random.Generator, cube=lambda state: ROLL) -> rlgames.State:
    """Random checker play to the end, the cube's decisions by ``cube(state)``."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state = state.apply(int(rng.choice(outcomes, p=probs)))
        elif state.is_cube_decision():
            state = state.apply(cube(state))
        else:
            state = state.apply(int(rng.choice(state.legal_actions())))
    return state


def test_game_info_counts_the_cube():
    game = cube_game(**FULL)
    assert game.num_actions == 1356 and game.info.utility == (-192, 192)
    assert cube_game().info.utility == (-64, 64)
    assert rlgames.load_game("backgammon").params == {"scoring_type": "winloss_scoring", "max_player_turns": 500}
    assert game.params["cube"] is True and game.network_game() == rlgames.load_game("backgammon", **FULL)
    with pytest.raises(ValueError, match="cube must be true or false"):
        rlgames.load_game("backgammon", cube="yes")


@pytest.mark.parametrize("roll", [2, 3])  # player 0 starts, player 1 starts
def test_the_opponent_decides_on_the_cube_before_its_roll(roll: int):
    state = after_opening(cube_game(), roll)
    mover = roll & 1
    roller = 1 - mover
    assert state.current_player() == roller and state.is_cube_decision() and not state.double_offered()
    assert state.legal_actions() == [ROLL, DOUBLE] and state.dice() == (0, 0, 0)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["Roll", "Double"]
    assert str(state).splitlines()[-3].endswith("to double or roll, cube 1 centered")
    out = np.zeros(OBSERVATION_SHAPE, dtype=np.float32)
    observation(state.compact, roller, out)
    assert out[8, 17] == 1.0 and out[8, 18] == 0.0 and out[8, 13] == 1.0
    rolled = state.apply(ROLL)
    assert rolled.is_chance_node() and rolled.perspective() == roller and rolled.cube() == (1, None)
    offered = state.apply(DOUBLE)
    assert offered.current_player() == mover and offered.double_offered()
    assert offered.legal_actions() == [TAKE, DROP]
    observation(offered.compact, mover, out)
    assert out[8, 18] == 1.0 and out[8, 17] == 0.0
    taken = offered.apply(TAKE)
    assert taken.is_chance_node() and taken.perspective() == roller and taken.cube() == (2, mover)


@pytest.mark.parametrize("roll", [2, 3])
def test_a_dropped_double_loses_the_cube_before_it_from_both_seats(roll: int):
    state = after_opening(cube_game(**FULL), roll)
    doubler = state.current_player()
    dropped = state.apply(DOUBLE).apply(DROP)
    assert dropped.is_terminal() and dropped.termination() == "drop"
    assert dropped.returns() == ([1.0, -1.0] if doubler == 0 else [-1.0, 1.0])
    outcome = dropped.outcome()
    assert outcome is not None and outcome.winner == doubler and outcome.termination == "drop"
    # redoubled from 2 and dropped: the dropper (who owned the 2) loses 2
    rng = np.random.default_rng(0)
    state = state.apply(DOUBLE).apply(TAKE)
    while not (state.is_cube_decision() and state.current_player() != doubler):
        state = state.apply(int(rng.choice(state.legal_actions())))
    assert state.cube() == (2, 1 - doubler)
    dropped = state.apply(DOUBLE).apply(DROP)
    assert dropped.returns()[1 - doubler] == 2.0


def test_only_the_owner_may_redouble():
    state = after_opening(cube_game())
    doubler = state.current_player()
    state = state.apply(DOUBLE).apply(TAKE)
    rng, seen = np.random.default_rng(1), {0: 0, 1: 0}
    for _ in range(40):  # pre-roll nodes of both players
        if state.is_terminal():
            break
        if state.is_cube_decision():
            seen[state.current_player()] += 1
            state = state.apply(ROLL)
        elif state.is_chance_node():
            state = state.apply(int(rng.integers(36)))
        else:
            state = state.apply(int(rng.choice(state.legal_actions())))
    assert seen[doubler] == 0 and seen[1 - doubler] > 0


def test_the_cube_stops_at_64():
    state = after_opening(cube_game())
    for _ in range(6):  # 2, 4, ..., 64, each taken, then the taker rolls and plays
        state = state.apply(DOUBLE).apply(TAKE)
        state = state.apply(35)  # 6-6
        while not state.is_chance_node() and not state.is_cube_decision():
            state = state.apply(state.legal_actions()[0])
    assert state.cube()[0] == 64 and state.is_chance_node()  # no decision left: the cube is dead


@pytest.mark.parametrize("scoring", ["winloss_scoring", "full_scoring"])
def test_returns_are_points_times_the_cube(scoring: str):
    game, plain = cube_game(scoring_type=scoring), rlgames.load_game("backgammon", scoring_type=scoring)
    rng = np.random.default_rng(2)
    kinds = set()
    for seed in range(30):
        decide = lambda state: DOUBLE if state.cube()[0] < 4 else ROLL  # noqa: E731
        taking = lambda state: TAKE if state.double_offered() else decide(state)  # noqa: E731
        final = play_out(game.new_initial_state(), rng, taking)
        value, owner = final.cube()
        same = rlgames.State(plain, (final.compact[0], final.compact[1] // value, *final.compact[2:]))
        points = {"normal": 1, "gammon": 2, "backgammon": 3}[final.termination()]
        assert abs(final.returns()[0]) == value * (1 if scoring == "winloss_scoring" else points)
        assert same.returns()[0] * value == final.returns()[0]
        kinds.add((value, final.termination()))
    assert {v for v, _ in kinds} == {4}


def test_without_doubles_the_game_is_the_game_without_the_cube():
    """Rolling at every cube decision replays the plain game's positions (the cube's bits aside)."""
    game, plain = cube_game(**FULL), rlgames.load_game("backgammon", **FULL)
    rng = np.random.default_rng(3)
    for _ in range(5):
        state, twin = game.new_initial_state(), plain.new_initial_state()
        while not twin.is_terminal():
            if state.is_cube_decision():
                state = state.settled()
            assert state.compact[:2] == twin.compact[:2] and state.compact[3:] == twin.compact[3:]
            actions = twin.legal_actions()
            assert state.legal_actions() == actions
            action = int(rng.choice(actions)) if not twin.is_chance_node() else int(rng.integers(len(actions)))
            state, twin = state.apply(action), twin.apply(action)
        assert state.returns() == twin.returns()


def test_cube_words_parse_and_bad_ones_say_why():
    state = after_opening(cube_game())
    assert state.string_to_action("double") == DOUBLE and state.string_to_action("Roll") == ROLL
    offered = state.apply(DOUBLE)
    assert offered.string_to_action("take") == TAKE
    assert offered.string_to_action("pass") == offered.string_to_action("drop") == DROP
    with pytest.raises(ValueError, match=r"'double' is not a decision here: take or drop"):
        offered.string_to_action("double")


def test_search_values_a_move_per_cube_and_scales_by_the_stakes():
    """From a checker decision, the search settles the cube's decisions into rolls: the same move as in
    the game without the cube, its value times the stakes; the reference agrees."""
    game, plain = cube_game(**FULL), rlgames.load_game("backgammon", **FULL)
    evaluator = load_evaluator("heuristic", game)
    rng = np.random.default_rng(4)
    for cube_taken in (False, True):
        state = after_opening(game)
        if cube_taken:
            state = state.apply(DOUBLE).apply(TAKE)
        state = state.settled().apply(int(rng.integers(36)))
        twin = rlgames.State(plain, (state.compact[0], 0, state.compact[2] & 0xFFFFFF, *state.compact[3:]))
        for plies in (1, 2):
            config = ExpectiminimaxConfig(depth=plies, depth_unit="turn")
            cubed = Expectiminimax(evaluator, config).search(state)
            bare = Expectiminimax(evaluator, config).search(twin)
            assert cubed.action == bare.action
            assert cubed.value == pytest.approx(bare.value * state.stakes(), abs=1e-12)
        slow = expectiminimax(state, 1, evaluator, by_turn=True)
        assert slow.action == cubed.action or slow.value == pytest.approx(cubed.value, abs=1e-9)
    assert state.stakes() == 2 / 64


def test_search_refuses_a_decision_of_the_cube():
    state = after_opening(cube_game())
    with pytest.raises(ValueError, match="taken by a formula, not by search"):
        Expectiminimax(load_evaluator("heuristic", state.game)).search(state)


def test_agents_take_the_cube_by_formula_and_passively_when_asked():
    game = cube_game(**FULL)
    board = np.zeros((2, 26), dtype=np.int64)  # x bears off its last two checkers with any roll
    board[0, [0, 1]], board[0, 25] = 1, 13
    board[1, :6], board[1, 25] = (3, 3, 3, 2, 2, 2), 0
    money = notation.MatchId(1, None, 0, False, 1, 0, False, 0, (0, 0), 0, (0, 0), jacoby=False)
    state = game.state_from_gnubg(notation.position_id(board, 0), notation.match_id(money))
    assert state.is_cube_decision() and state.current_player() == 0
    agent = rlgames.load_agent("expectiminimax(plies=1, eval=pubeval)", game)
    passive = rlgames.load_agent("expectiminimax(plies=1, eval=pubeval, passive=true)", game)
    assert agent.act(state) == DOUBLE and passive.act(state) == ROLL
    offered = state.apply(DOUBLE)
    assert agent.act(offered) == DROP and passive.act(offered) == TAKE
    assert agent.search(offered).value == pytest.approx(-1 / 192)  # dropping a cube of 1, out of 3 x 64


def test_match_ids_round_trip_the_cube():
    game = cube_game()
    state = after_opening(game, 3)  # o moved; x to double or roll
    fields = dict(cube_value=1, cube_owner=None, on_roll=0, crawford=False, game_state=1, turn=0)
    money = dict(resigned=0, dice=(0, 0), match_length=0, score=(0, 0), jacoby=False)
    assert notation.parse_match_id(state.match_id()) == notation.MatchId(**fields, double_offered=False, **money)
    offered = state.apply(DOUBLE)
    fields["turn"] = 1
    assert notation.parse_match_id(offered.match_id()) == notation.MatchId(**fields, double_offered=True, **money)
    rolled = offered.apply(TAKE).apply(7)  # x rolls 5-1 with o's cube at 2
    fields.update(cube_value=2, cube_owner=1, turn=0)
    money["dice"] = (5, 1)
    assert notation.parse_match_id(rolled.match_id()) == notation.MatchId(**fields, double_offered=False, **money)
    for s in (state, offered, rolled):
        again = game.state_from_gnubg(s.position_id(), s.match_id())
        assert again.compact[:7] == s.compact[:7] and again.match_id() == s.match_id()
    with pytest.raises(ValueError, match="load the game with cube=True"):
        rlgames.load_game("backgammon").state_from_gnubg(START, offered.match_id())
    with pytest.raises(ValueError, match="9-point match"):
        game.state_from_gnubg(START, "QYkqASAAIAAA")  # the manual's example: a 9-point match


@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
def test_the_gymnasium_env_plays_the_cube(self_play: bool):
    import warnings

    from gymnasium.utils.env_checker import check_env

    from rlgames import envs

    env = envs.make_env(
        "backgammon", self_play, game_params={"cube": True, "max_player_turns": 30}, illegal_action="lose"
    )
    assert env.action_space.n == 1356
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("eval_name", ["heuristic", "model"])
def test_the_formula_is_janowskis_over_the_rollers_outcomes(eval_name: str):
    """The agents' cube decisions, and their values, are Janowski's over the outcomes the evaluator gives
    for the roller at the roll that follows (the network's through `Game.network_game`)."""
    from rlgames.games.backgammon.cube import cube_equities, roller_outcomes

    game = cube_game(**FULL)
    params = {"path": "checkpoints/backgammon_full.pt"} if eval_name == "model" else {}
    evaluator = load_evaluator(eval_name, game, **params)
    rng, decided = np.random.default_rng(7), set()
    state = game.new_initial_state()
    while len(decided) < 3 and not state.is_terminal():
        if state.is_cube_decision():
            equities = cube_equities(
                roller_outcomes(evaluator, state.settled()), "centered" if state.cube()[1] is None else "me"
            )
            action, value = game.formula_decision(state, evaluator)
            assert action == (DOUBLE if equities.double else ROLL)
            best = min(equities.double_take, equities.double_pass) if equities.double else equities.no_double
            assert value == pytest.approx(best * state.stakes() / 3)
            decided.add(action)
            if action == DOUBLE:
                offered = state.apply(DOUBLE)
                answer, _ = game.formula_decision(offered, evaluator)
                assert answer == (TAKE if equities.take else DROP)
                decided.add(answer)
                state = offered.apply(TAKE)
                continue
            state = state.apply(action)
        elif state.is_chance_node():
            state = state.apply(int(rng.integers(36 if not state.is_opening() else 30)))
        else:
            state = state.apply(int(rng.choice(state.legal_actions())))
    assert ROLL in decided


def test_mcts_refuses_the_game_with_the_cube():
    """MCTS reads neither settled states nor stakes, so it refuses the game rather than play its cube as a
    dead one; without the cube it plays."""
    state = cube_game().new_initial_state().apply(2)
    with pytest.raises(ValueError, match="takes decisions by formula"):
        rlgames.load_agent("mcts(simulations=10)", state.game).act(state)
    plain = rlgames.load_game("backgammon").new_initial_state().apply(2)
    assert rlgames.load_agent("mcts(simulations=10)", plain.game).act(plain) in plain.legal_actions()
