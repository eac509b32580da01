"""A TD(lambda) run (`Run`): self-play games in compiled batches (`rlgames.train.td.kernels`), and every
``eval_every`` games a checkpoint and 1-ply greedy matches against the hand-crafted evaluator, the previous
checkpoint and random turns (`evaluate`), logged to TensorBoard; the checkpoint holds the PRNG state, so a
killed run resumes exactly."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from rlgames.models import CheckpointError
from rlgames.models.checkpoint import load_checkpoint, load_network, save_checkpoint
from rlgames.models.networks import NNUE
from rlgames.train.logger import RunLogger
from rlgames.train.settings import ConfigError
from rlgames.train.td.config import TDConfig
from rlgames.train.td.kernels import (
    HEURISTIC,
    NET,
    RANDOM,
    STATS,
    TDOps,
    make_td_ops,
    no_heuristic,
)
from rlgames.train.td.network import (
    Dims,
    outcomes_from_value,
    from_network,
    initial_params,
    network_dims,
    td_inputs,
    to_network,
)

from rlgames.arena.scores import PairResult
from rlgames.evaluators import load_evaluator
from rlgames.game import Game
from rlgames.jit.rng import new_rng_state
from rlgames.parallel import LOCAL, Backend, GameRecipe, game_recipe, map_ordered, rebuild_game

CHECKPOINT = "latest.pt"


def compile_ops(game: Game | GameRecipe, opponent: str = "heuristic", inputs: str = "") -> TDOps:
    """The game's compiled loops (of a game, or of its `rlgames.parallel.game_recipe` in a worker) for a
    network reading ``inputs`` (`TDConfig.inputs`); the kernel of the evaluator named ``opponent`` plays
    ``HEURISTIC`` (a game without a hand-crafted evaluator has none when that is ``"heuristic"``)."""
    if not isinstance(game, Game):
        game = rebuild_game(game)
    encode, shape = td_inputs(game, inputs)
    if opponent == "heuristic" and game.heuristic is None:
        kernel = no_heuristic
    else:
        kernel = load_evaluator(opponent, game).kernel
        if kernel is None:
            raise ConfigError(f"opponent {opponent!r} has no compiled kernel for {game.name}")
    return make_td_ops(game.kernels, shape, game.initial_compact_state(), kernel, encode)


def match_summary(returns: np.ndarray) -> dict[str, float]:
    """The first player's win rate, score (win 1, draw 1/2) and points per game over ``returns``, the
    last two with 95% intervals (`rlgames.arena.scores`)."""
    values, counts = np.unique(returns, return_counts=True)
    pair = PairResult(
        (0, 1),
        int((returns > 0).sum()),
        int((returns == 0).sum()),
        int((returns < 0).sum()),
        points=tuple((float(v), int(c)) for v, c in zip(values, counts)),
    )
    score_low, score_high = pair.interval()
    points_low, points_high = pair.points_interval()
    return {
        "win_rate": pair.wins / pair.games,
        "score": pair.score,
        "score_low": score_low,
        "score_high": score_high,
        "points": pair.points_per_game,
        "points_low": points_low,
        "points_high": points_high,
    }


def evaluate(
    game: Game,
    ops: TDOps,
    params: np.ndarray,
    previous: np.ndarray,
    dims: Dims,
    config: TDConfig,
    step: int,
    *,
    workers: int = 1,
    backend: Backend = LOCAL,
) -> dict[str, dict[str, float]]:
    """The network's results, as a 1-ply greedy player, against each opponent: ``config.opponent`` (unless
    that is the hand-crafted evaluator of a game without one), the ``previous`` parameters and random turns.
    Each pair of games has its own seed, so ``workers`` processes or Ray actors (`rlgames.parallel`, on
    ``backend``), each playing a share of the pairs, give the same results as one."""
    pairs = config.eval_games // 2
    pair_rngs = np.random.SeedSequence([config.seed, step]).generate_state(4 * pairs, np.uint64).reshape(pairs, 4)
    opponents = {config.opponent: HEURISTIC, "previous": NET, "random": RANDOM}
    if config.opponent == "heuristic" and game.heuristic is None:
        del opponents["heuristic"]
    shares = [part for part in np.array_split(np.arange(pairs), workers) if len(part)]
    items = [
        (kind, params, previous, dims, pair_rngs[share], config.eval_opening_turns)
        for kind in opponents.values()
        for share in shares
    ]
    played = list(
        map_ordered(
            _play_pairs,
            items,
            workers=min(workers, len(items)),
            setup=compile_ops,
            setup_args=(game_recipe(game), config.opponent, config.inputs),
            local=ops,
            backend=backend,
        )
    )
    return {
        name: match_summary(np.concatenate(played[i * len(shares) : (i + 1) * len(shares)]))
        for i, name in enumerate(opponents)
    }


def _play_pairs(ops: TDOps, item: tuple) -> np.ndarray:
    """The returns of the games of ``item``'s pairs (`TDOps.match`: both colours of each pair)."""
    kind, params, previous, dims, pair_rngs, opening_turns = item
    returns = np.zeros(2 * len(pair_rngs), dtype=np.int64)
    ops.match(params, previous, dims, kind, pair_rngs, opening_turns, returns)
    return returns


class Run:
    """A training run in ``out``: the parameters, the PRNG, the counters and the logs."""

    def __init__(
        self,
        game: Game,
        config: TDConfig,
        out: Path,
        *,
        resume: bool,
        echo: Callable[[str], None] = print,
        workers: int = 1,
        backend: Backend = LOCAL,
    ) -> None:
        """``workers``: processes (or Ray actors, on ``backend``) that play the evaluations' games (the
        self-play learns game after game, in this process)."""
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        self.game, self.config, self.out, self.echo, self.workers = game, config, out, echo, workers
        self.backend = backend
        self.dims = network_dims(game, config)
        self.params = self._initial_weights(config.init) if config.init else initial_params(self.dims, config)
        self.rng = new_rng_state(config.seed)
        self.games = 0
        if resume:
            self._resume()
        elif (out / CHECKPOINT).exists():
            raise ValueError(f"{out} already holds a run: pass --resume to continue it, or another --out")
        self.ops = compile_ops(game, config.opponent, config.inputs)
        self.previous = self.params.copy()
        self.logger = RunLogger(out, echo)
        self.logger.config(dataclasses.asdict(config), self.games)

    def run(self) -> None:
        while self.games < self.config.games:
            chunk = min(self.config.eval_every, self.config.games - self.games)
            stats = np.zeros(len(STATS))
            start = time.perf_counter()
            self.ops.train(
                self.params,
                self.dims,
                self.rng,
                chunk,
                self.config.alpha,
                self.config.lam,
                self.config.epsilon,
                self.config.decision_weight,
                stats,
            )
            seconds = time.perf_counter() - start
            self.games += chunk
            self.save(self.out / CHECKPOINT)
            results = evaluate(
                self.game,
                self.ops,
                self.params,
                self.previous,
                self.dims,
                self.config,
                self.games,
                workers=self.workers,
                backend=self.backend,
            )
            self.previous = self.params.copy()
            self._log(dict(zip(STATS, stats)), seconds, results)
        self.logger.close()

    def _log(self, stats: dict[str, float], seconds: float, results: dict[str, dict[str, float]]) -> None:
        values = {
            "td/mean_abs_delta": stats["abs_delta"] / max(stats["td_steps"], 1),
            "speed/games_per_s": stats["games"] / seconds,
            "selfplay/decisions_per_game": stats["decisions"] / stats["games"],
            "selfplay/afterstates_per_decision": stats["afterstates"] / max(stats["decisions"], 1),
            "selfplay/first_player_points": stats["first_player_return"]
            * self.game.kernels.max_return
            / stats["games"],
        }
        values |= {f"eval/{name}_{key}": value for name, result in results.items() for key, value in result.items()}
        self.logger.scalars(values, self.games)
        shown = ", ".join(
            f"vs {name} {r['score']:.1%} [{r['score_low']:.1%}, {r['score_high']:.1%}] {r['points']:+.2f} pts/game"
            for name, r in results.items()
        )
        self.echo(
            f"games {self.games}/{self.config.games}: |delta| {values['td/mean_abs_delta']:.3f}, "
            f"{values['speed/games_per_s']:.0f} games/s; {shown}"
        )

    def save(self, path: Path) -> None:
        save_checkpoint(
            path,
            network=to_network(self.params, self.dims, self.game, self.config.seed, self.config.inputs),
            game=self.game,
            counters={"games": self.games, "rng": [int(w) for w in self.rng]},
            config=dataclasses.asdict(self.config),
        )

    def _initial_weights(self, path: str) -> np.ndarray:
        """The parameters of the network at ``path``: a TD network of this run's size for this game (under
        any scoring of it), with this run's head, or with one value where this run learns outcomes (its
        value's layers start them: `outcomes_from_value`); reading this run's inputs, or the observation
        where this run's encoding extends it (`rlgames.game.Encoding.extends_observation`: the other rows
        start at 0)."""
        network, _ = load_network(Path(path), self.game, rescore=True)
        features, width, hidden, points = self.dims
        rows = {features}
        if self.config.inputs and self.game.encodings[self.config.inputs].extends_observation:
            rows.add(math.prod(self.game.observation_shape))
        if (
            not isinstance(network, NNUE)
            or [w.shape[1] for w in network.export()[:3:2]] != [width, hidden]
            or network.export()[0].shape[0] not in rows
            or network.points not in (points, 0)
        ):
            raise ConfigError(
                f"init {path}: not a TD network of {width} + {hidden} units for {self.game.name}"
                + (f" with the outcomes of up to {points} points or one value" if points else " with one value")
                + (f", reading {self.config.inputs} or the observation" if len(rows) > 1 else "")
            )
        if network.points != points:
            return outcomes_from_value(network, self.dims)
        return from_network(network, features)

    def _resume(self) -> None:
        path = self.out / CHECKPOINT
        info = load_checkpoint(path, game=self.game)
        if {**info.config, "games": 0} != {**dataclasses.asdict(self.config), "games": 0}:
            raise ValueError(
                f"{self.out} was trained with other settings; resume it with the same preset and overrides"
            )
        network, _ = load_network(path, self.game)
        try:
            self.params = from_network(network)  # type: ignore[arg-type]
            self.games = int(info.counters["games"])
            self.rng = np.array(info.counters["rng"], dtype=np.uint64)
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise CheckpointError(f"{path}: not a checkpoint of python -m rlgames.train.td ({error!r})") from None
