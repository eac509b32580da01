"""``python -m rlgames.train.td GAME [-p KEY=VALUE ...] [--preset NAME] [--games N] [--out DIR] [--seed S]
[--resume] [--workers N [--ray [--address ADDR]]] [--set KEY=VALUE ...]``

Trains an NNUE (`rlgames.models.networks.NNUE`'s value path) by TD(lambda) self-play, as TD-Gammon learned
backgammon (Tesauro 1992, 1995), for any rlgames game, chance games included; the game loop, the
network and its updates run compiled (`rlgames.train.td.kernels`).

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

* **Outcomes.** With ``--set outcomes=true`` the network learns, instead of one value, the probabilities
  of the game's outcomes (`rlgames.evaluators.outcomes`): backgammon at full scoring (``-p
  scoring_type=full_scoring``) has five, P(win) and the gammons and backgammons won and lost, as
  TD-Gammon 2's outputs. Each is a player-0 probability with a trace of its own (player 1's afterstates
  read them mirrored: its P(win) is 1 - player 0's, its gammons won are player 0's lost); a terminal
  afterstate's targets are the outcomes it reached. Play picks the afterstate of best expected return.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlgames.threads import pin_threads
from rlgames.models import CheckpointError
from rlgames.cli.common import add_backend_arguments, add_game_params, backend_from_args
from rlgames.train.settings import config_from_args, settings_parser
from rlgames.train.td.config import PRESETS, TDConfig
from rlgames.train.td.run import Run

import rlgames


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = settings_parser(
        "python -m rlgames.train.td", __doc__.split("\n\n")[1], TDConfig, PRESETS, example="alpha=0.05"
    )
    parser.add_argument("--games", type=int, help="train up to this many games in all (extends a resumed run)")
    parser.add_argument("--seed", type=int, help="the seed of everything random (default: the preset's, 0)")
    parser.add_argument("--out", help="checkpoint and logs (default: runs/td-GAME)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="play each evaluation's games in this many processes (the same games; default 1)",
    )
    add_game_params(parser)
    add_backend_arguments(parser)
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace) -> TDConfig:
    """The preset with the ``--config`` file's, the ``--set`` and the ``--games``/``--seed`` overrides."""
    return config_from_args(args, PRESETS)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pin_threads()
    try:
        config = make_config(args)
        game = rlgames.load_game(args.game, **dict(args.param))
        if game.network_game() != game:
            raise ValueError(
                f"train for {game.network_game()!r}: its networks also play {game!r}, whose decisions "
                "beyond it are taken by formula"
            )
        out = Path(args.out or f"runs/td-{args.game}")
        print(f"TD(lambda) for {args.game} into {out}: {config}")
        Run(game, config, out, resume=args.resume, workers=args.workers, backend=backend_from_args(args)).run()
    except (CheckpointError, ValueError, OSError) as error:
        print(f"python -m rlgames.train.td: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: continue with --resume", file=sys.stderr)
        return 130
    return 0
