"""The shipped NNUE checkpoints compute what they computed when they were measured, at positions of seeded
random games, against the values recorded in `tests/data/nnue_values.json`: the compiled kernel and
alpha-beta at depth 2 (chess's accumulators updated move by move), both to the last bit. The file was
first written with f62f4f3 and written again when the kernels stopped letting LLVM reassociate and fuse
their arithmetic (`rlgames.evaluators.nnue.FASTMATH`, docs/research/reproducibility.md): the values moved
by at most 9e-7 (a few float32 units in the last place), and since then they no longer depend on how the
search around a kernel compiles or whether it came from numba's cache. Checkers' values were added on
2026-12-03 (the other games' recorded again, bit for bit the same). These searches are also where the
shipped NNUEs play inside alpha-beta in the default suite (tests/test_checkpoints.py)."""

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
        assert float(search.search(state).value).hex() == entry["search"], entry["actions"]
