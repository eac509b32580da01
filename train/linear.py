"""A learned linear evaluator: the weights of a game's hand-crafted features fitted from self-play.

The lecture notes' evaluation is a weighted linear sum ``Eval(s) = w1 f1(s) + ... + wn fn(s)`` whose
weights are set by hand, and they point to "learning the features using machine learning" as the more
advanced technique. This module learns the *weights* of the hand-crafted features (the features stay
those of `rlgames.evaluators`), so that hand-tuned, learned-linear and network evaluations can be
compared inside the same search::

    python -m rlgames.train.linear connect_four --games 4000 --out runs/c4_linear.json
    rlgames ... "alphabeta(depth=4, eval=learned, weights=runs/c4_linear.json)"

**Data.** ``games`` games are played by ``player`` (default `default_player`: alpha-beta at depth
2 with the hand-crafted evaluation, cheap and deterministic) with two sources of diversity, so that the
games do not all repeat one line: each game opens with ``k`` uniformly random plies, ``k`` drawn from
``0..random_opening``, and every later move is uniformly random with probability ``epsilon``
(epsilon-greedy); chance outcomes are sampled. Every decision position of every game is recorded:
its hand-crafted features from the side to move (``LinearEvaluator.features``) and the game's final
outcome ``z`` from that same side, as a value in [-1, 1] (`rlgames.train.targets.outcome_values`: -1, 0 or 1
in a game of wins worth one point). The outcomes are those of this noisy player, so the
fitted weights predict the result of *its* games; the random moves also make the positions more
varied than a strong player's.

**Model.** Logistic regression without intercept (the evaluator has none): the probability that the
side to move wins is ``p = sigmoid(2 w . f / scale)``, fitted to the target ``(z + 1) / 2`` (a draw
counts half) by minimising the mean cross-entropy plus ``l2 / 2 * |w'|^2`` on weights ``w'`` of the
features rescaled to unit root mean square. Because ``sigmoid(2x) = (1 + tanh x) / 2``, the
evaluator's value ``tanh(w . f / scale)`` is then exactly ``2p - 1``: the expected outcome from the
side to move. ``scale`` is the hand-crafted evaluator's, so the two sets of weights are directly
comparable. The fit is Newton's method (IRLS) with a backtracking line search; the objective is
convex, and strictly so with ``l2 > 0``.

**Evaluation.** The games are split (by game, not by position: the positions of a game are
correlated) into training games and ``holdout`` held-out games. The saved weights are fitted on the
training games; the report gives the log-loss (mean cross-entropy, in nats; a constant ``p = 1/2``
scores ln 2 = 0.693) of the learned and the hand-tuned weights on both parts, and their *sign
accuracy*: over the decisive positions, how often the sign of ``w . f`` names the winner (a score of
0 counts half).

**Output.** A JSON file (format `rlgames.evaluators.WEIGHTS_FORMAT`): the game's name and parameters,
the evaluator class, the feature names, the learned and hand-tuned weights, the scale, how the data was
made (games, seed, player spec, epsilon, random opening) and the fit metrics. Load it with
``load_evaluator("learned", game, weights=FILE)`` (or ``"heuristic"`` with the same parameter).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from rlgames.threads import pin_threads
from rlgames.train.settings import ConfigError, config_from_args, settings_parser
from rlgames.train.targets import outcome_values

import rlgames
from rlgames.cli.common import add_game_params
from rlgames.evaluators import WEIGHTS_FORMAT, LinearEvaluator, load_evaluator
from rlgames.game import CHANCE, TERMINAL, Game


@dataclass(frozen=True)
class LinearConfig:
    """A run of ``python -m rlgames.train.linear``: the self-play games and the fit; each field below is a
    ``--set KEY=VALUE``."""

    games: int = 2000
    """Self-play games whose positions are fitted."""
    player: str = ""
    """Agent spec of the self-play player ("": `default_player`, depth-2 search with the hand-crafted
    evaluation)."""
    epsilon: float = 0.1
    """Probability that a move after the opening is uniformly random."""
    random_opening: int = 4
    """Each game opens with 0 to this many uniformly random plies."""
    l2: float = 1e-4
    """L2 penalty on the weights of the features rescaled to unit root mean square."""
    holdout: float = 0.2
    """Fraction of the games held out to measure the fit."""
    seed: int = 0
    """Seed of the games and of the held-out split."""

    def __post_init__(self) -> None:
        if self.games < 1 or self.random_opening < 0 or not 0 <= self.epsilon <= 1 or self.l2 < 0:
            raise ConfigError(f"need games >= 1, random_opening >= 0, 0 <= epsilon <= 1 and l2 >= 0: got {self}")
        if not 0 <= self.holdout < 1:
            raise ConfigError(f"holdout must be in [0, 1), got {self.holdout}")


PRESETS = {"default": LinearConfig(), "smoke": LinearConfig(games=20)}
"""Settings to start from; the fit needs no tuning per game."""


def default_player(game: Game) -> str:
    """The default data-generating agent: a depth-2 search with the hand-crafted evaluation (alpha-beta,
    or expectiminimax for games with chance); no transposition table, which does not pay at depth 2."""
    if game.has_chance:
        return "expectiminimax(depth=2, eval=heuristic, tt_mb=0)"
    return "alphabeta(depth=2, eval=heuristic, tt_mb=0)"


@dataclass
class Dataset:
    """The recorded positions: ``features`` float64[N, n] from the side to move, ``outcomes``
    float64[N], the final returns as values in [-1, 1] (`GameInfo.value`) from the side to move,
    ``game_ids`` int64[N] (which game, from 0)."""

    features: np.ndarray
    outcomes: np.ndarray
    game_ids: np.ndarray

    @property
    def targets(self) -> np.ndarray:
        """``(z + 1) / 2`` in [0, 1]: 1 for a win of the side to move, 1/2 for a draw, 0 for a loss (in a
        game of 1- and 2-point wins, 3/4 for a 1-point win)."""
        return (self.outcomes + 1.0) / 2.0

    def subset(self, mask: np.ndarray) -> Dataset:
        return Dataset(self.features[mask], self.outcomes[mask], self.game_ids[mask])


def generate(
    game: Game,
    num_games: int,
    *,
    player: str | None = None,
    seed: int = 0,
    epsilon: float = LinearConfig.epsilon,
    random_opening: int = LinearConfig.random_opening,
    evaluator: LinearEvaluator | None = None,
) -> Dataset:
    """Plays ``num_games`` games of ``player`` (a spec, default `default_player`) against itself with
    random openings and epsilon-greedy random moves (see the module docstring), and records the
    features of every decision position with the final outcome from its side to move."""
    if num_games < 1:
        raise ValueError(f"num_games must be positive, got {num_games}")
    if not 0.0 <= epsilon <= 1.0 or random_opening < 0:
        raise ValueError("epsilon must be in [0, 1] and random_opening non-negative")
    evaluator = evaluator or load_evaluator("heuristic", game)
    features_kernel = type(evaluator).features
    n = len(evaluator.feature_names)
    rng = np.random.default_rng(seed)
    agent = rlgames.load_agent(player or default_player(game), game)
    agent.seed(int(rng.integers(2**31)))
    rows: list[np.ndarray] = []
    outcomes: list[float] = []
    game_ids: list[int] = []
    for index in range(num_games):
        state = game.new_initial_state()
        opening = int(rng.integers(random_opening + 1))
        movers: list[int] = []
        ply = 0
        while not state.is_terminal():
            mover = state.current_player()
            if mover == CHANCE:
                outcomes_probs = state.chance_outcomes()
                probs = np.array([p for _, p in outcomes_probs])
                state = state.apply(outcomes_probs[rng.choice(len(probs), p=probs / probs.sum())][0])
                continue
            out = np.zeros(n, dtype=np.float64)
            features_kernel(state.compact, out)
            rows.append(out)
            movers.append(mover)
            if ply < opening or rng.random() < epsilon:
                legal = state.legal_actions()
                action = legal[rng.integers(len(legal))]
            else:
                action = agent.act(state)
            state = state.apply(action)
            ply += 1
        assert state.current_player() == TERMINAL
        values = outcome_values(state)
        outcomes.extend(values[mover] for mover in movers)
        game_ids.extend([index] * len(movers))
    features = np.array(rows, dtype=np.float64).reshape(-1, n)
    return Dataset(features, np.array(outcomes, dtype=np.float64), np.array(game_ids, dtype=np.int64))


def _cross_entropy(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per-sample ``-(y log p + (1 - y) log(1 - p))`` with ``p = sigmoid(logit)``, stably."""
    return np.logaddexp(0.0, logits) - targets * logits


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def log_loss(features: np.ndarray, outcomes: np.ndarray, weights: Sequence[float], scale: float) -> float:
    """Mean cross-entropy (nats) of ``p = sigmoid(2 w . f / scale)`` against ``(z + 1) / 2``."""
    logits = features @ (2.0 * np.asarray(weights, dtype=np.float64) / scale)
    return float(np.mean(_cross_entropy(logits, (outcomes + 1.0) / 2.0)))


def sign_accuracy(features: np.ndarray, outcomes: np.ndarray, weights: Sequence[float]) -> float:
    """Over the decisive positions, the fraction where the sign of ``w . f`` is the outcome's (a score
    of 0 counts half); NaN without decisive positions."""
    decisive = outcomes != 0
    if not decisive.any():
        return float("nan")
    signs = np.sign(features[decisive] @ np.asarray(weights, dtype=np.float64))
    return float(np.mean(np.where(signs == 0, 0.5, signs == np.sign(outcomes[decisive]))))


@dataclass
class Fit:
    """The result of `fit_logistic`: the weights (for ``tanh(w . f / scale)``), Newton iterations, the
    final penalised objective and whether the gradient reached the tolerance."""

    weights: np.ndarray
    iterations: int
    objective: float
    converged: bool


def fit_logistic(
    features: np.ndarray,
    outcomes: np.ndarray,
    scale: float,
    *,
    l2: float = LinearConfig.l2,
    max_iterations: int = 100,
    tolerance: float = 1e-9,
) -> Fit:
    """Fits ``w`` so that ``sigmoid(2 w . f / scale)`` predicts ``(z + 1) / 2`` (no intercept), by
    Newton's method on the mean cross-entropy plus ``l2 / 2 * |w'|^2``, where ``w'`` are the weights of
    the features divided by their root mean square (a feature that is always 0 gets weight 0)."""
    features = np.asarray(features, dtype=np.float64)
    outcomes = np.asarray(outcomes, dtype=np.float64)
    if features.ndim != 2 or outcomes.shape != (features.shape[0],) or features.shape[0] == 0:
        raise ValueError(
            f"expected features [N, n] and outcomes [N] with N > 0, got {features.shape}, {outcomes.shape}"
        )
    if l2 < 0 or scale <= 0:
        raise ValueError("l2 must be non-negative and scale positive")
    rms = np.sqrt(np.mean(features**2, axis=0))
    rms[rms == 0] = 1.0
    x = features / rms
    y = (outcomes + 1.0) / 2.0
    count, dim = x.shape
    beta = np.zeros(dim)

    def objective(b: np.ndarray) -> float:
        return float(np.mean(_cross_entropy(x @ b, y)) + 0.5 * l2 * b @ b)

    current = objective(beta)
    converged = False
    steps = 0
    while True:
        p = _sigmoid(x @ beta)
        gradient = x.T @ (p - y) / count + l2 * beta
        if np.max(np.abs(gradient)) < tolerance:
            converged = True
            break
        if steps == max_iterations:
            break
        hessian = (x.T * (p * (1.0 - p))) @ x / count + (l2 + 1e-12) * np.eye(dim)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        t = 1.0
        while True:  # backtracking (Armijo) line search
            candidate = beta - t * step
            value = objective(candidate)
            if value <= current - 1e-4 * t * (gradient @ step) or t < 1e-10:
                break
            t *= 0.5
        if not value < current:  # no further progress in floating point: as converged as it gets
            converged = bool(np.max(np.abs(gradient)) < 1e-6)
            break
        beta, current = candidate, value
        steps += 1
    weights = beta / rms * (scale / 2.0)  # logit = 2 w . f / scale
    return Fit(weights=weights, iterations=steps, objective=current, converged=converged)


def split_games(dataset: Dataset, holdout: float, seed: int) -> tuple[Dataset, Dataset]:
    """Training and held-out positions, the held-out ones from a random ``holdout`` fraction of the
    games (at least one game on each side when there are two or more)."""
    games = np.unique(dataset.game_ids)
    count = int(round(holdout * len(games)))
    if holdout > 0 and len(games) >= 2:
        count = min(max(count, 1), len(games) - 1)
    held = np.random.default_rng([seed, 1]).permutation(games)[:count]
    mask = np.isin(dataset.game_ids, held)
    return dataset.subset(~mask), dataset.subset(mask)


def metrics(
    train: Dataset, heldout: Dataset, learned: np.ndarray, hand_tuned: np.ndarray, scale: float
) -> dict[str, float | None]:
    """Log-loss and sign accuracy of the learned and hand-tuned weights on both parts of the data."""
    out: dict[str, float | None] = {"constant_log_loss": math.log(2.0)}
    for part, data in (("train", train), ("heldout", heldout)):
        for label, weights in (("learned", learned), ("hand_tuned", hand_tuned)):
            if len(data.outcomes):
                loss = log_loss(data.features, data.outcomes, weights, scale)
                accuracy = sign_accuracy(data.features, data.outcomes, weights)
            else:
                loss = accuracy = float("nan")
            out[f"{part}_log_loss_{label}"] = None if math.isnan(loss) else loss
            out[f"{part}_sign_accuracy_{label}"] = None if math.isnan(accuracy) else accuracy
    return out


def train_linear(game: Game, config: LinearConfig) -> dict[str, Any]:
    """Generates the games, fits the weights on the training games and returns the JSON record (see
    the module docstring)."""
    evaluator = load_evaluator("heuristic", game)
    player = config.player or default_player(game)
    start = time.perf_counter()
    dataset = generate(
        game,
        config.games,
        player=player,
        seed=config.seed,
        epsilon=config.epsilon,
        random_opening=config.random_opening,
        evaluator=evaluator,
    )
    generated = time.perf_counter()
    train, heldout = split_games(dataset, config.holdout, config.seed)
    fit = fit_logistic(train.features, train.outcomes, evaluator.scale, l2=config.l2)
    fitted = time.perf_counter()
    hand_tuned = np.asarray(evaluator.weights, dtype=np.float64)
    outcomes = dataset.outcomes
    return {
        "format": WEIGHTS_FORMAT,
        "game": game.name,
        "game_params": json.loads(json.dumps(game.params)),
        "evaluator": type(evaluator).__name__,
        "feature_names": list(evaluator.feature_names),
        "weights": fit.weights.tolist(),
        "scale": float(evaluator.scale),
        "hand_tuned_weights": hand_tuned.tolist(),
        "training": {
            **dataclasses.asdict(config),
            "player": player,
            "positions": int(len(outcomes)),
            "train_positions": int(len(train.outcomes)),
            "heldout_positions": int(len(heldout.outcomes)),
            "outcomes": {
                "win": int(np.sum(outcomes > 0)),
                "draw": int(np.sum(outcomes == 0)),
                "loss": int(np.sum(outcomes < 0)),
            },
            "newton_iterations": fit.iterations,
            "converged": fit.converged,
            "generate_seconds": round(generated - start, 3),
            "fit_seconds": round(fitted - generated, 3),
        },
        "metrics": metrics(train, heldout, fit.weights, hand_tuned, evaluator.scale),
    }


def save(record: dict[str, Any], path: str | os.PathLike) -> None:
    """Writes ``record`` as JSON, creating the parent folder."""
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(record, file, indent=2)
        file.write("\n")


def report(record: dict[str, Any]) -> str:
    """A human-readable summary of a record: the weights side by side and the metrics."""
    params = ", ".join(f"{k}={v}" for k, v in record["game_params"].items())
    training = record["training"]
    lines = [
        f"{record['game']}{f'({params})' if params else ''}: {training['positions']} positions from "
        f"{training['games']} games of {training['player']} (epsilon {training['epsilon']:g}, "
        f"0..{training['random_opening']} random opening plies, seed {training['seed']})"
    ]
    lines.append(
        f"  {'feature':28s} {'hand-tuned':>11s} {'learned':>11s}   (value = tanh(w . f / {record['scale']:g}))"
    )
    for name, hand, learned in zip(record["feature_names"], record["hand_tuned_weights"], record["weights"]):
        lines.append(f"  {name:28s} {hand:11.4g} {learned:11.4g}")
    m = record["metrics"]

    def show(value: float | None) -> str:
        return "    n/a" if value is None else f"{value:7.4f}"

    lines.append(f"  log-loss (nats; constant 1/2: {m['constant_log_loss']:.4f})  hand-tuned  learned")
    for part in ("train", "heldout"):
        lines.append(
            f"    {part:8s}{'':30s} {show(m[f'{part}_log_loss_hand_tuned'])}  {show(m[f'{part}_log_loss_learned'])}"
        )
    lines.append("  sign accuracy (decisive positions)            hand-tuned  learned")
    for part in ("train", "heldout"):
        lines.append(
            f"    {part:8s}{'':30s} {show(m[f'{part}_sign_accuracy_hand_tuned'])}  "
            f"{show(m[f'{part}_sign_accuracy_learned'])}"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    description = (
        "Fit the weights of a game's hand-crafted evaluation features by logistic regression on the "
        "outcomes of self-play games; write them as JSON for load_evaluator('learned', game, weights=FILE)."
    )
    parser = settings_parser(
        "python -m rlgames.train.linear",
        description,
        LinearConfig,
        PRESETS,
        example="epsilon=0.2",
        default_preset="default",
    )
    parser.add_argument("--out", required=True, help="the JSON file to write")
    parser.add_argument("--games", type=int, help="self-play games (the same as --set games=N)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (the same as --set seed=S)")
    add_game_params(parser)
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace) -> LinearConfig:
    """The preset with the ``--config`` file's, the ``--set`` and the ``--games``/``--seed`` overrides."""
    return config_from_args(args, PRESETS, default="default")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    pin_threads()
    try:
        config = make_config(args)
        game = rlgames.load_game(args.game, **dict(args.param))
        record = train_linear(game, config)
    except ValueError as error:
        print(f"python -m rlgames.train.linear: {error}", file=sys.stderr)
        return 2
    save(record, args.out)
    print(report(record))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
