"""``python -m rlgames.train.td GAME [--preset NAME] [--games N] [--out DIR] [--seed S] [--resume] [--set KEY=VALUE ...]``

Trains an NNUE (`rlgames.models.networks.NNUE`'s value path) by TD(lambda) self-play, as TD-Gammon learned
backgammon (Tesauro 1992, 1995), for any rlgames game, chance games included; the game loop, the
network and its updates run compiled (`rlgames.train.td_kernels`).

* **Play.** Each player takes, among the afterstates of its turn (the first state after its actions that
  is terminal, a chance node or the opponent's decision), the one of best value for it: the network's
  value ``V(a)`` is for ``observer(a)`` (the compiled NNUE evaluator's convention), so it counts +V when
  that is the player and -V otherwise; a terminal afterstate counts its return / max_return. With
  probability ``epsilon`` the turn is random instead. Chance outcomes are drawn by their probabilities.
* **TD(lambda).** Along a game's afterstates a_0, a_1, ... the target of a_t is a_{t+1}'s value turned
  to a_t's observer's point of view (the return at the end), delta_t = target - V(a_t), and
  ``e <- lam * e + sign_t * grad V(a_t)``, ``w <- w + alpha * sign_t * delta_t * e`` (Sutton 1988). The
  sign (+1 when player 0 observes a_t, else -1) makes this exact TD(lambda) on player 0's value
  ``sign * V``: a trace summing gradients of the two players' values unsigned would push each earlier
  gradient by an error of the wrong sign once the observer changes.
* **Decisions.** At each decision the value of the decision state itself (for the side to move) takes
  a gradient step of ``alpha * decision_weight`` toward the value of its best afterstate (the one played
  unless the turn was random), so that the network is right at the decision nodes that searches
  evaluate too.

Every ``eval_every`` games the network is saved (``OUT/latest.pt``, atomically: `NNUEvaluator` and every
search load it with ``model=OUT/latest.pt``) and measured by compiled 1-ply greedy matches against the
game's hand-crafted evaluator, the previous checkpoint and random turns (``eval_games`` games, colours
alternated, each pair of games sharing its openings and dice), logged to TensorBoard (``OUT/tb``) with
the mean |delta| and games/s. The checkpoint holds the PRNG state, so ``--resume`` continues a killed
run exactly as an uninterrupted one.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rlgames.models import CheckpointError
from rlgames.models.checkpoint import load_checkpoint, load_network, save_checkpoint
from rlgames.models.networks import NNUE, build_network
from rlgames.train.config import (
    ConfigError,
    apply_overrides,
    parse_settings,
    read_override_file,
    settings_help,
)
from rlgames.train.logger import RunLogger
from rlgames.train.td_kernels import (
    HEURISTIC,
    NET,
    RANDOM,
    STATS,
    TDOps,
    layout,
    make_td_ops,
    no_heuristic,
)

import rlgames
from rlgames.arena.scores import PairResult
from rlgames.evaluators import load_evaluator
from rlgames.game import Game
from rlgames.jit.rng import new_rng_state

CHECKPOINT = "latest.pt"


@dataclass(frozen=True)
class TDConfig:
    """A run of ``python -m rlgames.train.td``: TD(lambda) self-play of a small network, TD-Gammon's
    learning; each field below is a ``--set KEY=VALUE``.

    TD-Gammon's values are ``lam = 0.7`` and ``alpha = 0.1`` (Tesauro 1992, "Practical Issues in Temporal
    Difference Learning", as its reproductions quote it; not checked against the paper's text here). Its
    output was a sigmoid P in [0, 1]; ours is tanh = 2 P - 1 in [-1, 1], whose error and gradient are
    each twice P's, so TD-Gammon's steps take ``alpha = 0.1 / 4`` here. What the knobs did on tic-tac-toe
    and backgammon is in ``docs/research/td.md``."""

    accumulator: int = 80
    """Units of the network's first layer."""
    hidden: int = 16
    """Units of its hidden layer."""
    alpha: float = 0.025
    """Learning rate of the TD steps."""
    lam: float = 0.7
    """Decay of the eligibility traces (TD(lambda)'s lambda)."""
    epsilon: float = 0.0
    """Probability that a self-play turn is random."""
    decision_weight: float = 1.0
    """Weight of the TD steps taught at decision nodes (0: only afterstates learn)."""
    init_range: float = 0.1
    """Initial parameters are uniform in ``[-init_range, init_range]``."""
    games: int = 100_000
    """Self-play games of the run."""
    eval_every: int = 5_000
    """Games between a checkpoint and an evaluation."""
    eval_games: int = 400
    """Games of each evaluation (an even number: colours alternate)."""
    eval_opening_turns: int = 0
    """Random turns opening each evaluation game (a deterministic game needs at least 1)."""
    opponent: str = "heuristic"
    """The evaluator the evaluations measure the network against, besides its previous self and random
    turns (`rlgames.evaluators.load_evaluator`: ``heuristic``, or backgammon's ``pubeval``)."""
    init: str = ""
    """A checkpoint of a run of the same size whose weights start this one (a second phase at a lower
    ``alpha``)."""
    seed: int = 0
    """Seed of the games and of the initial parameters."""

    def __post_init__(self) -> None:
        for name in ("accumulator", "hidden", "games", "eval_every", "eval_games"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.eval_games % 2:
            raise ConfigError(f"eval_games must be even (colours alternate), got {self.eval_games}")
        if not (self.alpha > 0 and 0 <= self.lam <= 1 and 0 <= self.epsilon <= 1 and self.decision_weight >= 0
                and self.init_range > 0 and self.eval_opening_turns >= 0):
            raise ConfigError("need alpha > 0, 0 <= lam <= 1, 0 <= epsilon <= 1, decision_weight >= 0, "
                              f"init_range > 0 and eval_opening_turns >= 0: got {self}")


PRESETS = {
    # TD-Gammon 0.0's 40 to 80 hidden units, here feeding a small second layer (docs/research/td.md)
    "backgammon": TDConfig(accumulator=80, hidden=16, alpha=0.01, games=400_000, eval_every=10_000,
                           eval_games=1000, opponent="pubeval"),
    "tic_tac_toe": TDConfig(accumulator=32, hidden=16, epsilon=0.2, games=20_000, eval_every=2_000,
                            eval_opening_turns=1),
    "pig": TDConfig(accumulator=32, hidden=16, epsilon=0.1, games=20_000, eval_every=2_000),
    "smoke": TDConfig(accumulator=8, hidden=4, epsilon=0.1, games=200, eval_every=100, eval_games=20,
                      eval_opening_turns=1),
}


# --- the network's parameters --------------------------------------------------------------------------
def network_dims(game: Game, config: TDConfig) -> tuple[int, int, int]:
    """``(F, A, H)``: features (the flattened observation), accumulator and hidden units."""
    return math.prod(game.observation_shape), config.accumulator, config.hidden


def initial_params(dims: tuple[int, int, int], config: TDConfig) -> np.ndarray:
    """float32[P]: every weight and bias uniform in [-init_range, init_range] (seeded).

    The clipped ReLU has no gradient outside [0, 1], so about half the units start off (z < 0) on a
    given input. Starting them all in the linear part instead (b1 = b2 = 0.5) did not help: on
    tic-tac-toe (32 + 16 units, alpha 0.025, epsilon 0.1, 6 seeds) 1-ply play kept the value in 85.8%
    of the 3,191 positions where some move loses it after 20,000 games (this init: 88.0%, torch's
    default init 88.5%) and 92.0% after 60,000 (93.0%). Units saturate during training either way
    (60-80% of them on a given position); units off on every position stayed rare (at most 6%)."""
    _, _, _, _, _, size = layout(dims)
    params = np.random.default_rng(config.seed).uniform(-config.init_range, config.init_range, size)
    return params.astype(np.float32)


def value_path(params: np.ndarray, dims: tuple[int, int, int]) -> dict[str, torch.Tensor]:
    """The entries of an `NNUE`'s state dict that hold its value path, from the flat ``params``."""
    features, width, hidden = dims
    b1, w2, b2, w3, b3, _ = layout(dims)
    arrays = {"accumulator.weight": params[:b1].reshape(features, width).T, "accumulator.bias": params[b1:w2],
              "hidden.weight": params[w2:b2].reshape(width, hidden).T, "hidden.bias": params[b2:w3],
              "value.weight": params[w3:b3].reshape(1, hidden), "value.bias": params[b3:]}
    return {name: torch.from_numpy(np.ascontiguousarray(array)) for name, array in arrays.items()}


def to_network(params: np.ndarray, dims: tuple[int, int, int], game: Game, seed: int) -> NNUE:
    """The `NNUE` whose value path holds ``params``; its policy head keeps its initialisation (``seed``)."""
    network: NNUE = build_network(game, "nnue", seed=seed, accumulator=dims[1], hidden=dims[2])  # type: ignore[assignment]
    network.load_state_dict(value_path(params, dims), strict=False)
    return network


def from_network(network: NNUE) -> np.ndarray:
    """float32[P]: the flat parameters of ``network``'s value path (inverse of `to_network`)."""
    w1, b1, w2, b2, w3, b3 = network.export()
    return np.concatenate([w1.ravel(), b1, w2.ravel(), b2, w3, [b3]]).astype(np.float32)


def compile_ops(game: Game, opponent: str = "heuristic") -> TDOps:
    """The game's compiled loops; the kernel of the evaluator named ``opponent`` plays ``HEURISTIC`` (a
    game without a hand-crafted evaluator has none when that is ``"heuristic"``)."""
    if opponent == "heuristic" and game.heuristic is None:
        return make_td_ops(game.kernels, tuple(game.observation_shape), game.initial_compact_state(), no_heuristic)
    kernel = load_evaluator(opponent, game).kernel
    if kernel is None:
        raise ConfigError(f"opponent {opponent!r} has no compiled kernel for {game.name}")
    return make_td_ops(game.kernels, tuple(game.observation_shape), game.initial_compact_state(), kernel)


# --- evaluation --------------------------------------------------------------------------------------
def match_summary(returns: np.ndarray, max_return: int) -> dict[str, float]:
    """The first player's win rate, score (win 1, draw 1/2) and points per game over ``returns``, the
    last two with 95% intervals (`rlgames.arena.scores`)."""
    values, counts = np.unique(returns, return_counts=True)
    pair = PairResult((0, 1), int((returns > 0).sum()), int((returns == 0).sum()), int((returns < 0).sum()),
                      points=tuple((float(v), int(c)) for v, c in zip(values, counts)))
    score_low, score_high = pair.interval()
    points_low, points_high = pair.points_interval(bound=max_return)
    return {"win_rate": pair.wins / pair.games, "score": pair.score, "score_low": score_low,
            "score_high": score_high, "points": pair.points_per_game, "points_low": points_low,
            "points_high": points_high}


def evaluate(game: Game, ops: TDOps, params: np.ndarray, previous: np.ndarray, dims: tuple[int, int, int],
             config: TDConfig, step: int) -> dict[str, dict[str, float]]:
    """The network's results, as a 1-ply greedy player, against each opponent: ``config.opponent`` (unless
    that is the hand-crafted evaluator of a game without one), the ``previous`` parameters and random turns."""
    pairs = config.eval_games // 2
    pair_rngs = np.random.SeedSequence([config.seed, step]).generate_state(4 * pairs, np.uint64).reshape(pairs, 4)
    opponents = {config.opponent: HEURISTIC, "previous": NET, "random": RANDOM}
    if config.opponent == "heuristic" and game.heuristic is None:
        del opponents["heuristic"]
    results = {}
    for name, kind in opponents.items():
        returns = np.zeros(config.eval_games, dtype=np.int64)
        ops.match(params, previous, dims, kind, pair_rngs, config.eval_opening_turns, returns)
        results[name] = match_summary(returns, game.kernels.max_return)
    return results


# --- the run -----------------------------------------------------------------------------------------
class Run:
    """A training run in ``out``: the parameters, the PRNG, the counters and the logs."""

    def __init__(self, game: Game, config: TDConfig, out: Path, *, resume: bool,
                 echo: Callable[[str], None] = print) -> None:
        self.game, self.config, self.out, self.echo = game, config, out, echo
        self.dims = network_dims(game, config)
        self.params = self._initial_weights(config.init) if config.init else initial_params(self.dims, config)
        self.rng = new_rng_state(config.seed)
        self.games = 0
        if resume:
            self._resume()
        elif (out / CHECKPOINT).exists():
            raise ValueError(f"{out} already holds a run: pass --resume to continue it, or another --out")
        self.ops = compile_ops(game, config.opponent)
        self.previous = self.params.copy()
        self.logger = RunLogger(out, echo)
        self.logger.config(dataclasses.asdict(config), self.games)

    def run(self) -> None:
        while self.games < self.config.games:
            chunk = min(self.config.eval_every, self.config.games - self.games)
            stats = np.zeros(len(STATS))
            start = time.perf_counter()
            self.ops.train(self.params, self.dims, self.rng, chunk, self.config.alpha, self.config.lam,
                           self.config.epsilon, self.config.decision_weight, stats)
            seconds = time.perf_counter() - start
            self.games += chunk
            self.save(self.out / CHECKPOINT)
            results = evaluate(self.game, self.ops, self.params, self.previous, self.dims, self.config, self.games)
            self.previous = self.params.copy()
            self._log(dict(zip(STATS, stats)), seconds, results)
        self.logger.close()

    def _log(self, stats: dict[str, float], seconds: float, results: dict[str, dict[str, float]]) -> None:
        values = {"td/mean_abs_delta": stats["abs_delta"] / max(stats["td_steps"], 1),
                  "speed/games_per_s": stats["games"] / seconds,
                  "selfplay/decisions_per_game": stats["decisions"] / stats["games"],
                  "selfplay/afterstates_per_decision": stats["afterstates"] / max(stats["decisions"], 1),
                  "selfplay/first_player_points": stats["first_player_return"] * self.game.kernels.max_return
                  / stats["games"]}
        values |= {f"eval/{name}_{key}": value for name, result in results.items() for key, value in result.items()}
        self.logger.scalars(values, self.games)
        shown = ", ".join(f"vs {name} {r['score']:.1%} [{r['score_low']:.1%}, {r['score_high']:.1%}] "
                          f"{r['points']:+.2f} pts/game" for name, r in results.items())
        self.echo(f"games {self.games}/{self.config.games}: |delta| {values['td/mean_abs_delta']:.3f}, "
                  f"{values['speed/games_per_s']:.0f} games/s; {shown}")

    def save(self, path: Path) -> None:
        save_checkpoint(path, network=to_network(self.params, self.dims, self.game, self.config.seed),
                        game=self.game, counters={"games": self.games, "rng": [int(w) for w in self.rng]},
                        config=dataclasses.asdict(self.config))

    def _initial_weights(self, path: str) -> np.ndarray:
        network, _ = load_network(Path(path), self.game)
        features, width, hidden = self.dims
        if not isinstance(network, NNUE) or [w.shape for w in network.export()[:3:2]] != [(features, width), (width, hidden)]:
            raise ConfigError(f"init {path}: not a TD network of {width} + {hidden} units for {self.game.name}")
        return from_network(network)

    def _resume(self) -> None:
        path = self.out / CHECKPOINT
        info = load_checkpoint(path, game=self.game)
        if {**info.config, "games": 0} != {**dataclasses.asdict(self.config), "games": 0}:
            raise ValueError(f"{self.out} was trained with other settings; resume it with the same preset and overrides")
        network, _ = load_network(path, self.game)
        try:
            self.params = from_network(network)  # type: ignore[arg-type]
            self.games = int(info.counters["games"])
            self.rng = np.array(info.counters["rng"], dtype=np.uint64)
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise CheckpointError(f"{path}: not a checkpoint of python -m rlgames.train.td ({error!r})") from None


# --- the command line ----------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rlgames.train.td", description=__doc__.split("\n\n")[1],
                                     epilog=settings_help(TDConfig),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help=f"the game: {', '.join(rlgames.list_games())}")
    parser.add_argument("--preset", help=f"settings: {', '.join(PRESETS)} (default: the game's, else smoke)")
    parser.add_argument("--games", type=int, help="train up to this many games in all (extends a resumed run)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (default: the preset's, 0)")
    parser.add_argument("--out", help="checkpoint and logs (default: runs/td-GAME)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    parser.add_argument("--config", help="a JSON or TOML file of TDConfig overrides")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one TDConfig setting, e.g. --set alpha=0.05 (repeatable)")
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace) -> TDConfig:
    """The preset with the ``--config`` file's, the ``--set`` and the ``--games``/``--seed`` overrides."""
    preset = args.preset or (args.game if args.game in PRESETS else "smoke")
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    overrides: dict[str, Any] = read_override_file(args.config) if args.config else {}
    overrides |= parse_settings(args.set)
    overrides |= {key: value for key, value in (("games", args.games), ("seed", args.seed)) if value is not None}
    return apply_overrides(PRESETS[preset], overrides, where=f"preset {preset}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = make_config(args)
        game = rlgames.load_game(args.game)
        out = Path(args.out or f"runs/td-{args.game}")
        print(f"TD(lambda) for {args.game} into {out}: {config}")
        Run(game, config, out, resume=args.resume).run()
    except (CheckpointError, ValueError, OSError) as error:
        print(f"python -m rlgames.train.td: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: continue with --resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
