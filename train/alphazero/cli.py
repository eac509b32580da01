"""``python -m rlgames.train GAME [-p KEY=VALUE ...] [--preset NAME] [--config FILE] [--set KEY=VALUE ...]
[--run-dir DIR] [--seed S] [--device auto|cpu|cuda] [--resume] [--ray [--address ADDR]]``

Trains a policy/value network for GAME by self-play; prints a progress line per iteration and writes
checkpoints and TensorBoard events into the run directory (``tensorboard --logdir runs``). Ctrl-C or SIGTERM
stops it at its last checkpoint: ``--resume`` continues it as if it had not stopped.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import torch
from rlgames.cli.common import add_backend_arguments, add_game_params, backend_from_args
from rlgames.threads import pin_threads
from rlgames.models import CheckpointError
from rlgames.train.alphazero.config import PRESETS, TrainConfig, load_config
from rlgames.train.alphazero.trainer import Trainer, TrainError
from rlgames.train.settings import ConfigError, command_line_overrides, preset_name, settings_parser

import rlgames


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = settings_parser(
        "python -m rlgames.train", __doc__.split("\n\n")[1], TrainConfig, PRESETS, example="selfplay.simulations=100"
    )
    add_game_params(parser)
    parser.add_argument("--run-dir", help="where checkpoints and logs go (default: runs/GAME-PRESET-sSEED)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (default: the config's, 0)")
    parser.add_argument("--iterations", type=int, help="train up to this many iterations (extends a resumed run)")
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where the network runs (default auto: CUDA when torch sees a GPU, else the CPU)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir from its checkpoint")
    add_backend_arguments(parser)
    return parser.parse_args(argv)


def resolve_device(name: str) -> str:
    """``"auto"`` becomes "cuda" when torch sees a GPU and "cpu" otherwise; other names stay."""
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pin_threads()
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    if device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda, but CUDA is not available", file=sys.stderr)
        return 2
    try:
        preset = preset_name(args, PRESETS)
        config = load_config(preset, command_line_overrides(args, seed=args.seed, iterations=args.iterations))
        if args.param:
            config = dataclasses.replace(config, game={**config.game, **dict(args.param)})
        game = rlgames.load_game(args.game, **config.game)
        run_dir = args.run_dir or f"runs/{args.game}-{preset}-s{config.seed}"
        print(f"training {args.game} (preset {preset}, seed {config.seed}) on {device} into {run_dir}")
        backend = backend_from_args(args)
        with sigterm_as_interrupt():
            Trainer(game, config, run_dir, resume=args.resume, device=device, backend=backend).run()
    except (ConfigError, TrainError, CheckpointError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: continue with --resume", file=sys.stderr)
        return 130
    return 0


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler stopping the job) raises KeyboardInterrupt in the main thread, as Ctrl-C
    does, so that either stops the run where its last checkpoint left it, resumable; the handler before is
    put back after. Off the main thread, where Python installs no handler, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
