"""A learned rollout policy: AlphaGo's p_pi, a linear softmax over move features fitted to a strong
player's moves, for a game that names one (`rlgames.Game.rollout_policy`: go's)::

    python -m rlgames.train.rollout go -p board_size=9 --games 400 --workers 2 --out runs/go9_rollout.npz
    rlgames arena go "mcts(time=0.1, rollout=runs/go9_rollout.npz)" "mcts(time=0.1, rollout=patterns)" ...

**Data.** ``games`` games of ``player`` against itself (default: MCTS with RAVE, 1,000 simulations a move),
each opening with 0 to ``random_opening`` uniformly random plies so that they do not repeat one line,
played in ``workers`` processes; or, with ``--journal``, the games of recorded matches (the ``games.jsonl``
of ``rlgames arena --out DIR``), the moves of both players after each game's opening, so that a policy can
be fitted to any engine's games, an external one's (``gtp:COMMAND``) or the shipped network's (what those
gave: docs/research/go.md#network-games)::

    rlgames arena go "gtp:gnugo --mode gtp --level 1" "mcts(time=0.1, rave=true)" -p board_size=9 \
        --games 400 --opening-plies 4 --out runs/go9_games
    python -m rlgames.train.rollout go -p board_size=9 --journal runs/go9_games/games.jsonl --out go9_rollout.npz

Every position where the player placed a stone that is one of the policy's candidates is recorded: the
candidates' features (a shape class and flags, the policy's ``candidates``) and which one was played.
Passes and moves the policy never plays (filling one's own eye) are left out.

**Model.** The probability of candidate ``a`` is ``softmax_a(shape[class(a)] + local . flags(a))``, the
weights fitted by maximum likelihood (mean cross-entropy of the move played) with an L2 penalty ``l2 / 2
* |w|^2``, by L-BFGS (the objective is convex). AlphaGo fitted its p_pi the same way to 8 million human
positions (Silver et al. 2016, Methods); here the strong player is rlgames' own best search. The flags'
weights are then multiplied by ``local_scale``: a playout policy is not the most likely one, and go's
playouts measured better in MCTS answering the last move about twice as strongly as the fit says
(docs/research/go.md#locality).

**Evaluation.** The games are split by game into training and ``holdout`` held-out games; the report gives,
on both, the mean cross-entropy of the fitted policy and of the uniform one over the same candidates, and
the top-1 accuracy (how often the policy's most likely move is the one played).

**Output.** The weights file of the game's policy (go: ``.npz``), with how it was made.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

import rlgames
from rlgames.arena.journal import read_games
from rlgames.cli.common import add_game_params
from rlgames.game import Game
from rlgames.parallel import game_recipe, map_ordered, rebuild_game
from rlgames.threads import pin_threads
from rlgames.train.settings import ConfigError, config_from_args, settings_parser


@dataclass(frozen=True)
class RolloutConfig:
    """A run of ``python -m rlgames.train.rollout``: the games and the fit; each field is a ``--set KEY=VALUE``."""

    games: int = 400
    """Games of the player against itself whose moves are fitted."""
    player: str = "mcts(simulations=1000, rave=true)"
    """Agent spec of the strong player."""
    random_opening: int = 6
    """Each game opens with 0 to this many uniformly random plies."""
    l2: float = 1e-4
    """L2 penalty on the weights."""
    holdout: float = 0.1
    """Fraction of the games held out to measure the fit."""
    seed: int = 0
    """Seed of the games and of the held-out split."""
    local_scale: float = 1.0
    """The fitted local flags' weights are multiplied by this: playouts that answer the opponent's last move
    more often than the player did, which MCTS's playouts need (go: 2, docs/research/go.md#locality)."""

    def __post_init__(self) -> None:
        if self.games < 2 or self.random_opening < 0 or self.l2 < 0 or not 0 < self.holdout < 1 or self.local_scale < 0:
            raise ConfigError(
                f"need games >= 2, random_opening >= 0, l2 >= 0, 0 < holdout < 1 and local_scale >= 0: got {self}"
            )


PRESETS = {"default": RolloutConfig(), "smoke": RolloutConfig(games=4, player="mcts(simulations=50, rave=true)")}
"""Settings to start from."""


MAX_FLAGS = 8
"""The most local flags a policy may have (bits of the ``flags`` masks)."""


@dataclass
class Moves:
    """The recorded moves: candidate ``i`` of all positions has shape class ``shapes[i]``, local flag mask
    ``flags[i]`` and belongs to position ``position[i]``; ``chosen[j]`` is the index (among all
    candidates) of the move played at position ``j``, which belongs to game ``game_ids[j]``."""

    shapes: np.ndarray
    flags: np.ndarray
    position: np.ndarray
    chosen: np.ndarray
    game_ids: np.ndarray

    @functools.cached_property
    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The shapes, the flags as bits (column ``i``: flag ``i``, up to `MAX_FLAGS`), the positions and
        the moves played as torch tensors, made once for the fit's many evaluations."""
        bits = (self.flags[:, None] >> np.arange(MAX_FLAGS)) & 1
        return (
            torch.as_tensor(self.shapes),
            torch.as_tensor(bits, dtype=torch.float64),
            torch.as_tensor(self.position),
            torch.as_tensor(self.chosen),
        )

    def subset(self, positions: np.ndarray) -> Moves:
        """The moves of the positions where ``positions`` (bool per position) is set, renumbered."""
        keep = positions[self.position]
        renumber = np.cumsum(positions) - 1
        first = np.cumsum(keep) - 1
        return Moves(
            self.shapes[keep],
            self.flags[keep],
            renumber[self.position[keep]],
            first[self.chosen[positions]],
            self.game_ids[positions],
        )


def play_game(context: tuple[Game, Any], item: tuple[int, int, int]) -> list[int]:
    """One game of the player against itself (``item``: its index, seed and random opening plies): its actions."""
    game, agent = context
    index, seed, opening = item
    rng = np.random.default_rng(seed)
    agent.seed(seed)
    state, actions = game.new_initial_state(), []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = int(legal[rng.integers(len(legal))]) if len(actions) < opening else agent.act(state)
        actions.append(action)
        state = state.apply(action)
    return actions


def _setup(recipe: Any, player: str) -> tuple[Game, Any]:
    game = rebuild_game(recipe)
    return game, rlgames.load_agent(player, game)


def play_games(
    game: Game, config: RolloutConfig, rng: np.random.Generator, workers: int
) -> tuple[list[list[int]], list[int]]:
    """The games of the player against itself and their random opening plies, in ``workers`` processes."""
    items = [(i, int(rng.integers(2**31)), int(rng.integers(config.random_opening + 1))) for i in range(config.games)]
    setup_args = (game_recipe(game), config.player)
    games = list(map_ordered(play_game, items, workers=workers, setup=_setup, setup_args=setup_args))
    return games, [opening for _, _, opening in items]


def journal_games(game: Game, paths: Sequence[str]) -> tuple[list[list[int]], list[int]]:
    """The games of the match journals ``paths`` and their opening lengths; a journal of another game, or
    of other parameters, raises `ValueError` in one line."""
    games, openings = [], []
    for path in paths:
        header, records = read_games(path)
        try:
            same = rlgames.load_game(header["game"], **header["params"]).params == game.params
        except (KeyError, TypeError, ValueError):
            same = False
        if not same:
            found = f"{header.get('game')} {header.get('params')}"
            raise ValueError(f"{path} holds games of {found}, not {game.name} {game.params}")
        games += [list(record["actions"]) for record in records]
        openings += [len(record["opening"]) for record in records]
    if len(games) < 2:
        raise ValueError(f"need at least 2 games to fit and hold out, found {len(games)} in {', '.join(paths)}")
    return games, openings


def record_moves(game: Game, games: Sequence[Sequence[int]], openings: Sequence[int]) -> Moves:
    """The features of the moves of ``games`` after their openings (see the module docstring)."""
    policy = game.locate(game.rollout_policy)
    shapes, flags, position, chosen, game_ids = [], [], [], [], []
    offset = 0
    for index, (actions, opening) in enumerate(zip(games, openings)):
        state, last = game.new_initial_state(), None
        for ply, action in enumerate(actions):
            if ply >= opening:
                moves, shape, flag = policy.candidates(state, last)
                hit = np.flatnonzero(moves == action)
                if len(hit):
                    chosen.append(offset + int(hit[0]))
                    shapes.append(shape)
                    flags.append(flag)
                    position.append(np.full(len(moves), len(game_ids)))
                    game_ids.append(index)
                    offset += len(moves)
            state, last = state.apply(action), action
    if not chosen:
        raise ValueError("no move of the player was among the policy's candidates: nothing to fit")
    return Moves(
        np.concatenate(shapes),
        np.concatenate(flags),
        np.concatenate(position),
        np.array(chosen, dtype=np.int64),
        np.array(game_ids, dtype=np.int64),
    )


def _logits(moves: Moves, shape: torch.Tensor, local: torch.Tensor) -> torch.Tensor:
    shapes, bits, _, _ = moves.tensors
    return shape[shapes] + bits[:, : len(local)] @ local


def _position_max(moves: Moves, logits: torch.Tensor) -> torch.Tensor:
    """The largest of each position's candidates' ``logits``."""
    position = moves.tensors[2]
    return torch.zeros(len(moves.chosen), dtype=torch.float64).scatter_reduce(
        0, position, logits, "amax", include_self=False
    )


def cross_entropy(moves: Moves, shape: torch.Tensor, local: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy (nats) of the moves played under the policy of these weights."""
    _, _, position, chosen = moves.tensors
    logits = _logits(moves, shape, local)
    top = _position_max(moves, logits)
    sums = torch.zeros(len(moves.chosen), dtype=torch.float64).index_add(0, position, torch.exp(logits - top[position]))
    return (top + torch.log(sums) - logits[chosen]).mean()


def accuracy(moves: Moves, shape: torch.Tensor, local: torch.Tensor) -> float:
    """How often the policy's most likely candidate is the move played."""
    logits = _logits(moves, shape, local).detach()
    return float((logits[moves.tensors[3]] >= _position_max(moves, logits)).double().mean())


def uniform_cross_entropy(moves: Moves) -> float:
    """The mean cross-entropy of the uniform policy over the same candidates: the mean log of their number."""
    return float(np.log(np.bincount(moves.position)).mean())


def fit(moves: Moves, num_shapes: int, num_local: int, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """The weights of least penalised cross-entropy, by L-BFGS from zero."""
    shape = torch.zeros(num_shapes, dtype=torch.float64, requires_grad=True)
    local = torch.zeros(num_local, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([shape, local], max_iter=500, tolerance_grad=1e-9, line_search_fn="strong_wolfe")

    def objective() -> torch.Tensor:
        optimiser.zero_grad()
        loss = cross_entropy(moves, shape, local) + l2 / 2 * (shape.square().sum() + local.square().sum())
        loss.backward()
        return loss

    optimiser.step(objective)
    return shape.detach().numpy(), local.detach().numpy()


def train_rollout(
    game: Game, config: RolloutConfig, *, workers: int = 1, journals: Sequence[str] = ()
) -> dict[str, Any]:
    """Plays the games (or reads those of the match ``journals``), fits the policy and measures it; returns
    the weights and the record."""
    if game.rollout_policy is None:
        raise ValueError(f"{game.name} has no learnable rollout policy (Game.rollout_policy)")
    policy = game.locate(game.rollout_policy)
    rng = np.random.default_rng(config.seed)
    games, openings = journal_games(game, journals) if journals else play_games(game, config, rng, workers)
    moves = record_moves(game, games, openings)
    held = np.zeros(len(games), dtype=bool)
    held[rng.choice(len(games), max(1, round(config.holdout * len(games))), replace=False)] = True
    train, test = moves.subset(~held[moves.game_ids]), moves.subset(held[moves.game_ids])
    shape, fitted = fit(train, policy.num_shapes, len(policy.local_names), config.l2)
    local = config.local_scale * fitted
    weights = (torch.as_tensor(shape), torch.as_tensor(local))
    metrics = {}
    for part, data in (("train", train), ("holdout", test)):
        metrics[f"{part}_positions"] = len(data.chosen)
        metrics[f"{part}_cross_entropy"] = float(cross_entropy(data, *weights))
        metrics[f"{part}_uniform_cross_entropy"] = uniform_cross_entropy(data)
        metrics[f"{part}_top1"] = accuracy(data, *weights)
    return {
        "game": game.name,
        "params": game.params,
        "config": asdict(config),
        "source": {"journals": list(journals), "games": len(games)} if journals else {"player": config.player},
        "metrics": metrics,
        "local": dict(zip(policy.local_names, map(float, local))),
        "local_fitted": dict(zip(policy.local_names, map(float, fitted))),
        "shape": shape,
        "local_weights": local,
    }


def report(record: dict[str, Any]) -> str:
    """The fit's figures, one line a part."""
    m = record["metrics"]
    source = record["source"]
    fitted = f"{source['games']} games of {', '.join(source['journals'])}" if "journals" in source else source["player"]
    game = f"{record['game']} {record['params']}"
    scale = record["config"]["local_scale"]
    scaled = f" (the fitted {record['local_fitted']} times {scale:g})" if scale != 1 else ""
    lines = [f"rollout policy of {game}, fitted to {fitted}: flag weights {record['local']}{scaled}"]
    for part in ("train", "holdout"):
        lines.append(
            f"  {part:8s} {m[f'{part}_positions']:7d} positions  cross-entropy {m[f'{part}_cross_entropy']:.3f} "
            f"(uniform {m[f'{part}_uniform_cross_entropy']:.3f})  top-1 {m[f'{part}_top1']:.1%}"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    description = (
        "Fit a game's learnable rollout policy (AlphaGo's p_pi) to the moves of a strong player's games; write "
        "its weights for mcts(rollout=FILE)."
    )
    parser = settings_parser(
        "python -m rlgames.train.rollout",
        description,
        RolloutConfig,
        PRESETS,
        example="games=100",
        default_preset="default",
    )
    parser.add_argument("--out", required=True, help="the weights file to write (go: .npz)")
    parser.add_argument("--games", type=int, help="games of the player (the same as --set games=N)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (the same as --set seed=S)")
    parser.add_argument("--workers", type=int, default=1, help="play the games in this many processes (default 1)")
    parser.add_argument(
        "--journal",
        action="append",
        default=[],
        metavar="PATH",
        help="fit the moves of the games of this match journal (rlgames arena --out DIR: DIR/games.jsonl) instead "
        "of playing games; repeat for more (the settings of the games played are then unused)",
    )
    add_game_params(parser)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    pin_threads()
    try:
        config = config_from_args(args, PRESETS, default="default")
        game = rlgames.load_game(args.game, **dict(args.param))
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        record = train_rollout(game, config, workers=args.workers, journals=args.journal)
    except ValueError as error:
        print(f"python -m rlgames.train.rollout: {error}", file=sys.stderr)
        return 2
    meta = {k: v for k, v in record.items() if k not in ("shape", "local_weights")}
    game.locate(game.rollout_policy).save(args.out, record["shape"], record["local_weights"], record=json.dumps(meta))
    print(report(record))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
