"""A training run of ``python -m rlgames.train.nnue`` (`Run`): generation after generation, self-play
positions (`rlgames.train.nnue.data`), the window's learning (`rlgames.train.nnue.learning`), matches of the
new network against the previous evaluation and the hand-crafted one at equal time (`evaluate`), and a
checkpoint holding the network, the optimizer and the window, so that a killed run resumes exactly."""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from pathlib import Path

import numpy as np
import torch
from rlgames.models.checkpoint import (
    load_checkpoint,
    load_weights,
    save_checkpoint,
)
from rlgames.models.evaluator import NNUEvaluator
from rlgames.parallel import LOCAL, Backend
from rlgames.train.logger import RunLogger
from rlgames.train.matches import match
from rlgames.train.nnue.config import NNUEConfig
from rlgames.train.nnue.data import Positions, load_window, play_generation, save_window
from rlgames.train.nnue.learning import initial_network, learn_generation, new_network, scalars

from rlgames.evaluators import load_evaluator
from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, State
from rlgames.search import AlphaBeta, AlphaBetaConfig
from rlgames.search.result import SearchResult


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


def evaluate(
    game: Game,
    new: Evaluator,
    previous: Evaluator,
    hand_crafted: Evaluator,
    config: NNUEConfig,
    rng: np.random.Generator,
) -> dict[str, float]:
    """The new network's score against the previous evaluation and the hand-crafted one, at equal time (none
    with ``config.eval_games`` 0)."""
    if config.eval_games == 0:
        return {}
    player = SearchAgent(new, config.eval_time, config.quiescence)
    scores = {}
    for tag, opponent in (("previous", previous), ("hand_crafted", hand_crafted)):
        rival = SearchAgent(opponent, config.eval_time, config.quiescence)
        scores[f"eval/score_vs_{tag}"] = match(
            game, player, rival, games=config.eval_games, opening_plies=config.eval_opening_plies, rng=rng
        )["score"]
    return scores


class Run:
    """A training run in ``run_dir``: the network, its optimizer, the data window and the logs."""

    def __init__(self, game: Game, config: NNUEConfig, run_dir: Path, *, resume: bool) -> None:
        if game.has_chance:
            raise ValueError(f"{game.name} has chance nodes: NNUE self-play uses alpha-beta (deterministic games)")
        self.game, self.config, self.run_dir = game, config, run_dir
        self.network, self.optimizer = new_network(game, config)
        if config.init is not None:
            self.network = initial_network(config.init, game, config)
            self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.lr)
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
        self.logger = RunLogger(run_dir)

    def run(self, echo=functools.partial(print, flush=True), *, workers: int = 1, backend: Backend = LOCAL) -> None:
        """Train up to ``config.generations``, self-play in ``workers`` processes or Ray actors (``backend``:
        the same data for any number, on either)."""
        while self.generation < self.config.generations:
            g, start = self.generation, time.perf_counter()
            rng = np.random.default_rng([self.config.seed, g, 1])  # the evaluation matches'
            previous = NNUEvaluator(self.network, self.game) if self._network_plays(g) else self.hand_crafted
            data = self._played(
                g,
                workers,
                backend,
                lambda line: echo(f"generation {g + 1}: {line}, {time.perf_counter() - start:.0f} s"),
            )
            self.window = [*self.window, data][-self.config.window :]
            losses = learn_generation(self.network, self.optimizer, self.game, self.window, self.config, g)
            scores = evaluate(
                self.game, NNUEvaluator(self.network, self.game), previous, self.hand_crafted, self.config, rng
            )
            self.generation += 1
            self._save()
            values = {
                **losses,
                **scores,
                "selfplay/positions": len(data),
                "time/generation_s": time.perf_counter() - start,
            }
            self.logger.scalars(values, self.generation)
            echo(
                f"generation {self.generation}/{self.config.generations}: {len(data)} positions, "
                + scalars({k: v for k, v in values.items() if k.startswith(("loss", "eval"))})
                + f", {values['time/generation_s']:.0f} s"
            )

    def _network_plays(self, g: int) -> bool:
        """Whether generation ``g``'s games are played by the network (where the run has one yet: after
        generation 0, or from the start with ``init``), not by the hand-crafted evaluator."""
        return g > 0 or self.config.init is not None

    def _played(self, g: int, workers: int, backend: Backend, echo) -> Positions:
        """Generation ``g``'s self-play positions: played now, and kept in the run directory until the
        generation ends (a run killed while learning resumes without playing its games again)."""
        path = self.run_dir / f"played-{g + 1}.npz"
        if path.exists():
            echo(f"its games were played before the run stopped ({path})")
            return load_window(path, self.game)[0]
        network = self.network if self._network_plays(g) else None
        data = play_generation(
            self.game,
            self.config,
            g,
            network,
            workers=workers,
            backend=backend,
            progress=lambda n: echo(f"{n}/{self.config.games} games played"),
        )
        save_window(path, [data])
        return data

    def _save(self) -> None:
        """The network, optimizer and window after ``generation`` generations (0: as the run starts)."""
        path = self.run_dir / "latest.nnue.pt"
        save_checkpoint(
            path,
            network=self.network,
            game=self.game,
            optimizer=self.optimizer,
            counters={"generation": self.generation},
            config=dataclasses.asdict(self.config),
        )
        save_window(self.run_dir / "window.npz", self.window)
        (self.run_dir / f"played-{self.generation}.npz").unlink(missing_ok=True)

    def _resume(self) -> None:
        info = load_checkpoint(self.run_dir / "latest.nnue.pt", game=self.game)
        settings = json.loads(json.dumps(dataclasses.replace(self.config, generations=0).__dict__))
        defaults = json.loads(json.dumps(dataclasses.asdict(NNUEConfig())))  # of settings added since the run began
        if {**defaults, **json.loads(json.dumps(info.config)), "generations": 0} != settings:
            raise ValueError(
                f"{self.run_dir} was trained with other settings; resume it with the same preset and --set"
            )
        load_weights(self.network, info)
        self.optimizer.load_state_dict(info.optimizer_state)
        self.generation = int(info.counters["generation"])
        self.window = load_window(self.run_dir / "window.npz", self.game)
