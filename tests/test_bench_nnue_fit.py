"""benchmarks/bench_nnue_fit.py measures what it says: the hand-crafted evaluation's error against the
search values of the positions train.nnue would keep, and a network's beside it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from rlgames.train.nnue.config import PRESETS
from rlgames.train.nnue.data import evaluator_values

import rlgames
from rlgames.evaluators import load_evaluator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_nnue_fit import fit, held_out_positions, main  # noqa: E402


def test_the_positions_are_those_self_play_keeps_with_their_search_values():
    game = rlgames.load_game("connect_four")
    config = PRESETS["tic_tac_toe"]  # depth 2: quick
    states, values = held_out_positions(game, config, 2, seed=3)
    assert len(states) == len(values) > 10 and np.all(np.abs(values) <= 1)
    again, _ = held_out_positions(game, config, 2, seed=3)
    assert [s.compact for s in again] == [s.compact for s in states]  # seeded
    hand_crafted = evaluator_values(load_evaluator("heuristic", game), states)
    row = fit(hand_crafted, values, hand_crafted)
    assert row["mse_hand_crafted"] == 0 and row["mse_search"] == pytest.approx(np.mean((hand_crafted - values) ** 2))


def test_a_network_is_measured_beside_the_hand_crafted_evaluation(tmp_path, capsys):
    out = tmp_path / "fit.json"
    assert main(["tic_tac_toe", "--games", "3", "--models", "checkpoints/tic_tac_toe.pt", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert set(rows) == {"hand-crafted", "checkpoints/tic_tac_toe.pt"}
    assert rows["hand-crafted"]["mse_hand_crafted"] == 0 < rows["checkpoints/tic_tac_toe.pt"]["mse_hand_crafted"]
    assert "| checkpoints/tic_tac_toe.pt |" in capsys.readouterr().out


def test_a_missing_checkpoint_is_one_line_and_status_2(capsys):
    assert main(["tic_tac_toe", "--models", "no/such.pt"]) == 2
    assert "no/such.pt" in capsys.readouterr().err
