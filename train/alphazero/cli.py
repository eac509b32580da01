"""``python -m rlgames.train GAME [--preset NAME] [--config FILE] [--set KEY=VALUE ...] [--run-dir DIR] [--seed S] [--device auto|cpu|cuda] [--resume]``

Trains a policy/value network for GAME by self-play; prints a progress line per iteration and writes
checkpoints and TensorBoard events into the run directory (``tensorboard --logdir runs``).
"""

from __future__ import annotations

import argparse
import sys

import torch
from rlgames.models import CheckpointError
from rlgames.train.alphazero.config import PRESETS, TrainConfig, load_config
from rlgames.train.alphazero.trainer import Trainer, TrainError
from rlgames.train.settings import (
    ConfigError,
    nested_settings,
    parse_settings,
    read_override_file,
    settings_help,
)

import rlgames


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rlgames.train", description=__doc__.split("\n\n")[1],
                                     epilog=settings_help(TrainConfig),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help=f"the game: {', '.join(rlgames.list_games())}")
    parser.add_argument("--preset", help=f"settings to start from: {', '.join(PRESETS)} (default: the game's "
                                         "preset when there is one, else smoke)")
    parser.add_argument("--config", help="a JSON or TOML file of overrides, nested like the config")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one setting, nested ones by dots, e.g. --set selfplay.simulations=100 "
                             "(a JSON value; repeatable; applied after --config)")
    parser.add_argument("--run-dir", help="where checkpoints and logs go (default: runs/GAME-PRESET-sSEED)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (default: the config's, 0)")
    parser.add_argument("--iterations", type=int, help="train up to this many iterations (extends a resumed run)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where the network runs (default auto: CUDA when torch sees a GPU, else the CPU)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir from its checkpoint")
    return parser.parse_args(argv)


def resolve_device(name: str) -> str:
    """``"auto"`` becomes "cuda" when torch sees a GPU and "cpu" otherwise; other names stay."""
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    if device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda, but CUDA is not available", file=sys.stderr)
        return 2
    preset = args.preset or (args.game if args.game in PRESETS else "smoke")
    try:
        game = rlgames.load_game(args.game)
        overrides = nested_settings(parse_settings(args.set), read_override_file(args.config) if args.config else None)
        config = load_config(preset, overrides, seed=args.seed, iterations=args.iterations)
        run_dir = args.run_dir or f"runs/{args.game}-{preset}-s{config.seed}"
        print(f"training {args.game} (preset {preset}, seed {config.seed}) on {device} into {run_dir}")
        Trainer(game, config, run_dir, resume=args.resume, device=device).run()
    except (ConfigError, TrainError, CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: continue with --resume", file=sys.stderr)
        return 130
    return 0
