"""The shipped NNUE checkpoints compute what they computed when they were measured, at positions of seeded
random games, against the values recorded in `tests/data/nnue_values.json` (written with f62f4f3, before
the feature sets had names, from the checkpoints' ``threats`` levels): the compiled kernel to the last
bit, and alpha-beta at depth 2 (chess's accumulators updated move by move) to float32 rounding. The
incremental kernels are compiled with ``fastmath`` and inlined into the search, so LLVM may sum their
float32 rows in another order when the search around them compiles differently (a changed stack
buffer, another inlining): their last bits follow the search's code, not the network's
(`docs/research/structure.md`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.search import AlphaBeta, AlphaBetaConfig

ROOT = Path(__file__).resolve().parents[1]
RECORD = json.loads((ROOT / "tests" / "data" / "nnue_values.json").read_text())


@pytest.mark.parametrize("name", sorted(RECORD))
def test_shipped_nnue_values_are_bit_identical(name):
    game = rlgames.load_game(name)
    evaluator = load_evaluator("model", game, path=ROOT / "checkpoints" / f"{name}.nnue.pt")
    search = AlphaBeta(evaluator, AlphaBetaConfig(depth=2, tt_size_mb=0.25))
    for entry in RECORD[name]:
        state = game.state_from_actions(entry["actions"])
        assert float(evaluator.kernel(state.compact)).hex() == entry["kernel"], entry["actions"]
        assert search.search(state).value == pytest.approx(float.fromhex(entry["search"]), abs=1e-6), entry["actions"]
