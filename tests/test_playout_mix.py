"""AlphaGo's mixed leaf values with a compiled rollout policy: `rlgames.playout.make_playout_values` and
`rlgames.evaluators.rollout.PlayoutMixEvaluator`, and go's usual MCTS (RAVE over pattern playouts; with a
network, the network mixed with the playouts)."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.agents.spec import AgentSpecError
from rlgames.evaluators.base import Evaluator
from rlgames.evaluators.rollout import PlayoutMixEvaluator
from rlgames.jit.rng import new_rng_state
from rlgames.playout import make_buffered_playout, make_playout_values

TTT = rlgames.load_game("tic_tac_toe")


def _values(game, states, seed):
    kernels = game.kernels
    values = make_playout_values(
        make_buffered_playout(kernels), len(states[0].compact), kernels.max_actions, kernels.max_return
    )
    out = np.empty(len(states))
    values(np.array([s.compact for s in states], dtype=np.int64), new_rng_state(seed), out)
    return out


def _play(actions):
    state = TTT.new_initial_state()
    for action in actions:
        state = state.apply(action)
    return state


def test_playout_values_are_one_playout_each_from_the_side_to_move():
    x_wins = _play([0, 3, 1, 4, 5, 7, 6, 8])  # x to move fills 2: the top row
    o_wins = _play([0, 3, 2, 4, 6, 7, 8])  # o to move: 1 or 5, each completes an o line
    draw = _play([0, 2, 1, 3, 5, 4, 6, 8])  # x to move fills 7: no line
    assert (x_wins.current_player(), o_wins.current_player(), draw.current_player()) == (0, 1, 0)
    out = _values(TTT, [x_wins, o_wins, draw], seed=0)
    assert list(out) == [1.0, 1.0, 0.0]  # a win for each side to move, from both seats, and the draw


def test_playout_values_replay_the_playouts_one_by_one():
    states = [TTT.new_initial_state(), _play([4]), _play([4, 0])]
    kernels = TTT.kernels
    playout, rng = make_buffered_playout(kernels), new_rng_state(7)
    actions, probs = np.empty(kernels.max_actions, dtype=np.int64), np.empty(kernels.max_actions)
    expected = []
    for state in states:
        end, _ = playout(state.compact, rng, actions, probs)
        expected.append(end[1] if state.current_player() == 0 else -end[1])
    assert list(_values(TTT, states, seed=7)) == expected


class _Constant(Evaluator):
    def value(self, state):
        return 0.2

    def policy(self, state):
        return np.full(TTT.num_actions, 1.0 / TTT.num_actions)


@pytest.mark.parametrize("mix, expected", [(0.0, 0.2), (0.5, 0.6), (1.0, 1.0)])
def test_the_mixed_value_weighs_the_evaluator_and_the_playout_by_mix(mix, expected):
    won = _play([0, 3, 1, 4, 5, 7, 6, 8])
    mixed = PlayoutMixEvaluator(TTT, _Constant(), make_buffered_playout(TTT.kernels), mix=mix, seed=0)
    values, priors = mixed.evaluate_batch([won, won])
    assert values == pytest.approx([expected, expected])
    assert priors is not None and np.allclose(priors, 1.0 / TTT.num_actions)
    with pytest.raises(ValueError, match="mix must be in"):
        PlayoutMixEvaluator(TTT, _Constant(), make_buffered_playout(TTT.kernels), mix=1.5)


def test_go_searches_with_rave_unless_told_and_mixes_a_network_with_the_playouts_it_names(tmp_path):
    torch = pytest.importorskip("torch")
    from rlgames.models import build_network, save_checkpoint
    from rlgames.models.evaluator import NetworkEvaluator

    torch.set_num_threads(1)
    go = rlgames.load_game("go", board_size=5)
    usual = rlgames.load_agent("mcts(simulations=50)", go)
    assert usual.config.rave and usual.evaluator is None
    assert not rlgames.load_agent("mcts(simulations=50, rave=false)", go).config.rave
    assert rlgames.load_agent("mcts(simulations=50, eval=heuristic)", go).evaluator is not None
    path = save_checkpoint(tmp_path / "go5.pt", network=build_network(go, blocks=1, channels=8, seed=0), game=go)
    alone = rlgames.load_agent(f"mcts(simulations=32, model={path})", go)
    assert type(alone.evaluator) is NetworkEvaluator and not alone.config.rave  # RAVE dropped with a network
    for rollout in ("light", "patterns"):
        agent = rlgames.load_agent(f"mcts(simulations=32, model={path}, rollout={rollout}, seed=1)", go)
        assert isinstance(agent.evaluator, PlayoutMixEvaluator) and agent.evaluator.mix == 0.5
        state = go.new_initial_state()
        result = agent.search(state)
        assert result.action in state.legal_actions() and -1.0 <= result.value <= 1.0
    with pytest.raises(AgentSpecError, match="give one of rave= or model=, not both"):
        rlgames.load_agent(f"mcts(model={path}, rave=true)", go)
