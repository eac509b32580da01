"""``python -m rlgames.train.nnue GAME [--preset NAME] [--config FILE] [--generations N] [--run-dir DIR] [--seed S]
[--resume] [--workers N [--ray [--address ADDR]]] [--out FILE] [--init CHECKPOINT] [--relearn RUN_DIR]
[--set KEY=VALUE ...]``

Trains an NNUE (`rlgames.models.networks.NNUE`) for GAME by alpha-beta self-play, generation by generation,
as Stockfish's NNUE data is made: each generation plays ``games`` games of depth-``depth`` alpha-beta
with the current evaluation (generation 0: the hand-crafted evaluator, or with ``--init CHECKPOINT``
that network, which the run then learns on from; later: the previous network, compiled), from random
openings, in ``--workers`` processes (`rlgames.train.nnue.data`), and labels every
position with a mix of the search's value and the game's result, ``lam * search + (1 - lam) * result``
(Stockfish's ``lambda``, applied when learning: the window keeps both; with a ``teacher``, a
network trained by ``python -m rlgames.train``, its value replaces the search's, and random children of the
positions played teach the positions a search looks at but does not play); the network learns the
labels of the last ``window`` generations (squared error on the value, cross-entropy on the searched
move for the policy head), with ``augment`` each position seen under every symmetry of the board
(`rlgames.Game.symmetries`, as AlphaGo Zero's data was; for a network that reads the observation:
tic-tac-toe's). After each generation the new network plays the previous one and the hand-crafted
evaluator at equal time per move, and TensorBoard gets the losses and scores
(``tensorboard --logdir runs``). Every game is seeded from ``(seed, generation, game)`` and every
generation's learning from ``(seed, generation)``, and the checkpoint holds the data window, so
``--resume`` continues a killed run exactly, with any number of workers. ``--relearn RUN_DIR`` plays
nothing: it learns a network from the positions a run saved, with other learning settings (`relearn`),
and with ``--init CHECKPOINT`` that network learns them further instead of a fresh one (fine-tuning; a
network reading fewer of the feature sets grows into the settings' ``inputs``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from rlgames.cli.common import add_backend_arguments, backend_from_args
from rlgames.threads import pin_threads
from rlgames.models import CheckpointError
from rlgames.models.checkpoint import save_checkpoint
from rlgames.models.networks import reads_features
from rlgames.train.nnue.config import PRESETS, NNUEConfig
from rlgames.train.nnue.data import Positions, load_window
from rlgames.train.nnue.learning import initial_network, relearn
from rlgames.train.nnue.run import Run
from rlgames.train.settings import apply_overrides, command_line_overrides, preset_name, settings_parser

import rlgames
from rlgames.game import Game


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = settings_parser(
        "python -m rlgames.train.nnue", __doc__.split("\n\n")[1], NNUEConfig, PRESETS, example="depth=10"
    )
    parser.add_argument("--generations", type=int, help="train up to this many generations")
    parser.add_argument("--seed", type=int, default=0, help="the seed of everything random (default 0)")
    parser.add_argument("--run-dir", help="checkpoints and logs (default: runs/nnue-GAME-PRESET-sSEED)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir (with the same settings)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="play each generation's games in this many processes (the same games; default 1)",
    )
    add_backend_arguments(parser)
    parser.add_argument("--out", help="also write the final network here (e.g. checkpoints/GAME.nnue.pt)")
    parser.add_argument(
        "--relearn",
        metavar="RUN_DIR",
        nargs="+",
        help="play nothing: learn a network from the positions RUN_DIR saved (its window; of "
        "several runs, generation by generation), with this command's settings, and write "
        "it to --out",
    )
    parser.add_argument(
        "--init",
        metavar="CHECKPOINT",
        help="start from this network instead of a fresh one (of the settings' size, or one reading fewer "
        "threat inputs: it grows): a run's first generation is played by it (unless hand_crafted_games) and "
        "it learns on; with --relearn, it learns the runs' positions further",
    )
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace) -> NNUEConfig:
    """The preset (`preset_name`) with the ``--config``, ``--set``, ``--seed`` and ``--generations`` overrides;
    raises `ValueError` on an unknown preset or setting, or a value of the wrong type."""
    preset = preset_name(args, PRESETS)
    overrides = command_line_overrides(args, seed=args.seed, generations=args.generations)
    return apply_overrides(PRESETS[preset], overrides, where=f"preset {preset}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pin_threads()
    try:
        preset = preset_name(args, PRESETS)
        config = make_config(args)
        game = rlgames.load_game(args.game)
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.relearn:
            return _relearn(args, game, config)
        if args.init:  # the run starts from this network (recorded in its settings, so that it resumes)
            config = dataclasses.replace(config, init=args.init)
        run_dir = Path(args.run_dir or f"runs/nnue-{args.game}-{preset}-s{args.seed}")
        print(f"training an NNUE for {args.game} (preset {preset}, seed {args.seed}) into {run_dir}")
        run = Run(game, config, run_dir, resume=args.resume)
        run.run(workers=args.workers, backend=backend_from_args(args))
        if args.out:
            save_checkpoint(
                args.out,
                network=run.network,
                game=game,
                counters={"generation": run.generation},
                config=dataclasses.asdict(config),
            )
            print(f"wrote {args.out}")
    except (CheckpointError, ValueError, OSError) as error:
        print(f"python -m rlgames.train.nnue: {error}", file=sys.stderr)
        return 2
    return 0


def _relearn(args: argparse.Namespace, game: Game, config: NNUEConfig) -> int:
    """``--relearn RUN_DIR [RUN_DIR ...] --out FILE``: `relearn` of the positions the runs saved, each
    generation's of every run together (several runs of one preset with other seeds: more games)."""
    if not args.out:
        raise ValueError("--relearn writes its network to --out FILE: pass one")
    paths = [Path(run_dir) / "window.npz" for run_dir in args.relearn]
    for path in paths:
        if not path.is_file():
            raise ValueError(
                f"{path} does not exist: --relearn takes the directory of a run of python -m rlgames.train.nnue"
            )
    windows = [load_window(path, game) for path in paths]
    for path, window in zip(paths, windows):
        _check_inputs(path, window, game, config)
    generations = [Positions.concatenate([w[g] for w in windows if g < len(w)]) for g in range(max(map(len, windows)))]
    init = initial_network(args.init, game, config) if args.init else None
    print(
        f"learning an NNUE for {args.game} from the {sum(map(len, generations))} positions of "
        f"{', '.join(map(str, paths))}" + (f", starting from {args.init}" if init else "")
    )
    network = relearn(game, config, generations, init=init)
    save_checkpoint(
        args.out,
        network=network,
        game=game,
        counters={"generation": len(generations)},
        config=dataclasses.asdict(config),
    )
    print(f"wrote {args.out}")
    return 0


def _check_inputs(path: Path, window: list[Positions], game: Game, config: NNUEConfig) -> None:
    """Refuses a window whose positions hold the inputs of other feature sets than the network reads
    (chess: positions with threat inputs for a network of the pieces alone, or the reverse), judged by the
    largest input index stored against the game's sets taken in order."""
    if not reads_features(game, "nnue") or not any(len(part) for part in window):
        return
    top = max(int(part.observations.max()) for part in window if len(part))
    names, counts = list(game.feature_sets), [s.inputs for s in game.feature_sets.values()]
    held = next((tuple(names[:k]) for k in range(1, len(names) + 1) if top < sum(counts[:k])), tuple(names))
    wanted = config.feature_inputs(game)
    if held != wanted:
        setting = json.dumps(list(held), separators=(",", ":"))
        raise ValueError(
            f"{path} holds positions with the inputs of {'+'.join(held)}; the network reads "
            f"{'+'.join(wanted)}: relearn them with --set 'inputs={setting}'"
        )
