"""The training loop: self-play -> replay -> learn -> checkpoint, and an evaluation every few iterations.

A run directory holds::

    run.json             the game and the config (written when the run starts)
    checkpoint.pt        the latest checkpoint (models.save_checkpoint: network, optimizer, RNG streams,
                         counters, config), replaced atomically after every iteration
    replay-<it>.npz      the replay buffer as of that checkpoint (written atomically before it; older
                         ones are deleted after it)
    archive-<it>.json    with ``selfplay.archive_fraction`` > 0, the archive of earlier games' moves that
                         self-play starts games from, as of that checkpoint (kept as the replay file)
    tb/                  TensorBoard events

Everything random derives from ``config.seed``: the network's initial weights, the replay sampling
stream (`rlgames.models.RngStreams`, saved in each checkpoint), and per-iteration seeds of self-play and
evaluation (`iteration_seed`). So `--resume` after a kill continues exactly: a resumed run ends with
the same weights as an uninterrupted one. A run directory is only resumed for the same game and config
(``iterations`` may differ, to extend a run).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from rlgames.models import (
    NetworkEvaluator,
    PolicyValueNet,
    RngStreams,
    build_network,
    load_checkpoint,
    save_checkpoint,
)
from rlgames.models.checkpoint import load_weights
from rlgames.train.alphazero.config import (
    TrainConfig,
    config_from_dict,
    settle_for_device,
)
from rlgames.train.alphazero.evaluate import SolverBenchmark, evaluate
from rlgames.train.alphazero.learner import Learner, Losses, make_optimizer, mean_losses
from rlgames.train.alphazero.logger import IterationLogger
from rlgames.train.alphazero.replay import ReplayBuffer, growing_window
from rlgames.train.alphazero.selfplay import ArchivedGame, SelfPlay
from rlgames.parallel import LOCAL, Backend

from rlgames.files import atomic_write
from rlgames.game import Game

CHECKPOINT = "checkpoint.pt"
RUN_FILE = "run.json"


class TrainError(RuntimeError):
    """A run directory that cannot be started or resumed as asked."""


class Stream(IntEnum):
    """Spawn keys of the per-purpose seeds derived from the run's seed."""

    NETWORK = 0
    SAMPLING = 1
    SELFPLAY = 2
    EVALUATION = 3
    BENCHMARK = 4


def iteration_seed(seed: int, stream: Stream, iteration: int = 0) -> int:
    """A 32-bit seed for ``stream`` at ``iteration``, independent of every other stream and iteration."""
    sequence = np.random.SeedSequence(seed, spawn_key=(int(stream), iteration))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class IterationResult:
    iteration: int  # iterations completed
    positions: int
    losses: Losses | None


class Trainer:
    """One training run of ``game`` in ``run_dir``; `run` trains up to ``config.iterations``."""

    def __init__(
        self,
        game: Game,
        config: TrainConfig,
        run_dir: str | Path,
        *,
        resume: bool = False,
        device: str = "cpu",
        echo: Callable[[str], None] = print,
        backend: Backend = LOCAL,
    ) -> None:
        """``backend`` runs ``selfplay.workers`` as local processes or Ray actors (`rlgames.parallel`: the same
        positions either way; Ray's live as long as `run`)."""
        self.device = torch.device(device)
        config = settle_for_device(config, self.device.type)
        self.game, self.config, self.run_dir = game, config, Path(run_dir)
        self.echo = echo
        self.network: PolicyValueNet = build_network(
            game, config.network.arch, seed=iteration_seed(config.seed, Stream.NETWORK), **config.network.args
        ).to(self.device)
        if config.network.init:
            load_weights(
                self.network,
                load_checkpoint(config.network.init, game=game, map_location=self.device, network=self.network.config),
            )
        self.optimizer = make_optimizer(self.network, config.optim)
        self.learner = Learner(self.network, self.optimizer, config.optim, self.device, precision=config.precision)
        self.rng = RngStreams.from_seed(iteration_seed(config.seed, Stream.SAMPLING))
        self.replay = ReplayBuffer(config.replay.capacity, self.network.config.observation_shape, game.num_actions)
        self.selfplay = SelfPlay(game, config.selfplay, backend)
        self.archive: list[ArchivedGame] = []  # the last ``selfplay.archive_games`` games, oldest first
        self.evaluator = NetworkEvaluator(
            self.network, game, batch_size=1024, device=self.device, precision=config.precision
        )
        self.iteration = 0
        self.evaluations: list[tuple[int, dict[str, float]]] = []  # (iteration, results) of this process
        self._benchmark: SolverBenchmark | None = None
        self._prepare_run_dir(resume)

    # --- the run directory ----------------------------------------------------------------------
    def _prepare_run_dir(self, resume: bool) -> None:
        run_file = self.run_dir / RUN_FILE
        if resume:
            if not run_file.is_file():
                raise TrainError(f"--resume: {self.run_dir} holds no run ({RUN_FILE} is missing)")
            self._check_same_run(json.loads(run_file.read_text()))
            if (self.run_dir / CHECKPOINT).is_file():
                self._restore()
            return
        if run_file.exists():
            raise TrainError(
                f"{self.run_dir} already holds a run: pass --resume to continue it, or choose another --run-dir"
            )
        self.run_dir.mkdir(parents=True, exist_ok=True)
        run = {
            "game": {"name": self.game.name, "version": self.game.version, "params": self.game.params},
            "config": self.config.to_dict(),
        }
        run_file.write_text(json.dumps(run, indent=2) + "\n")

    def _check_same_run(self, run: dict[str, Any]) -> None:
        game = run.get("game", {})
        if (game.get("name"), game.get("version"), game.get("params")) != (
            self.game.name,
            self.game.version,
            json.loads(json.dumps(self.game.params)),
        ):
            raise TrainError(
                f"{self.run_dir} holds a run of {game.get('name')} {game.get('params')} "
                f"(version {game.get('version')}), not of {self.game.name} {self.game.params}"
            )
        saved, current = _flatten(config_from_dict(run["config"]).to_dict()), _flatten(self.config.to_dict())
        differing = sorted(
            key for key in saved.keys() | current.keys() if key != "iterations" and saved.get(key) != current.get(key)
        )
        if differing:
            shown = "; ".join(f"{key}: run {saved.get(key)!r}, now {current.get(key)!r}" for key in differing)
            raise TrainError(
                f"{self.run_dir} was made with another config ({shown}); resume it with the same "
                f"preset and overrides, or start a new --run-dir"
            )

    def _restore(self) -> None:
        info = load_checkpoint(
            self.run_dir / CHECKPOINT, game=self.game, map_location=self.device, network=self.network.config
        )
        load_weights(self.network, info)
        self.optimizer.load_state_dict(info.optimizer_state)
        self.rng.set_state(info.rng_state)
        self.iteration = int(info.counters["iteration"])
        self.replay = ReplayBuffer.load(
            self.run_dir / info.counters["replay_file"], self.network.config.observation_shape, self.game.num_actions
        )
        if "archive_file" in info.counters:
            saved = json.loads((self.run_dir / info.counters["archive_file"]).read_text())
            self.archive = [ArchivedGame(tuple(moves), tuple(starts)) for moves, starts in saved]
        self.echo(f"resumed {self.run_dir} at iteration {self.iteration} ({len(self.replay)} positions in replay)")

    def _checkpoint(self) -> None:
        """Replay (and archive) file first, then the checkpoint naming it (atomic), then the older ones."""
        replay_file = f"replay-{self.iteration:06d}.npz"
        self.replay.save(self.run_dir / replay_file)
        counters = {"iteration": self.iteration, "replay_file": replay_file, "positions_added": self.replay.added}
        if self.config.selfplay.archive_fraction:
            counters["archive_file"] = f"archive-{self.iteration:06d}.json"
            with atomic_write(self.run_dir / counters["archive_file"]) as handle:
                handle.write(json.dumps(self.archive).encode())
        save_checkpoint(
            self.run_dir / CHECKPOINT,
            network=self.network,
            game=self.game,
            optimizer=self.optimizer,
            counters=counters,
            config=self.config.to_dict(),
            rng=self.rng,
        )
        for old in [*self.run_dir.glob("replay-*.npz"), *self.run_dir.glob("archive-*.json")]:
            if old.name not in (replay_file, counters.get("archive_file")):
                old.unlink()

    # --- the loop ---------------------------------------------------------------------------------
    def run(self) -> list[IterationResult]:
        """Trains from the current iteration up to ``config.iterations``; returns what each did."""
        logger = IterationLogger(self.run_dir, self.echo)
        try:
            if self.iteration == 0:
                logger.config(self.config.to_dict(), 0)
                self._evaluate(logger)
            results = []
            while self.iteration < self.config.iterations:
                results.append(self.train_iteration(logger))
                if self.config.eval.interval and self.iteration % self.config.eval.interval == 0:
                    self._evaluate(logger)
            return results
        finally:
            self.selfplay.close()
            logger.close()

    def train_iteration(self, logger: IterationLogger) -> IterationResult:
        """Self-play, replay, learning, checkpoint: one iteration."""
        config, iteration = self.config, self.iteration
        start = time.perf_counter()
        seed = iteration_seed(config.seed, Stream.SELFPLAY, iteration)
        positions, stats = self.selfplay.play(self.evaluator, seed, self.archive)
        self.replay.add(positions)
        if config.selfplay.archive_fraction:
            startable = [game for game in stats.archived if game.starts]
            self.archive = (self.archive + startable)[-config.selfplay.archive_games :]
        lr = config.lr_at(iteration)
        losses = self._learn(lr)
        self.evaluator.clear_cache()  # the weights changed
        self.iteration += 1
        self._checkpoint()
        logger.iteration(
            self.iteration,
            config.iterations,
            stats,
            losses,
            lr,
            len(self.replay),
            self.replay.added,
            time.perf_counter() - start,
        )
        return IterationResult(self.iteration, len(positions), losses)

    def _learn(self, lr: float) -> Losses | None:
        optim = self.config.optim
        if len(self.replay) < optim.min_replay or optim.steps_per_iteration == 0:
            return None
        self.learner.set_lr(lr)
        replay = self.config.replay
        symmetries = self.game.symmetries() if replay.augment else ()
        newest = (
            growing_window(self.replay.added, replay.window_base, replay.window_alpha, replay.window_beta)
            if replay.window_base
            else None
        )
        history = [
            self.learner.step(self.replay.sample(optim.batch_size, self.rng.numpy, symmetries, newest))
            for _ in range(optim.steps_per_iteration)
        ]
        return mean_losses(history)

    def _evaluate(self, logger: IterationLogger) -> None:
        config = self.config.eval
        if not config.interval:
            return
        if self._benchmark is None:
            self._benchmark = SolverBenchmark(
                self.game, config, np.random.default_rng(iteration_seed(self.config.seed, Stream.BENCHMARK))
            )
        results, seconds = evaluate(
            self.game,
            self.network,
            config,
            self._benchmark,
            iteration_seed(self.config.seed, Stream.EVALUATION, self.iteration),
            self.device,
        )
        self.evaluations.append((self.iteration, results))
        logger.evaluation(self.iteration, results, seconds)


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``."""
    flat = {}
    for key, value in data.items():
        if isinstance(value, dict) and key != "args":
            flat |= _flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat
