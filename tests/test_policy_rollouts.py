"""AlphaGo-style leaf evaluation: rollouts sampled from a policy, mixed with a value head."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rlgames
from rlgames.models.rollout import PolicyRolloutEvaluator
from rlgames.agents.policy import sample_actions
from rlgames.evaluators.base import Evaluator, ZeroEvaluator

torch.set_num_threads(1)

TTT = rlgames.load_game("tic_tac_toe")
PIG = rlgames.load_game("pig", winscore=10)
TTT_MODEL = "checkpoints/tic_tac_toe.pt"


class FirstLegal(Evaluator):
    """A constant value and a policy putting all its mass on the lowest legal action."""

    def __init__(self, constant: float = 0.0) -> None:
        self.constant = constant
        self.calls = 0

    def value(self, state):
        return self.constant

    def policy(self, state):
        prior = np.zeros(state.game.num_actions)
        prior[state.legal_actions()[0]] = 1.0
        return prior

    def evaluate_batch(self, states):
        self.calls += 1
        return super().evaluate_batch(states)


def test_sample_actions_follows_the_tempered_policy_and_never_draws_an_illegal_action():
    rng = np.random.default_rng(0)
    priors = np.tile([0.0, 0.2, 0.0, 0.8], (40_000, 1))
    draws = sample_actions(priors, 1.0, rng)
    assert set(np.unique(draws)) == {1, 3}
    assert np.mean(draws == 3) == pytest.approx(0.8, abs=0.01)
    sharper = sample_actions(priors, 0.5, rng)  # weights 0.04 : 0.64
    assert np.mean(sharper == 3) == pytest.approx(0.64 / 0.68, abs=0.01)
    assert sample_actions(np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]]), 0.0, rng).tolist() == [1, 0]


def test_first_legal_rollouts_give_the_exact_result_from_both_seats():
    # Lowest free cell every move: x 0, o 1, x 2, o 3, x 4, o 5, x 6, and x wins on the diagonal 2-4-6.
    evaluator = PolicyRolloutEvaluator(FirstLegal(), mix=1.0, temperature=0.0)
    start = TTT.new_initial_state()
    after_x = start.apply(0)  # o to move; the same playout continues: x still wins
    assert evaluator.rollout_results([start, after_x]).tolist() == [1.0, -1.0]
    drawn = TTT.state_from_actions([4, 0, 8, 2, 1, 7, 6, 3])  # x to move; 5 is the last cell: a draw
    assert evaluator.rollout_results([drawn]).tolist() == [0.0]


def test_values_mix_the_value_head_and_the_rollout_as_alphago():
    start = TTT.new_initial_state()
    for mix, expected in ((0.0, 0.3), (0.5, 0.65), (1.0, 1.0)):
        values, priors = PolicyRolloutEvaluator(FirstLegal(0.3), mix=mix, temperature=0.0).evaluate_batch([start])
        assert values[0] == pytest.approx(expected)
        assert priors[0].tolist() == [1.0] + [0.0] * 8


def test_rollouts_of_a_batch_share_one_network_call_per_ply():
    states = [TTT.state_from_actions(opening) for opening in ([], [4], [0, 4], [8, 4, 0])]
    lengths = []
    for state in states:
        alone = FirstLegal()
        PolicyRolloutEvaluator(alone, mix=1.0, temperature=0.0).rollout_results([state])
        lengths.append(alone.calls)
    together = FirstLegal()
    PolicyRolloutEvaluator(together, mix=1.0, temperature=0.0).rollout_results(states)
    assert together.calls == max(lengths) < sum(lengths)


def test_a_separate_rollout_policy_plays_the_rollouts_and_the_main_network_gives_priors():
    main = FirstLegal(0.0)
    uniform = ZeroEvaluator()  # uniform priors
    evaluator = PolicyRolloutEvaluator(main, rollout=uniform, mix=1.0, seed=3)
    values = evaluator.rollout_results([TTT.new_initial_state()] * 200)
    assert len(set(values.tolist())) == 3  # random games: wins, draws and losses
    assert evaluator.evaluate_batch([TTT.new_initial_state()])[1][0][0] == 1.0  # main network's prior


def test_rollouts_through_chance_nodes_are_reproducible_from_the_seed():
    states = [PIG.state_at(5, 7, turn_total=2, turn=1), PIG.state_at(0, 0)]
    first = PolicyRolloutEvaluator(ZeroEvaluator(), mix=1.0, seed=7)
    runs = [first.rollout_results(states * 50) for _ in range(2)]
    first.seed(7)
    assert first.rollout_results(states * 50).tolist() == runs[0].tolist()
    assert runs[0].tolist() != runs[1].tolist()
    assert set(runs[0].tolist()) <= {-1.0, 0.0, 1.0} and len(set(runs[0].tolist())) > 1


def test_bad_mix_and_temperature_are_refused():
    with pytest.raises(ValueError, match="mix must be in"):
        PolicyRolloutEvaluator(FirstLegal(), mix=1.5)
    with pytest.raises(ValueError, match="temperature must be non-negative"):
        PolicyRolloutEvaluator(FirstLegal(), temperature=-1)


def test_mcts_specs_with_policy_rollouts_find_the_winning_move():
    # x: a1 b1 (cells 0, 1); o: a2 b2 (3, 4); x to move wins at c1 (2).
    state = TTT.state_from_actions([0, 3, 1, 4])
    for spec in (
        f"mcts(simulations=50, model={TTT_MODEL}, rollout=policy)",
        f"mcts(simulations=50, model={TTT_MODEL}, rollout_model={TTT_MODEL}, mix=1, solver=false)",
    ):
        agent = rlgames.load_agent(spec, TTT)
        assert isinstance(agent.evaluator, PolicyRolloutEvaluator)
        assert agent.act(state) == 2


def test_policy_rollouts_without_a_main_network_are_refused():
    with pytest.raises(ValueError, match="need the main network: model=FILE"):
        rlgames.load_agent("mcts(rollout=policy)", TTT)
    with pytest.raises(ValueError, match="need the main network"):
        rlgames.load_agent(f"mcts(rollout_model={TTT_MODEL})", TTT)
