"""The connect four benchmarks measure what they say: eval_connect_four.py's per-move record of the raw
policy counts the positions whose labelled keeping moves include the network's most probable move, part by
part; eval_connect_four_targets.py rebuilds the position a replay's observation shows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import rlgames
from rlgames.analysis import position_state
from rlgames.arena.positions import read_position_file
from rlgames.models import NetworkEvaluator

from evaluator_checks import random_states

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from eval_connect_four import POSITIONS, main  # noqa: E402
from eval_connect_four_targets import state_of  # noqa: E402

CHECKPOINT = str(Path(__file__).resolve().parents[1] / "checkpoints" / "connect_four.pt")


def test_the_policy_record_counts_the_kept_positions(tmp_path):
    out = tmp_path / "record.json"
    main([CHECKPOINT, "--only", "per-move-policy", "--limit", "40", "--json", str(out)])
    record = json.loads(out.read_text())["measurements"]["per-move-policy"]

    game = rlgames.load_game("connect_four")
    lines = read_position_file(str(POSITIONS), game)[:40]
    evaluator = NetworkEvaluator.from_checkpoint(CHECKPOINT, game)
    kept = {-1: 0, 0: 0, 1: 0}
    for line in lines:
        state = position_state(game, line)
        kept[line.value] += int(np.argmax(evaluator.policy(state))) in line.keeps
    assert record["all"] == {"kept": sum(kept.values()), "of": 40, "share": round(sum(kept.values()) / 40, 4)}
    assert record["drawn"]["kept"] == kept[0] and record["decisive"]["kept"] == kept[1] + kept[-1]
    assert sum(stage["of"] for stage in record["stages"].values()) == 40
    assert record["met"] == (record["all"]["share"] >= record["target"] == 0.95)


def test_a_replay_observation_gives_back_its_position():
    game = rlgames.load_game("connect_four")
    for state in random_states(game, 50, seed=0, max_plies=29):
        assert state_of(game, state.observation(state.current_player())).compact == state.compact
