"""A training iteration's two halves in float32 and in bfloat16 (`rlgames.models.precision`), side by side.

With a checkpoint (by default the shipped connect four model) and a preset's settings (by default
``connect_four``'s), each round runs, once in float32 and once in bfloat16, taking turns:

* self-play: `rlgames.train.alphazero.selfplay.play_games` in this process (one worker), ``--games``
  games at the preset's search, siblings and all (the siblings' exact proofs call no network, so they
  dilute the gain as they do in training);
* learning: ``--steps`` `rlgames.train.alphazero.learner.Learner` steps at the preset's batch size, on
  the positions the float32 self-play recorded (a copy of the network each, so that both start from the
  checkpoint's weights).

Times are the thread's CPU time (``time.thread_time``; torch runs on this thread with one thread), so
that other work on a shared machine skews the ratios less. Only work really done is counted: the
network evaluations self-play made (positions sent to the network; cache hits excluded) and the steps
taken. Reported per round and as the median: each half's speed-up (float32 seconds per unit of work over
bfloat16's) and the iteration's, the two halves weighted as the preset weighs them (its games and steps
per iteration). Beside the speed, how far bfloat16 moves the network's outputs on the positions self-play
recorded: the largest and the mean absolute difference of the values, and how often the two policies'
most likely moves agree::

    python benchmarks/bench_precision.py --runs 3 --json benchmarks/results/precision.json
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from rlgames.models import NetworkEvaluator, PolicyValueNet, load_network
from rlgames.models.folded import fold
from rlgames.models.networks import ResNet
from rlgames.models.precision import PRECISIONS, autocast, native_bfloat16
from rlgames.train.alphazero.config import load_config, settle_for_device
from rlgames.train.alphazero.learner import Learner, make_optimizer
from rlgames.train.alphazero.replay import ReplayBuffer
from rlgames.train.alphazero.selfplay import Positions, play_games

import rlgames
from rlgames.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, command_line, save_json

ROOT = Path(__file__).resolve().parents[1]


def selfplay_seconds_per_evaluation(
    game: Game, network: PolicyValueNet, config: Any, precision: str, seed: int
) -> tuple[float, int, Positions]:
    """CPU seconds per network evaluation of one self-play iteration, its evaluations, and the positions it
    recorded."""
    evaluator = NetworkEvaluator(network, game, batch_size=1024, precision=precision)
    start = time.thread_time()
    positions, stats = play_games(game, evaluator, config, seed)
    return (time.thread_time() - start) / stats.evaluations, stats.evaluations, positions


def learning_seconds_per_step(
    network: PolicyValueNet, config: Any, precision: str, positions: Positions, steps: int, seed: int
) -> float:
    """CPU seconds per learner step on batches drawn from ``positions``, from a copy of ``network``."""
    net = copy.deepcopy(network)
    learner = Learner(net, make_optimizer(net, config.optim), config.optim, torch.device("cpu"), precision=precision)
    replay = ReplayBuffer(len(positions), network.config.observation_shape, positions.masks.shape[1])
    replay.add(positions)
    rng = np.random.default_rng(seed)
    batches = [replay.sample(config.optim.batch_size, rng) for _ in range(steps)]  # as the trainer draws them
    learner.step(batches[0])  # warms up oneDNN's kernels for this precision
    start = time.thread_time()
    for batch in batches:
        learner.step(batch)
    return (time.thread_time() - start) / steps


def agreement(network: PolicyValueNet, positions: Positions) -> dict[str, float]:
    """How far bfloat16 moves the network's outputs on ``positions``' observations."""
    obs, mask = torch.from_numpy(positions.observations), torch.from_numpy(positions.masks)
    forward = fold(network) if type(network) is ResNet else network  # as NetworkEvaluator runs it
    outputs = {}
    for precision in PRECISIONS:
        with torch.inference_mode(), autocast(precision, torch.device("cpu")):
            logits, value = forward(obs, mask)
        outputs[precision] = (logits.float(), value.float())
    (logits32, value32), (logits16, value16) = outputs["float32"], outputs["bfloat16"]
    difference = (value32 - value16).abs()
    return {
        "positions": len(positions),
        "value_max_difference": float(difference.max()),
        "value_mean_difference": float(difference.mean()),
        "top_move_agreement": float((logits32.argmax(1) == logits16.argmax(1)).float().mean()),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "connect_four.pt"))
    parser.add_argument("--preset", default="connect_four", help="the training preset whose settings are timed")
    parser.add_argument("--games", type=int, default=64, help="self-play games a round and precision")
    parser.add_argument("--steps", type=int, default=20, help="learner steps a round and precision")
    parser.add_argument("--runs", type=int, default=3, help="rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    machine = announce(argv)
    machine["native_bfloat16"] = native_bfloat16("cpu")
    print(f"native bfloat16 (AMX or AVX-512 BF16): {machine['native_bfloat16']}")
    config = settle_for_device(load_config(args.preset), "cpu")
    network, info = load_network(args.checkpoint)
    game = rlgames.load_game(info.game_name, **info.game_params)
    selfplay = dataclasses.replace(
        config.selfplay, games_per_iteration=args.games, parallel_games=min(args.games, config.selfplay.parallel_games)
    )
    warm = dataclasses.replace(selfplay, games_per_iteration=2, parallel_games=2)
    for precision in PRECISIONS:  # compiles the searches, warms up oneDNN
        play_games(game, NetworkEvaluator(network, game, precision=precision), warm, args.seed)
    rounds = []
    print("| round | self-play s/eval fp32 | bf16 | speed-up | learning s/step fp32 | bf16 | speed-up | iteration |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for run in range(args.runs):
        seed = args.seed + run
        sp32, evaluations, positions = selfplay_seconds_per_evaluation(game, network, selfplay, "float32", seed)
        sp16, _, _ = selfplay_seconds_per_evaluation(game, network, selfplay, "bfloat16", seed)
        ln32 = learning_seconds_per_step(network, config, "float32", positions, args.steps, seed)
        ln16 = learning_seconds_per_step(network, config, "bfloat16", positions, args.steps, seed)
        evaluations *= config.selfplay.games_per_iteration / args.games  # per preset iteration
        steps = config.optim.steps_per_iteration
        iteration = (sp32 * evaluations + ln32 * steps) / (sp16 * evaluations + ln16 * steps)
        row = {
            "selfplay_s_per_eval": {"float32": sp32, "bfloat16": sp16},
            "learning_s_per_step": {"float32": ln32, "bfloat16": ln16},
            "selfplay_speedup": sp32 / sp16,
            "learning_speedup": ln32 / ln16,
            "iteration_speedup": iteration,
        }
        rounds.append(row)
        print(
            f"| {run} | {sp32 * 1e6:.0f} us | {sp16 * 1e6:.0f} us | {sp32 / sp16:.2f}x | {ln32 * 1e3:.0f} ms "
            f"| {ln16 * 1e3:.0f} ms | {ln32 / ln16:.2f}x | {iteration:.2f}x |",
            flush=True,
        )
    medians = {
        key: statistics.median(row[key] for row in rounds)
        for key in ("selfplay_speedup", "learning_speedup", "iteration_speedup")
    }
    outputs = agreement(network, positions)
    print(
        f"\nmedian speed-ups: self-play {medians['selfplay_speedup']:.2f}x, learning "
        f"{medians['learning_speedup']:.2f}x, iteration {medians['iteration_speedup']:.2f}x"
    )
    print(
        f"bfloat16 against float32 on {outputs['positions']} self-play positions: values differ by "
        f"{outputs['value_mean_difference']:.4f} on average (at most {outputs['value_max_difference']:.4f}); "
        f"the most likely move agrees in {outputs['top_move_agreement']:.1%}"
    )
    if args.json:
        record = {
            "command": command_line(__file__, argv),
            "machine": machine,
            "checkpoint": Path(args.checkpoint).name,
            "preset": args.preset,
            "rounds": rounds,
            "median": medians,
            "outputs": outputs,
        }
        save_json(args.json, record)


if __name__ == "__main__":
    main()
