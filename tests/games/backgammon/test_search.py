"""Searching backgammon: 1-ply expectiminimax is the best afterstate of the roll, the move filter is
exact when it keeps every afterstate (doubles' second halves included), 2 plies take the expectation
over the 21 rolls, and MCTS (chance sampled) plays legal moves through doubles."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.search import Expectiminimax, ExpectiminimaxConfig

GAME = rlgames.load_game("backgammon")


def is_double(state) -> bool:
    low, high, _ = state.dice()
    return low == high


def decision_states(count: int, seed: int, doubles: bool) -> list:
    """Decision states of random games after 3 to 30 turns, where the roll is (or is not) a double."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state, target = GAME.new_initial_state(), int(rng.integers(3, 31))
        turns = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.apply(state.sample_chance_outcome(rng))
                turns += 1
                continue
            if turns >= target:
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal() and is_double(state) == doubles:
            states.append(state)
    return states


def afterstates(state) -> dict[bytes, tuple[int, object]]:
    """Every afterstate of the turn (where the player's turn ends), keyed by its compact state, with the
    first action of a line that reaches it."""
    found: dict[bytes, tuple[int, object]] = {}
    player = state.current_player()

    def walk(node, first):
        for action in node.legal_actions():
            child = node.apply(action)
            line = action if first is None else first
            if child.is_terminal() or child.current_player() != player:
                found.setdefault(np.asarray(child.compact).tobytes(), (line, child))
            else:
                walk(child, line)

    walk(state, None)
    return found


def search(state, evaluator, **config):
    return Expectiminimax(evaluator, ExpectiminimaxConfig(depth_unit="turn", **config)).search(state)


@pytest.mark.parametrize("doubles", [False, True], ids=["plain", "doubles"])
def test_one_ply_takes_the_best_afterstate(doubles):
    pubeval = load_evaluator("pubeval", GAME)
    for state in decision_states(4, seed=1, doubles=doubles):
        values = {
            key: (pubeval.value(child) if not child.is_terminal() else 1.0)
            for key, (_, child) in afterstates(state).items()
        }
        # an afterstate is a chance node (the opponent rolls), valued for the player who moved into it
        result = search(state, pubeval, depth=1)
        assert result.value == pytest.approx(max(values.values()), abs=1e-9)


@pytest.mark.parametrize("doubles", [False, True], ids=["plain", "doubles"])
def test_a_filter_keeping_every_afterstate_is_exact_at_two_plies(doubles):
    pubeval = load_evaluator("pubeval", GAME)
    for state in decision_states(2, seed=2, doubles=doubles):
        plain = search(state, pubeval, depth=2, tt_size_mb=1)
        wide = search(state, pubeval, depth=2, tt_size_mb=1, root_filter=len(afterstates(state)))
        assert wide.value == pytest.approx(plain.value, abs=1e-9)
        assert wide.action == plain.action


def test_a_filter_of_one_searches_the_best_afterstate_at_one_ply_deeper():
    pubeval = load_evaluator("pubeval", GAME)
    for state in decision_states(3, seed=3, doubles=False):
        best_line, best_child = max(afterstates(state).values(), key=lambda item: pubeval.value(item[1]))
        filtered = search(state, pubeval, depth=2, root_filter=1)
        assert filtered.action == best_line
        if not best_child.is_terminal():
            # the chance node after the move: the expectation over the opponent's 21 rolls of -(its best reply)
            expected = sum(
                p * -search(best_child.apply(roll), pubeval, depth=1).value for roll, p in best_child.chance_outcomes()
            )
            assert filtered.value == pytest.approx(expected, abs=1e-9)


def test_mcts_samples_the_dice_and_plays_legal_moves_through_doubles():
    agent = rlgames.load_agent("mcts(simulations=20)", GAME)
    agent.seed(0)
    rng = np.random.default_rng(0)
    state, moves, doubles = GAME.new_initial_state(), 0, 0
    while not state.is_terminal() and moves < 16:
        if state.is_chance_node():
            state = state.apply(state.sample_chance_outcome(rng))
            continue
        action = agent.act(state)
        assert action in state.legal_actions()
        doubles += is_double(state)
        state, moves = state.apply(action), moves + 1
    assert moves == 16 and doubles > 0
