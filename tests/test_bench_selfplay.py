"""The alpha-zero-general-style reference search of benchmarks/bench_selfplay.py searches correctly, so
that the speed-up it reports compares like with like."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from rlgames.models import load_network

import rlgames

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_selfplay import ReferenceMCTS, reference_selfplay  # noqa: E402

TTT = rlgames.load_game("tic_tac_toe")
CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "tic_tac_toe.pt"


@pytest.fixture(scope="module")
def network():
    return load_network(CHECKPOINT, TTT)[0]


@pytest.mark.parametrize("moves, winning", [("a1 b1 a2 b2", "a3"), ("a1 b1 c3 b2 c1", "b3")])
def test_reference_search_finds_the_win_or_the_only_defence(network, moves, winning):
    state = TTT.state_from_moves(moves)
    probabilities = ReferenceMCTS(TTT, network, simulations=200).action_probabilities(state)
    assert TTT.new_initial_state().action_to_string(int(np.argmax(probabilities))) == winning
    assert probabilities.sum() == pytest.approx(1.0) and probabilities[state.legal_action_mask() == 0].sum() == 0


def test_reference_self_play_counts_its_work(network):
    rates = reference_selfplay(TTT, network, simulations=16, games=2, rng=np.random.default_rng(0))
    assert 2 * 5 <= rates["positions"] <= 2 * 9
    assert rates["simulations_per_s"] == pytest.approx(16 * rates["positions_per_s"])
    assert 0 < rates["evaluations_per_s"] <= rates["simulations_per_s"]


def test_rlgames_self_play_counts_the_simulations_its_searches_ran(network):
    """Simulations are summed from the searches' own ``stats.nodes``: with the MCTS-solver a proven root
    stops early, so fewer run than ``moves * simulations`` (what the benchmark used to count)."""
    import dataclasses

    from bench_selfplay import rlgames_selfplay
    from rlgames.train.alphazero.config import load_config

    config = dataclasses.replace(
        load_config("tic_tac_toe").selfplay, search="puct", simulations=16, games_per_iteration=8, parallel_games=8
    )
    rates = rlgames_selfplay(TTT, network, config, seed=0)
    ran = rates["simulations"]
    assert rates["simulations_per_s"] == pytest.approx(ran / rates["seconds"])
    assert rates["planned_simulations"] == 16 * rates["positions"]
    assert 0 < ran < rates["planned_simulations"]  # tic-tac-toe's solver proves many roots before 16
    assert rates["evaluations_per_s"] <= rates["simulations_per_s"]
