"""``python -m rlgames.train.nnue GAME [--preset NAME] [--config FILE] [--generations N] [--run-dir DIR] [--seed S] [--resume] [--workers N] [--out FILE] [--relearn RUN_DIR [--init CHECKPOINT]] [--set KEY=VALUE ...]``

Trains an NNUE (`rlgames.models.networks.NNUE`) for GAME by alpha-beta self-play, generation by generation,
as Stockfish's NNUE data is made: each generation plays ``games`` games of depth-``depth`` alpha-beta
with the current evaluation (generation 0: the hand-crafted evaluator; later: the previous network,
compiled), from random openings, in ``--workers`` processes (`rlgames.train.nnue_data`), and labels every
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
import functools
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from rlgames.models import CheckpointError
from rlgames.models.checkpoint import (
    load_checkpoint,
    load_network,
    load_weights,
    save_checkpoint,
)
from rlgames.models.evaluator import NNUEvaluator
from rlgames.models.networks import NNUE, NNUEArgs, build_network, reads_features
from rlgames.train.config import (
    EvalConfig,
    apply_overrides,
    parse_settings,
    read_override_file,
    settings_help,
)
from rlgames.train.evaluate import match
from rlgames.train.nnue_config import PRESETS, NNUEConfig
from rlgames.train.nnue_data import Positions, load_window, play_generation, save_window
from torch.nn import functional as F
from torch.nn.utils import parametrize

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, State
from rlgames.search import AlphaBeta, AlphaBetaConfig
from rlgames.search.result import SearchResult


def learn(network: NNUE, optimizer: torch.optim.Optimizer, data: Positions, config: NNUEConfig,
          generator: torch.Generator) -> dict[str, float]:
    """``config.epochs`` passes over ``data`` in shuffled minibatches; the last epoch's mean losses."""
    obs = torch.from_numpy(data.observations)
    moves, labels = torch.from_numpy(data.moves), torch.from_numpy(data.labels(config.lam))
    shared = _factorize(network.accumulator, config.factor) if config.factor else None
    optimizers = [optimizer] + ([torch.optim.Adam(shared.parameters(), lr=config.lr)] if shared else [])
    steps = config.epochs * -(-len(labels) // config.batch_size)
    schedules = [torch.optim.lr_scheduler.OneCycleLR(each, max_lr=config.lr, total_steps=steps, pct_start=0.1)
                 for each in optimizers] if config.one_cycle else []
    network.train()
    for _ in range(config.epochs):
        totals, batches = np.zeros(2), 0
        for batch in torch.randperm(len(labels), generator=generator).split(config.batch_size):
            if config.policy_weight:
                value_loss, policy_loss = _losses(network, data, obs[batch], moves[batch], labels[batch], batch)
            else:  # no policy head computed: the same value loss and gradient
                values = network.value_only(obs[batch], active=data.sparse)  # [B]
                value_loss, policy_loss = F.mse_loss(values, labels[batch]), torch.zeros(())
            for each in optimizers:
                each.zero_grad()
            (value_loss + config.policy_weight * policy_loss).backward()
            for each in [*optimizers, *schedules]:
                each.step()
            totals += (value_loss.item(), policy_loss.item())
            batches += 1
    if shared:
        parametrize.remove_parametrizations(network.accumulator, "weight", leave_parametrized=True)
    network.eval()
    return {"loss/value": totals[0] / batches} | ({"loss/policy": totals[1] / batches} if config.policy_weight else {})


def _losses(network: NNUE, data: Positions, obs: torch.Tensor, moves: torch.Tensor, labels: torch.Tensor,
            batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A minibatch's value and policy losses (the policy's over the positions with a searched move)."""
    forward = network.forward_active if data.sparse else network
    legal = torch.from_numpy(data.legal_masks(network.config.num_actions, batch.numpy()))  # [B, A]
    logits, values = forward(obs, legal)  # [B, A], [B]
    played = moves >= 0  # teacher-labelled siblings have no move
    policy_loss = F.cross_entropy(logits[played], moves[played]) if played.any() else logits.sum() * 0
    return F.mse_loss(values, labels), policy_loss


class Factorizer(torch.nn.Module):
    """A first layer's weight ``[width, inputs]`` plus one learned column per run of ``size`` inputs,
    shared by the run (zero at first, so the layer's function is unchanged when it is attached)."""

    def __init__(self, width: int, inputs: int, size: int) -> None:
        super().__init__()
        if inputs % size:
            raise ValueError(f"factor {size} does not divide the network's {inputs} inputs")
        self.size = size
        self.shared = torch.nn.Parameter(torch.zeros(width, inputs // size))

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return weight + self.shared.repeat_interleave(self.size, dim=1)  # [width, inputs]


def _factorize(layer: torch.nn.Linear, size: int) -> Factorizer:
    """Attach `Factorizer` to ``layer.weight`` (a parametrization: the weight tensor, and so the
    optimizer's state for it, stays the same object, and removing it folds the shared rows in)."""
    shared = Factorizer(layer.out_features, layer.in_features, size)
    parametrize.register_parametrization(layer, "weight", shared)
    return shared


class SearchAgent:
    """An alpha-beta agent over an evaluator object, for the evaluation matches."""

    def __init__(self, evaluator: Evaluator, seconds: float, quiescence: int = 0) -> None:
        self.search_algorithm = AlphaBeta(evaluator, AlphaBetaConfig(time_limit=seconds, quiescence_depth=quiescence))

    def search(self, state: State) -> SearchResult:
        return self.search_algorithm.search(state)

    def act(self, state: State) -> int:
        return self.search(state).action

    def seed(self, seed: int) -> None:
        """Nothing to seed: the search is deterministic."""


def evaluate(game: Game, new: Evaluator, previous: Evaluator, hand_crafted: Evaluator, config: NNUEConfig,
             rng: np.random.Generator) -> dict[str, float]:
    """The new network's score against the previous evaluation and the hand-crafted one, at equal time."""
    settings = EvalConfig(games=config.eval_games, opening_plies=config.eval_opening_plies)
    player = SearchAgent(new, config.eval_time, config.quiescence)
    scores = {}
    for tag, opponent in (("previous", previous), ("hand_crafted", hand_crafted)):
        rival = SearchAgent(opponent, config.eval_time, config.quiescence)
        scores[f"eval/score_vs_{tag}"] = match(game, player, rival, settings, rng)["score"]
    return scores


def new_network(game: Game, config: NNUEConfig) -> tuple[NNUE, torch.optim.Optimizer]:
    """A run's network, initialised from ``config.seed``, and its optimizer."""
    network: NNUE = build_network(game, "nnue", seed=config.seed, accumulator=config.accumulator,
                                  hidden=config.hidden, psqt=config.psqt,
                                  inputs=config.feature_inputs(game))  # type: ignore[assignment]
    return network, torch.optim.Adam(network.parameters(), lr=config.lr)


def learn_generation(network: NNUE, optimizer: torch.optim.Optimizer, game: Game, window: list[Positions],
                     config: NNUEConfig, generation: int) -> dict[str, float]:
    """Generation ``generation``'s learning (`learn`) of the ``window`` that ends with its positions,
    seeded from ``(seed, generation)``, less each generation's `held_out` positions; with a ``holdout``, its
    losses include the value loss on the newest generation's."""
    data = Positions.concatenate([held_out(part, config.holdout)[0] for part in window])
    if config.augment:
        data = data.under(game.symmetries())
    losses = learn(network, optimizer, data, config, torch.Generator().manual_seed(config.seed * 100_003 + generation))
    if config.holdout:
        losses["loss/value_holdout"] = value_loss(network, held_out(window[-1], config.holdout)[1], config.lam)
    return losses


def held_out(data: Positions, fraction: float) -> tuple[Positions, Positions]:
    """``data`` (a generation's positions, game after game) split into those learnt and those of its
    last ``fraction`` of positions, of its last games (one game may straddle the two)."""
    cut = len(data) - round(fraction * len(data))
    return data.part(slice(0, cut)), data.part(slice(cut, len(data)))


def value_loss(network: NNUE, data: Positions, lam: float) -> float:
    """The value head's mean squared error on ``data``'s labels (``lam``), evaluated in batches."""
    obs, labels = torch.from_numpy(data.observations), torch.from_numpy(data.labels(lam))
    with torch.no_grad():
        total = sum(F.mse_loss(network.value_only(x, active=data.sparse), y, reduction="sum").item()
                    for x, y in zip(obs.split(4096), labels.split(4096)))
    return total / max(1, len(data))


def _scalars(values: dict[str, float]) -> str:
    """``loss/value 0.0123`` -> ``value 0.012``, joined by commas: a generation's line."""
    return ", ".join(f"{k.split('/')[-1]} {v:.3f}" for k, v in values.items())


def relearn(game: Game, config: NNUEConfig, generations: list[Positions], echo=functools.partial(print, flush=True),
            *, init: NNUE | None = None) -> NNUE:
    """A network learnt from ``generations`` (a run's saved positions, in order) as a run with ``config``
    learns them: the same network as that run's where its games do not depend on its networks (the
    first generation's; every one's with ``hand_crafted_games``), and otherwise what ``config``'s
    learning makes of the games another run played. For trying learning settings (``lam``, the
    network's size, ``epochs``...) without playing the games again. With ``init`` (a network of
    ``config``'s size), that network learns further, in place, rather than a fresh one: fine-tuning."""
    if init is None:
        network, optimizer = new_network(game, config)
    else:
        network, optimizer = init, torch.optim.Adam(init.parameters(), lr=config.lr)
    for g in range(len(generations)):
        window = generations[max(0, g + 1 - config.window):g + 1]
        losses = learn_generation(network, optimizer, game, window, config, g)
        echo(f"generation {g + 1}/{len(generations)}: {sum(map(len, window))} positions learnt, "
             + _scalars(losses))
    return network


class Run:
    """A training run in ``run_dir``: the network, its optimizer, the data window and the logs."""

    def __init__(self, game: Game, config: NNUEConfig, run_dir: Path, *, resume: bool) -> None:
        if game.has_chance:
            raise ValueError(f"{game.name} has chance nodes: NNUE self-play uses alpha-beta (deterministic games)")
        self.game, self.config, self.run_dir = game, config, run_dir
        self.network, self.optimizer = new_network(game, config)
        self.hand_crafted = load_evaluator("heuristic", game)
        self.window: list[Positions] = []
        self.generation = 0
        if resume:
            self._resume()
        elif (run_dir / "latest.nnue.pt").exists():
            raise ValueError(f"{run_dir} already holds a run: pass --resume to continue it, or another --run-dir")
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            self._save()  # generation 0: a run killed in its first generation resumes too
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(run_dir / "tb"))

    def run(self, echo=functools.partial(print, flush=True), *, workers: int = 1) -> None:
        """Train up to ``config.generations``, self-play in ``workers`` processes (the same data for any)."""
        while self.generation < self.config.generations:
            g, start = self.generation, time.perf_counter()
            rng = np.random.default_rng([self.config.seed, g, 1])  # the evaluation matches'
            previous = self.hand_crafted if g == 0 else NNUEvaluator(self.network, self.game)
            data = self._played(g, workers, lambda line: echo(f"generation {g + 1}: {line}, "
                                                              f"{time.perf_counter() - start:.0f} s"))
            self.window = [*self.window, data][-self.config.window:]
            losses = learn_generation(self.network, self.optimizer, self.game, self.window, self.config, g)
            scores = evaluate(self.game, NNUEvaluator(self.network, self.game), previous, self.hand_crafted,
                              self.config, rng)
            self.generation += 1
            self._save()
            values = {**losses, **scores, "selfplay/positions": len(data),
                      "time/generation_s": time.perf_counter() - start}
            for tag, value in values.items():
                self.writer.add_scalar(tag, value, self.generation)
            self.writer.flush()
            echo(f"generation {self.generation}/{self.config.generations}: {len(data)} positions, "
                 + _scalars({k: v for k, v in values.items() if k.startswith(("loss", "eval"))})
                 + f", {values['time/generation_s']:.0f} s")

    def _played(self, g: int, workers: int, echo) -> Positions:
        """Generation ``g``'s self-play positions: played now, and kept in the run directory until the
        generation ends (a run killed while learning resumes without playing its games again)."""
        path = self.run_dir / f"played-{g + 1}.npz"
        if path.exists():
            echo(f"its games were played before the run stopped ({path})")
            return load_window(path, self.game)[0]
        network = None if g == 0 else self.network
        data = play_generation(self.game, self.config, g, network, workers=workers,
                               progress=lambda n: echo(f"{n}/{self.config.games} games played"))
        save_window(path, [data])
        return data

    def _save(self) -> None:
        """The network, optimizer and window after ``generation`` generations (0: as the run starts)."""
        path = self.run_dir / "latest.nnue.pt"
        save_checkpoint(path, network=self.network, game=self.game, optimizer=self.optimizer,
                        counters={"generation": self.generation}, config=dataclasses.asdict(self.config))
        save_window(self.run_dir / "window.npz", self.window)
        (self.run_dir / f"played-{self.generation}.npz").unlink(missing_ok=True)

    def _resume(self) -> None:
        info = load_checkpoint(self.run_dir / "latest.nnue.pt", game=self.game)
        settings = json.loads(json.dumps(dataclasses.replace(self.config, generations=0).__dict__))
        defaults = json.loads(json.dumps(dataclasses.asdict(NNUEConfig())))  # of settings added since the run began
        if {**defaults, **json.loads(json.dumps(info.config)), "generations": 0} != settings:
            raise ValueError(f"{self.run_dir} was trained with other settings; resume it with the same preset and --set")
        load_weights(self.network, info)
        self.optimizer.load_state_dict(info.optimizer_state)
        self.generation = int(info.counters["generation"])
        self.window = load_window(self.run_dir / "window.npz", self.game)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rlgames.train.nnue", description=__doc__.split("\n\n")[1],
                                     epilog=settings_help(NNUEConfig),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help=f"the game: {', '.join(rlgames.list_games())}")
    parser.add_argument("--preset", help=f"settings: {', '.join(PRESETS)} (default: the game's, else smoke)")
    parser.add_argument("--generations", type=int, help="train up to this many generations")
    parser.add_argument("--seed", type=int, default=0, help="the seed of everything random (default 0)")
    parser.add_argument("--run-dir", help="checkpoints and logs (default: runs/nnue-GAME-PRESET-sSEED)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    parser.add_argument("--workers", type=int, default=1,
                        help="play each generation's games in this many processes (the same games; default 1)")
    parser.add_argument("--out", help="also write the final network here (e.g. checkpoints/GAME.nnue.pt)")
    parser.add_argument("--relearn", metavar="RUN_DIR", nargs="+",
                        help="play nothing: learn a network from the positions RUN_DIR saved (its window; of "
                             "several runs, generation by generation), with this command's settings, and write "
                             "it to --out")
    parser.add_argument("--init", metavar="CHECKPOINT",
                        help="with --relearn: learn further from this network (of the settings' size, or one "
                             "reading fewer threat inputs: it grows) instead of a fresh one")
    parser.add_argument("--config", metavar="FILE", help="a JSON or TOML file of settings, applied before --set")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one NNUEConfig setting, e.g. --set depth=10 (repeatable; "
                             "--resume needs the same ones)")
    return parser.parse_args(argv)


def preset_name(args: argparse.Namespace) -> str:
    """``--preset``, else the game's preset when there is one, else smoke."""
    return args.preset or (args.game if args.game in PRESETS else "smoke")


def make_config(args: argparse.Namespace) -> NNUEConfig:
    """The preset (`preset_name`) with the ``--set``, ``--seed`` and ``--generations`` overrides; raises
    `ValueError` on an unknown preset or setting, or a value of the wrong type."""
    preset = preset_name(args)
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    overrides = read_override_file(args.config) if args.config else {}
    overrides |= parse_settings(args.set) | {"seed": args.seed}
    if args.generations is not None:
        overrides["generations"] = args.generations
    return apply_overrides(PRESETS[preset], overrides, where=f"preset {preset}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(1)
    preset = preset_name(args)
    try:
        config = make_config(args)
        game = rlgames.load_game(args.game)
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.relearn:
            return _relearn(args, game, config)
        if args.init:
            raise ValueError("--init is the network --relearn starts from: pass --relearn RUN_DIR")
        run_dir = Path(args.run_dir or f"runs/nnue-{args.game}-{preset}-s{args.seed}")
        print(f"training an NNUE for {args.game} (preset {preset}, seed {args.seed}) into {run_dir}")
        run = Run(game, config, run_dir, resume=args.resume)
        run.run(workers=args.workers)
        if args.out:
            save_checkpoint(args.out, network=run.network, game=game,
                            counters={"generation": run.generation}, config=dataclasses.asdict(config))
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
            raise ValueError(f"{path} does not exist: --relearn takes the directory of a run of python -m rlgames.train.nnue")
    windows = [load_window(path, game) for path in paths]
    for path, window in zip(paths, windows):
        _check_inputs(path, window, game, config)
    generations = [Positions.concatenate([w[g] for w in windows if g < len(w)])
                   for g in range(max(map(len, windows)))]
    init = _initial_network(args.init, game, config) if args.init else None
    print(f"learning an NNUE for {args.game} from the {sum(map(len, generations))} positions of "
          f"{', '.join(map(str, paths))}" + (f", starting from {args.init}" if init else ""))
    network = relearn(game, config, generations, init=init)
    save_checkpoint(args.out, network=network, game=game, counters={"generation": len(generations)},
                    config=dataclasses.asdict(config))
    print(f"wrote {args.out}")
    return 0


def _initial_network(path: str, game: Game, config: NNUEConfig) -> NNUE:
    """``--init``'s network; raises `ValueError` where its size is not the settings'. One that reads fewer
    of the feature sets (``inputs`` a beginning of the settings') grows into the settings' network: the
    rows of the inputs it gains start at zero, so that it computes the same values at first."""
    network, info = load_network(path, game)
    wanted = NNUEArgs(accumulator=config.accumulator, hidden=config.hidden, psqt=config.psqt,
                      inputs=config.feature_inputs(game))
    args = info.network.args
    if info.network.arch == "nnue" and len(args.inputs) < len(wanted.inputs) \
            and dataclasses.replace(args, inputs=wanted.inputs) == wanted \
            and wanted.inputs[:len(args.inputs)] == args.inputs:
        return _grown(network, game, config)  # type: ignore[arg-type]
    if info.network.arch != "nnue" or args != wanted:
        sizes = ", ".join(f"{k}={'+'.join(v) or 'observation' if isinstance(v, tuple) else v}"
                          for k, v in dataclasses.asdict(wanted).items())
        raise ValueError(f"{path} is a network {info.network.describe()}; the settings ask for nnue({sizes}): "
                         f"pass --set to match it")
    return network  # type: ignore[return-value]


def _grown(network: NNUE, game: Game, config: NNUEConfig) -> NNUE:
    """``network`` with the inputs of ``config.inputs`` its own do not have, their rows zero."""
    grown, _ = new_network(game, config)
    sources = dict(network.named_parameters())
    with torch.no_grad():
        for name, parameter in grown.named_parameters():
            source = sources[name]
            if name == "accumulator.weight":  # [accumulator + psqt, inputs]: the old inputs come first
                parameter.zero_()
                parameter[:, :source.shape[1]] = source
            else:
                parameter.copy_(source)
    return grown


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
        raise ValueError(f"{path} holds positions with the inputs of {'+'.join(held)}; the network reads "
                         f"{'+'.join(wanted)}: relearn them with --set 'inputs={setting}'")


if __name__ == "__main__":
    sys.exit(main())
