"""A ResNet's forward with its batch norms folded (`rlgames.models.folded`, what `NetworkEvaluator` runs)
against the `torch.nn.Module` forward, side by side, per shipped ResNet checkpoint and batch size.

Each round times ``--calls`` forwards of the same random batch (one torch thread, CPU time by
``time.thread_time``), the module and the folded copy taking turns, ``--runs`` rounds; the ratio is per
round, then the median. The largest difference between their outputs is reported too::

    python benchmarks/bench_folded.py --runs 5 --json benchmarks/results/folded.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

import rlgames
from rlgames.models.checkpoint import load_network
from rlgames.models.folded import fold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, command_line, save_json

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = {
    "go9.pt": ("go", {"board_size": 9}),
    "connect_four.pt": ("connect_four", {}),
    "othello.pt": ("othello", {}),
}


def seconds_per_call(forward: Callable[..., Any], inputs: tuple[torch.Tensor, ...], calls: int) -> float:
    start = time.thread_time()
    for _ in range(calls):
        forward(*inputs)
    return (time.thread_time() - start) / calls


def measure(name: str, batch: int, runs: int, calls: int, seed: int) -> dict[str, Any]:
    game_name, params = CHECKPOINTS[name]
    game = rlgames.load_game(game_name, **params)
    network, _ = load_network(ROOT / "checkpoints" / name, game)
    network.eval()
    folded = fold(network)
    generator = torch.Generator().manual_seed(seed)
    inputs = (
        torch.rand(batch, *network.config.observation_shape, generator=generator),
        torch.ones(batch, game.num_actions, dtype=torch.bool),
    )
    module_s, folded_s = [], []
    with torch.inference_mode():
        (logits, value), (f_logits, f_value) = network(*inputs), folded(*inputs)
        difference = max(float((logits - f_logits).abs().max()), float((value - f_value).abs().max()))
        seconds_per_call(network, inputs, 10), seconds_per_call(folded, inputs, 10)  # warm up oneDNN
        for _ in range(runs):
            module_s.append(seconds_per_call(network, inputs, calls))
            folded_s.append(seconds_per_call(folded, inputs, calls))
    return {
        "checkpoint": name,
        "network": network.config.describe(),
        "batch": batch,
        "module_ms": 1e3 * statistics.median(module_s),
        "folded_ms": 1e3 * statistics.median(folded_s),
        "ratio": statistics.median(m / f for m, f in zip(module_s, folded_s)),
        "max_difference": difference,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,8,32,256", help="batch sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="rounds of each forward")
    parser.add_argument("--calls", type=int, default=100, help="forwards a round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    machine = announce(argv)
    rows = []
    print("| checkpoint | batch | module ms/forward | folded ms/forward | speed-up | max difference |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in CHECKPOINTS:
        for batch in (int(b) for b in args.batches.split(",")):
            row = measure(name, batch, args.runs, max(1, args.calls * 8 // max(batch, 8)), args.seed)
            rows.append(row)
            print(
                f"| {name} | {batch} | {row['module_ms']:.3f} | {row['folded_ms']:.3f} | {row['ratio']:.2f}x "
                f"| {row['max_difference']:.1e} |",
                flush=True,
            )
    if args.json:
        save_json(args.json, {"command": command_line(__file__, argv), "machine": machine, "rows": rows})


if __name__ == "__main__":
    main()
