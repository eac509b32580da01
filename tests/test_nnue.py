"""The NNUE evaluator: its compiled value path equals the torch network, and alpha-beta runs it
compiled when given an NNUE checkpoint."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from models.checkpoint import save_checkpoint
from models.evaluator import NetworkEvaluator, NNUEvaluator
from models.networks import build_network
from rlgames.search.alphabeta import AlphaBeta, AlphaBetaConfig


def random_states(game: rlgames.Game, count: int, seed: int) -> list[rlgames.State]:
    rng, states = np.random.default_rng(seed), []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, 16)):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state)
    return states


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "othello"])
def test_compiled_value_equals_the_torch_network(name: str) -> None:
    game = rlgames.load_game(name)
    evaluator = NNUEvaluator(build_network(game, "nnue", seed=1, accumulator=16, hidden=8), game)
    states = random_states(game, 40, seed=2)
    compiled = np.array([evaluator.kernel(state.compact) for state in states])
    torch_values, _ = evaluator.evaluate_batch(states)
    np.testing.assert_allclose(compiled, torch_values, atol=1e-5)
    assert np.ptp(compiled) > 0  # the positions are told apart


def test_an_nnue_checkpoint_makes_alphabeta_run_compiled(tmp_path) -> None:
    game = rlgames.load_game("connect_four")
    network = build_network(game, "nnue", seed=3, accumulator=16, hidden=8)
    path = save_checkpoint(tmp_path / "c4.nnue.pt", network=network, game=game)
    evaluator = NetworkEvaluator.from_checkpoint(path, game)
    assert isinstance(evaluator, NNUEvaluator) and evaluator.kernel is not None
    agent = rlgames.load_agent(f"alphabeta(depth=4, model={path})", game)
    state = game.state_from_moves("4453")
    result = agent.search(state)
    expected = AlphaBeta(evaluator, AlphaBetaConfig(depth=4)).search(state)
    assert (result.action, result.value) == (expected.action, expected.value)
    assert evaluator.evaluations == 0  # every leaf went through the kernel, none through torch
    assert result.stats.extra["evaluations"] > 0
