"""bfloat16 arithmetic (`rlgames.models.precision`): settled per machine, refused when misnamed, and within
bfloat16's rounding of float32 wherever a network runs in it (the evaluator, the learner, self-play's workers)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from rlgames.models import NetworkEvaluator, build_network
from rlgames.models.precision import PRECISIONS, native_bfloat16, settle
from rlgames.train.alphazero.config import load_config, settle_for_device
from rlgames.train.alphazero.learner import Learner, make_optimizer
from rlgames.train.alphazero.selfplay import _worker_setup
from rlgames.train.alphazero.trainer import Trainer
from rlgames.train.settings import ConfigError
from test_models import random_states
from test_train import solver_batch, states_after_random_play

import rlgames
from rlgames.parallel import game_recipe

ROOT = Path(__file__).resolve().parents[1]
C4 = rlgames.load_game("connect_four")
TTT = rlgames.load_game("tic_tac_toe")


def test_auto_settles_to_bfloat16_only_where_the_hardware_multiplies_it() -> None:
    assert settle("auto", "cpu") == ("bfloat16" if native_bfloat16("cpu") else "float32")
    assert [settle(name, "cpu") for name in PRECISIONS] == list(PRECISIONS)
    with pytest.raises(ValueError, match="precision must be one of float32, bfloat16, auto, got 'half'"):
        settle("half", "cpu")
    with pytest.raises(ValueError, match="precision must be one of float32, bfloat16, got 'auto'"):
        NetworkEvaluator(build_network(C4, seed=0, blocks=1, channels=8), C4, precision="auto")  # settle it first


def test_a_run_records_its_settled_arithmetic_and_refuses_a_misnamed_one(tmp_path: Path) -> None:
    config = load_config("smoke", precision="auto", iterations=1)
    settled = settle_for_device(config, "cpu").precision
    assert settled == settle("auto", "cpu")
    trainer = Trainer(TTT, config, tmp_path, echo=lambda line: None)
    assert trainer.config.precision == trainer.evaluator.precision == trainer.learner.precision == settled
    assert json.loads((tmp_path / "run.json").read_text())["config"]["precision"] == settled
    with pytest.raises(ConfigError, match="precision must be one of float32, bfloat16 or 'auto', got 'half'"):
        load_config("smoke", precision="half")


def test_bfloat16_values_and_priors_are_the_float32_ones_to_its_rounding() -> None:
    """The shipped connect four network on 64 positions of random play: values within 0.05 (bfloat16 keeps 8
    bits of mantissa through four residual blocks), priors still a distribution over the legal moves, and
    the most likely move the same in nearly every position."""
    states = random_states(C4, np.random.default_rng(0), 64, 20)
    path = ROOT / "checkpoints" / "connect_four.pt"
    values32, priors32 = NetworkEvaluator.from_checkpoint(path, C4).evaluate_batch(states)
    values16, priors16 = NetworkEvaluator.from_checkpoint(path, C4, precision="bfloat16").evaluate_batch(states)
    assert values16.dtype == priors16.dtype == np.float64
    assert np.abs(values16 - values32).max() < 0.05 and np.abs(priors16 - priors32).max() < 0.05
    assert not np.array_equal(values16, values32)  # it did run in bfloat16
    legal = np.stack([state.legal_action_mask() for state in states]).astype(bool)
    assert np.all(priors16[~legal] == 0) and np.allclose(priors16.sum(axis=1), 1, atol=1e-12)
    assert np.mean(priors16.argmax(axis=1) == priors32.argmax(axis=1)) >= 0.95


def test_a_bfloat16_learner_keeps_float32_weights_and_learns_as_float32_does() -> None:
    """From the same weights the first losses agree to bfloat16's rounding; 150 steps on a fixed batch
    bring the value loss down as float32's do, the weights and their optimizer staying float32."""
    batch = solver_batch(states_after_random_play(TTT, np.random.default_rng(0), 64))
    config = load_config("tic_tac_toe").optim
    finals = {}
    for precision in PRECISIONS:
        network = build_network(TTT, "resnet", seed=0, blocks=1, channels=8)
        learner = Learner(network, make_optimizer(network, config), config, torch.device("cpu"), precision=precision)
        first = learner.step(batch)
        for _ in range(150):
            last = learner.step(batch)
        finals[precision] = (first, last)
        assert all(parameter.dtype == torch.float32 for parameter in network.parameters())
    (first32, last32), (first16, last16) = finals["float32"], finals["bfloat16"]
    assert first16.total == pytest.approx(first32.total, rel=0.02)
    assert last16.value < 0.3 * first16.value and last16.total < first16.total
    assert last16.total == pytest.approx(last32.total, rel=0.25, abs=0.05)


def test_self_play_workers_evaluate_in_the_trainers_arithmetic() -> None:
    network = build_network(C4, seed=0, blocks=1, channels=8)
    config = load_config("smoke").selfplay
    for precision in PRECISIONS:
        worker = _worker_setup(game_recipe(C4), config, network.config.to_dict(), precision)
        assert worker.evaluator.precision == precision
