"""`python -m rlgames.train.td`: the compiled gradient equals torch's, a TD(lambda) episode equals its hand
computation, short runs learn (tic-tac-toe) and run (pig), a resumed run equals an uninterrupted one,
the checkpoint is an NNUE evaluator whose compiled kernel gives the trainer's values, and bad input is
one line with exit status 2."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from numba import njit
from rlgames.models.checkpoint import load_checkpoint, load_network, save_checkpoint
from rlgames.models.evaluator import NNUEvaluator
from rlgames.models.networks import NNUE, NetworkConfig, NNUEArgs, build_network
from rlgames.train import td
from rlgames.train.settings import ConfigError
from rlgames.train.td.kernels import (
    STATS,
    add_gradient,
    forward,
    layout,
    make_td_ops,
    new_scratch,
    no_heuristic,
    sparse_features,
)

import rlgames
from rlgames.game import TERMINAL, GameKernels
from rlgames.evaluators.outcomes import consistent
from rlgames.jit.rng import new_rng_state


def torch_outputs(params: np.ndarray, dims: tuple[int, int, int, int], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The outputs[K] of the network at ``x`` and each one's gradient [K, P] (flat, float64), by torch's
    autograd on `rlgames.models.networks.NNUE` (its tanh value, or its outcome probabilities)."""
    args = NNUEArgs(accumulator=dims[1], hidden=dims[2], outcomes=dims[3])
    network = NNUE(NetworkConfig("nnue", args, (dims[0],), 1)).double()
    network.load_state_dict(td.value_path(params, dims), strict=False)
    obs = torch.from_numpy(x.astype(np.float64))[None]
    outputs = network.outcomes(obs)[0] if dims[3] else network(obs)[1]
    values, grads = [], []
    for output in outputs:
        network.zero_grad()
        output.backward(retain_graph=True)
        parts = [
            network.accumulator.weight.grad.T,
            network.accumulator.bias.grad,
            network.hidden.weight.grad.T,
            network.hidden.bias.grad,
            network.value.weight.grad.T,
            network.value.bias.grad,
        ]
        values.append(float(output.detach()))
        grads.append(np.concatenate([g.reshape(-1).numpy() for g in parts]))
    return np.array(values), np.array(grads)


def torch_value(params: np.ndarray, dims: tuple[int, int, int, int], x: np.ndarray) -> tuple[float, np.ndarray]:
    """V(x) and dV/dparams of the tanh head (`torch_outputs`)."""
    values, grads = torch_outputs(params, dims, x)
    return float(values[0]), grads[0]


def random_decisions(game: rlgames.Game, count: int, seed: int) -> list[rlgames.State]:
    """``count`` decision states of one random game (fewer if it ends first)."""
    rng = np.random.default_rng(seed)
    states, state = [], game.new_initial_state()
    while len(states) < count and not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            states.append(state)
            state = state.apply(int(rng.choice(state.legal_actions())))
    return states


@pytest.mark.parametrize("points", [0, 3])
def test_gradient_equals_torch_autograd(points: int) -> None:
    """Each output's gradient (the tanh value's, or each of the five outcome probabilities' of a game
    scored up to 3 points), and the value the outputs make (`rlgames.evaluators.outcomes.outcome_value`)."""
    dims = (30, 12, 6, points)
    rng = np.random.default_rng(0)
    params = rng.uniform(-0.5, 0.5, layout(dims)[5])
    k_out = 2 * points - 1 if points else 1
    for _ in range(5):
        x = (rng.random(dims[0]) < 0.3) * rng.uniform(0.2, 1.0, dims[0])  # sparse, as observations are
        sc = new_scratch(params, dims)
        sc[0][:] = x
        nnz = sparse_features(sc[0], sc[1], sc[2])
        value = forward(params, dims, sc[1], sc[2], nnz, sc[3])
        expected_outputs, expected_grads = torch_outputs(params, dims, x.astype(np.float32))
        np.testing.assert_allclose(sc[3][6][:k_out], expected_outputs, atol=1e-6)
        for m in range(k_out):
            grad = np.zeros_like(params)
            add_gradient(params, grad, dims, np.eye(k_out)[m], sc[1], sc[2], nnz, sc[3])
            np.testing.assert_allclose(grad, expected_grads[m], atol=1e-6)
        assert np.count_nonzero(expected_grads.any(axis=0)) > len(params) // 10  # units on: the check has teeth
        if points:
            network = NNUE(NetworkConfig("nnue", NNUEArgs(12, 6, outcomes=points), (30,), 1)).double()
            network.load_state_dict(td.value_path(params, dims), strict=False)
            with torch.no_grad():
                expected_value = float(network(torch.from_numpy(x)[None])[1])
        else:
            expected_value = expected_outputs[0]
        assert value == pytest.approx(expected_value, abs=1e-6)


# A forced three-turn game: player 0, player 1 and player 0 each have one move, and player 0 wins.
# Afterstates: a0 (player 1 to move), a1 (player 0 to move), then the terminal state.
@njit
def _line_legal(s, out):
    if s[0] == TERMINAL:
        return 0
    out[0] = 0
    return 1


@njit
def _line_apply(s, action):
    return (TERMINAL, 1, 3) if s[2] == 2 else (1 - s[0], 0, s[2] + 1)


@njit
def _line_hash(s):
    return s[2]


@njit
def _line_observation(s, player, out):
    out[s[2], 0] = 1.0
    out[3, player] = 1.0


LINE = GameKernels(
    legal_actions=_line_legal, apply=_line_apply, hash_key=_line_hash, observation=_line_observation, max_actions=1
)


def line_features(step: int, player: int) -> np.ndarray:
    x = np.zeros((4, 2), dtype=np.float32)
    x[step, 0] = x[3, player] = 1.0
    return x.ravel()


def test_td_lambda_equals_a_hand_computation() -> None:
    dims, alpha, lam = (8, 6, 4, 0), 0.3, 0.7
    params = np.random.default_rng(1).uniform(-0.6, 0.6, layout(dims)[5])
    # by hand: a0 is observed by player 1 (sign -1), a1 by player 0 (sign +1)
    w = params.copy()
    v0, g0 = torch_value(w, dims, line_features(1, 1))
    v1, _ = torch_value(w, dims, line_features(2, 0))
    delta0 = -v1 - v0  # a1's value turned to player 1's point of view
    trace = -g0
    w = w + alpha * -1 * delta0 * trace
    v1, g1 = torch_value(w, dims, line_features(2, 0))
    delta1 = 1.0 - v1  # player 0 wins: the return for a1's observer
    trace = lam * trace + g1
    w = w + alpha * delta1 * trace

    ops = make_td_ops(LINE, (4, 2), (0, 0, 0), no_heuristic)
    stats = np.zeros(len(STATS))
    trained = params.copy()
    ops.train(trained, dims, new_rng_state(0), 1, alpha, lam, 0.0, 0.0, stats)
    np.testing.assert_allclose(trained, w, atol=1e-9)
    assert dict(zip(STATS, stats))["td_steps"] == 2
    assert dict(zip(STATS, stats))["abs_delta"] == pytest.approx(abs(delta0) + abs(delta1))


# The same line scored in whole points: player 0 wins 2 of at most 2 (a gammon, say).
LINE2 = LINE._replace(apply=njit(lambda s, action: (TERMINAL, 2, 3) if s[2] == 2 else (1 - s[0], 0, s[2] + 1)))
LINE2 = LINE2._replace(max_return=2)


def test_td_lambda_of_outcome_probabilities_equals_a_hand_computation() -> None:
    """Three outputs (P(win), P(win by 2), P(lose by 2)), each with its own trace, in player 0's terms:
    player 1's afterstate a0 reads P0(win) = 1 - its P(win), P0(win by 2) = its P(lose by 2), and so on."""
    dims, alpha, lam = (8, 6, 4, 2), 0.3, 0.7
    params = np.random.default_rng(2).uniform(-0.6, 0.6, layout(dims)[5])
    mirror = np.array([[-1, 0, 0], [0, 0, 1], [0, 1, 0]])  # player 0's outputs from player 1's, less constants
    w = params.copy()
    o0, g0 = torch_outputs(w, dims, line_features(1, 1))
    o1, _ = torch_outputs(w, dims, line_features(2, 0))
    as0 = np.array([1 - o0[0], o0[2], o0[1]])  # a0's outputs for player 0
    delta0 = o1 - as0  # a1 is player 0's: its outputs as they are
    traces = mirror @ g0
    w = w + alpha * delta0 @ traces
    o1, g1 = torch_outputs(w, dims, line_features(2, 0))
    delta1 = np.array([1.0, 1.0, 0.0]) - o1  # player 0 won by 2
    traces = lam * traces + g1
    w = w + alpha * delta1 @ traces

    ops = make_td_ops(LINE2, (4, 2), (0, 0, 0), no_heuristic)
    trained = params.copy()
    ops.train(trained, dims, new_rng_state(0), 1, alpha, lam, 0.0, 0.0, np.zeros(len(STATS)))
    np.testing.assert_allclose(trained, w, atol=1e-9)


@pytest.fixture(scope="module")
def tic_tac_toe_run(tmp_path_factory) -> td.Run:
    out = tmp_path_factory.mktemp("ttt")
    config = dataclasses.replace(td.PRESETS["tic_tac_toe"], games=3000, eval_every=3000, eval_games=200)
    run = td.Run(rlgames.load_game("tic_tac_toe"), config, out, resume=False, echo=lambda line: None)
    run.run()
    return run


def test_a_short_tic_tac_toe_run_beats_random_play(tic_tac_toe_run: td.Run) -> None:
    run = tic_tac_toe_run
    results = td.evaluate(run.game, run.ops, run.params, run.params, run.dims, run.config, step=99)
    # an untrained net, which takes the wins in one that it sees, scores 0.70-0.80 (seeds 0-2)
    assert results["random"]["score_low"] > 0.8
    untrained = td.initial_params(run.dims, run.config)
    before = td.evaluate(run.game, run.ops, untrained, untrained, run.dims, run.config, step=99)
    assert results["random"]["score"] > before["random"]["score"] + 0.05


def test_evaluation_games_split_among_workers_give_the_same_results(tic_tac_toe_run: td.Run) -> None:
    """Each pair of evaluation games has its own seed: two processes (`rlgames.parallel`) playing the pairs
    between them give the results of one."""
    run = tic_tac_toe_run
    untrained = td.initial_params(run.dims, run.config)
    here = td.evaluate(run.game, run.ops, run.params, untrained, run.dims, run.config, step=7)
    apart = td.evaluate(run.game, run.ops, run.params, untrained, run.dims, run.config, step=7, workers=2)
    assert apart == here and set(here) == {"heuristic", "previous", "random"}


def test_the_checkpoint_is_an_nnue_evaluator_with_the_trainers_values(tic_tac_toe_run: td.Run) -> None:
    run = tic_tac_toe_run
    network, info = load_network(run.out / td.CHECKPOINT, run.game)
    assert info.counters["games"] == 3000
    np.testing.assert_array_equal(td.from_network(network), run.params)
    evaluator = NNUEvaluator(network, run.game)
    states = [run.game.state_from_actions(actions) for actions in ([], [4], [4, 0], [0, 1, 2, 3, 4])]
    compiled = np.array([evaluator.kernel(state.compact) for state in states])
    ours = run.ops.values(run.params, run.dims, np.array([state.compact for state in states]))
    np.testing.assert_allclose(compiled, ours, atol=1e-5)
    np.testing.assert_allclose(evaluator.evaluate_batch(states)[0], ours, atol=1e-5)
    assert np.ptp(ours) > 0.1


@pytest.mark.slow  # a training run (about 17 s)
def test_pig_trains_and_its_net_scores_chance_nodes(tmp_path, capsys) -> None:
    out = tmp_path / "pig"
    assert td.main(["pig", "--preset", "smoke", "--out", str(out), "--set", "eval_opening_turns=0"]) == 0
    assert "games 200/200" in capsys.readouterr().out
    game = rlgames.load_game("pig")
    network, _ = load_network(out / td.CHECKPOINT, game)
    chance = game.state_at(10, 20, 8, turn=1, chance=True)
    evaluator = NNUEvaluator(network, game)
    params = td.from_network(network)
    ours = td.compile_ops(game).values(params, td.network_dims(game, td.PRESETS["smoke"]), np.array([chance.compact]))
    assert evaluator.kernel(chance.compact) == pytest.approx(ours[0], abs=1e-5)


def brute_force_afterstates(state: rlgames.State) -> set[tuple]:
    """The states after every way to finish the turn of the side to move, by the Python API."""
    player, found = state.current_player(), set()

    def walk(position: rlgames.State) -> None:
        for action in position.legal_actions():
            child = position.apply(action)
            if child.current_player() == player:
                walk(child)
            else:
                found.add(child.compact)

    walk(state)
    return found


def test_a_pig_turn_ends_at_the_roll_or_the_stop() -> None:
    game = rlgames.load_game("pig")
    state = game.state_at(30, 40, 12, turn=1)
    afterstates = td.compile_ops(game).afterstates(state.compact)
    assert {tuple(row) for row in afterstates.tolist()} == brute_force_afterstates(state)
    assert sorted(row[0] for row in afterstates.tolist()) == [-1, 0]  # a chance node, player 0's decision


@pytest.mark.slow
def test_backgammon_turns_and_chance_node_values() -> None:
    game = rlgames.load_game("backgammon")
    ops = td.compile_ops(game)
    rng = np.random.default_rng(0)
    config = td.PRESETS["backgammon"]
    dims = td.network_dims(game, config)
    params = td.initial_params(dims, config)
    evaluator = NNUEvaluator(td.to_network(params, dims, game, seed=0), game)
    checked_doubles = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state = state.apply(int(rng.choice(outcomes)))
                continue
            afterstates = ops.afterstates(state.compact)
            rows = {tuple(row) for row in afterstates.tolist()}
            assert len(rows) == len(afterstates)  # each afterstate once, though moves reach it in any order
            if len(afterstates) < 400:  # brute force is slow on the largest doubles turns
                assert rows == brute_force_afterstates(state)
                checked_doubles += any(
                    game.kernels.apply(state.compact, a)[0] == state.current_player() for a in state.legal_actions()
                )
            chance = [row for row in afterstates if row[0] == -1][:3]
            if chance:
                ours = ops.values(params, dims, np.array(chance))
                compiled = [evaluator.kernel(tuple(row)) for row in chance]
                np.testing.assert_allclose(compiled, ours, atol=1e-5)
            state = state.apply(int(rng.choice(state.legal_actions())))
    assert checked_doubles > 5


@pytest.mark.slow
def test_backgammon_trains(tmp_path, capsys) -> None:
    out = tmp_path / "bg"
    assert (
        td.main(
            [
                "backgammon",
                "--preset",
                "smoke",
                "--out",
                str(out),
                "--set",
                "eval_opening_turns=0",
                "--set",
                'opponent="pubeval"',
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "games 200/200" in printed and "vs pubeval " in printed
    game = rlgames.load_game("backgammon")
    agent = rlgames.load_agent(f"expectiminimax(depth=2, model={out / td.CHECKPOINT})", game)
    state = game.new_initial_state().apply(0)  # player 0 opens with 2-1
    assert agent.act(state) in state.legal_actions()


def test_resume_equals_an_uninterrupted_run(tmp_path) -> None:
    straight, split = tmp_path / "straight", tmp_path / "split"
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "3"]
    assert td.main([*args, "--out", str(straight)]) == 0
    assert td.main([*args, "--out", str(split), "--games", "100"]) == 0
    assert load_checkpoint(split / td.CHECKPOINT).counters["games"] == 100
    assert td.main([*args, "--out", str(split), "--resume"]) == 0
    a, b = load_checkpoint(straight / td.CHECKPOINT), load_checkpoint(split / td.CHECKPOINT)
    assert a.counters == b.counters and a.counters["games"] == 200
    assert all(torch.equal(a.model_state[k], b.model_state[k]) for k in a.model_state)
    assert not torch.equal(
        a.model_state["value.weight"],
        build_network(rlgames.load_game("tic_tac_toe"), "nnue", seed=3, accumulator=8, hidden=4).value.weight,
    )


def test_a_run_can_start_from_another_runs_weights(tmp_path) -> None:
    first = tmp_path / "first"
    assert td.main(["tic_tac_toe", "--preset", "smoke", "--games", "100", "--out", str(first)]) == 0
    game = rlgames.load_game("tic_tac_toe")
    config = dataclasses.replace(td.PRESETS["smoke"], init=str(first / td.CHECKPOINT), alpha=0.01)
    second = td.Run(game, config, tmp_path / "second", resume=False, echo=lambda line: None)
    network, _ = load_network(first / td.CHECKPOINT, game)
    np.testing.assert_array_equal(second.params, td.from_network(network))
    assert second.games == 0
    with pytest.raises(ConfigError, match="not a TD network of 9 \\+ 4 units"):
        td.Run(game, dataclasses.replace(config, accumulator=9), tmp_path / "third", resume=False)


@pytest.mark.parametrize(
    "args, message",
    [
        (["no_such_game"], "no_such_game"),
        (["tic_tac_toe", "--preset", "nope"], "unknown preset"),
        (["tic_tac_toe", "--set", "alhpa=0.1"], "unknown setting 'alhpa'"),
        (["tic_tac_toe", "--set", "alpha=fast"], "--set"),
        (["tic_tac_toe", "--set", "lam=2"], "lam"),
        (["tic_tac_toe", "--set", 'opponent="pubeval"'], "unknown evaluator 'pubeval'"),
        (["tic_tac_toe", "--resume"], "no such checkpoint"),
        (["tic_tac_toe", "--set", 'init="missing.pt"'], "missing.pt"),
        (["tic_tac_toe", "--set", 'inputs="expert"'], "tic_tac_toe has no encoding 'expert'"),
        (["tic_tac_toe", "--resume", "CORRUPT"], "SHA-256"),
        (["tic_tac_toe", "EXISTS"], "already holds a run"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args, message) -> None:
    out = tmp_path / "run"
    if "CORRUPT" in args or "EXISTS" in args:
        # A run's first checkpoint, written before it plays (its kernels compile at their first game).
        td.Run(rlgames.load_game("tic_tac_toe"), td.PRESETS["smoke"], out, resume=False).save(out / td.CHECKPOINT)
        data = bytearray((out / td.CHECKPOINT).read_bytes())
        if "CORRUPT" in args:
            data[len(data) // 2] ^= 0xFF
        (out / td.CHECKPOINT).write_bytes(bytes(data))
        args = [arg for arg in args if arg not in ("CORRUPT", "EXISTS")]
        capsys.readouterr()
    assert td.main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_an_outcome_network_is_an_nnue_evaluator_with_the_trainers_values() -> None:
    """Backgammon at full scoring with five outcome probabilities: the compiled evaluator, torch's network
    and the trainer's kernels give the same values, and the checkpoint's head is the expected return."""
    game = rlgames.load_game("backgammon", scoring_type="full_scoring")
    config = dataclasses.replace(td.PRESETS["backgammon_full"], accumulator=12, hidden=8, init_range=0.5)
    dims = td.network_dims(game, config)
    assert dims[3] == 3
    params = td.initial_params(dims, config)
    network = td.to_network(params, dims, game, seed=0)
    np.testing.assert_array_equal(td.from_network(network), params)
    states = random_decisions(game, 12, seed=1)
    ours = td.compile_ops(game, "pubeval").values(params, dims, np.array([s.compact for s in states]))
    evaluator = NNUEvaluator(network, game)
    compiled = np.array([evaluator.kernel(s.compact) for s in states])
    np.testing.assert_allclose(compiled, ours, atol=1e-5)
    np.testing.assert_allclose(evaluator.evaluate_batch(states)[0], ours, atol=1e-5)
    assert np.ptp(ours) > 0.01
    probabilities = evaluator.outcomes(states)
    assert probabilities.shape == (12, 5) and ((0 < probabilities) & (probabilities < 1)).all()
    named = [consistent(p, 3) for p in probabilities]
    equity = [n["win"] + n["win_2"] + n["win_3"] - n["lose"] - n["lose_2"] - n["lose_3"] for n in named]
    np.testing.assert_allclose(np.array(equity) / 3, ours, atol=1e-5)


def test_outcomes_start_from_a_one_value_network_with_its_values() -> None:
    """A win/loss network going on at full scoring: P(win) from its tanh value, the gammons and backgammons
    at the same small chance on both sides, so the equity is its value and a full-scoring value a third."""
    winloss, full = rlgames.load_game("backgammon"), rlgames.load_game("backgammon", scoring_type="full_scoring")
    config = dataclasses.replace(td.PRESETS["backgammon"], accumulator=12, hidden=8, init_range=0.5)
    value_dims = td.network_dims(winloss, config)
    value_params = td.initial_params(value_dims, config)
    outcome_dims = td.network_dims(full, dataclasses.replace(config, outcomes=True))
    params = td.outcomes_from_value(td.to_network(value_params, value_dims, winloss, seed=0), outcome_dims)
    states = np.array([winloss.state_from_moves(moves).compact for moves in ("31; 8/5 6/5", "64; 24/18 13/9", "21")])
    ops = td.compile_ops(full, "pubeval")
    before = ops.values(value_params, value_dims, states)
    np.testing.assert_allclose(ops.values(params, outcome_dims, states), before / 3, atol=1e-5)
    assert np.ptp(before) > 0.01


@pytest.mark.parametrize(  # expert_escapes (the shipped network's) extends expert, which the product runs
    "inputs", [pytest.param("expert", marks=pytest.mark.slow), "expert_escapes"]
)
def test_an_expert_network_is_an_nnue_evaluator_with_the_trainers_values(tmp_path, inputs) -> None:
    """A network of backgammon's ``expert`` encoding (or ``expert_escapes``): the trainer's kernels, the
    compiled evaluator and torch give the same values, before and after a checkpoint."""
    game = rlgames.load_game("backgammon", scoring_type="full_scoring")
    config = dataclasses.replace(td.PRESETS["backgammon_full"], inputs=inputs, accumulator=12, hidden=8, init_range=0.5)
    dims = td.network_dims(game, config)
    assert dims[0] == game.encodings[inputs].size > int(np.prod(game.observation_shape))
    params = td.initial_params(dims, config)
    states = random_decisions(game, 12, seed=2)
    ours = td.compile_ops(game, "pubeval", inputs).values(params, dims, np.array([s.compact for s in states]))
    assert np.ptp(ours) > 0.01
    network = td.to_network(params, dims, game, seed=0, inputs=inputs)
    save_checkpoint(tmp_path / "expert.pt", network=network, game=game)
    loaded, _ = load_network(tmp_path / "expert.pt", game)
    for net in (network, loaded):
        evaluator = NNUEvaluator(net, game)
        np.testing.assert_allclose([evaluator.kernel(s.compact) for s in states], ours, atol=1e-5)
        np.testing.assert_allclose(evaluator.evaluate_batch(states)[0], ours, atol=1e-5)


def test_an_expert_network_starts_from_an_observation_network_with_its_values(tmp_path) -> None:
    """``init`` of a network reading the observation into one reading ``expert`` (which extends it): the new
    inputs' rows start at 0, so the values are the old network's until TD teaches them."""
    game = rlgames.load_game("backgammon", scoring_type="full_scoring")
    config = dataclasses.replace(td.PRESETS["backgammon_full"], init="", accumulator=12, hidden=8, init_range=0.5)
    dims = td.network_dims(game, config)
    params = td.initial_params(dims, config)
    save_checkpoint(tmp_path / "raw.pt", network=td.to_network(params, dims, game, seed=0), game=game)
    expert = dataclasses.replace(config, inputs="expert", init=str(tmp_path / "raw.pt"))
    run = td.Run(game, expert, tmp_path / "run", resume=False, echo=lambda line: None)
    states = np.array([s.compact for s in random_decisions(game, 12, seed=3)])
    before = td.compile_ops(game, "pubeval").values(params, dims, states)
    np.testing.assert_allclose(run.ops.values(run.params, run.dims, states), before, atol=1e-6)
    with pytest.raises(ConfigError, match="reading expert or the observation"):
        td.Run(game, dataclasses.replace(expert, hidden=9), tmp_path / "other", resume=False)
