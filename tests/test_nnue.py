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


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "othello", "chess"])
def test_compiled_value_equals_the_torch_network(name: str) -> None:
    """The same values compiled and in torch, from the observation or (chess) the sparse features."""
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


def test_chess_features_are_the_pieces_seen_from_the_side_to_move() -> None:
    """Against python-chess's piece map: one input per piece, ``64 * (6 * side + piece) + square``,
    side 0 the mover's pieces, the board flipped when black moves."""
    import chess

    from models.evaluator import network_inputs

    game = rlgames.load_game("chess")
    states = random_states(game, 30, seed=4)
    inputs = network_inputs(game, "nnue", states)  # [N, 768]
    assert inputs.shape == (30, 768) and {s.current_player() for s in states} == {0, 1}
    for state, row in zip(states, inputs):
        board = chess.Board(state.fen())
        expected = set()
        for square, piece in board.piece_map().items():
            side = 0 if piece.color == board.turn else 1
            seen = square if board.turn == chess.WHITE else chess.square_mirror(square)
            expected.add(64 * (6 * side + piece.piece_type - 1) + seen)
        assert set(np.flatnonzero(row)) == expected and row.sum() == len(expected)
