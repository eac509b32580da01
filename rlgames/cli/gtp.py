"""The ``gtp`` verb: an agent as a GTP engine on stdin and stdout, for go GUIs, servers and match runners."""

from __future__ import annotations

import argparse
import sys

from rlgames.cli.common import add_game, game_from_args


def cmd_gtp(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    if "gtp" not in game.protocols:
        raise ValueError(f"{game.name} speaks no GTP (GTP speaks go)")
    game.locate(game.protocols["gtp"])(game, args.agent).run(sys.stdin)
    return 0


def add_gtp_verb(verbs: argparse._SubParsersAction) -> None:
    gtp = verbs.add_parser(
        "gtp",
        help="speak GTP on stdin/stdout (go GUIs: Sabaki, GoGui; gogui-twogtp, kgsGtp)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Runs AGENT as a GTP (version 2) engine: point a go GUI or match runner at this command.\n"
            "With time_settings and time_left, alpha-beta and MCTS take each genmove's share of the\n"
            "clock; without them, or another agent, the agent plays with the budget of its spec.\n"
            "The board size and komi are the game's (-p board_size=9 -p komi=6.5) until the\n"
            "controller's boardsize and komi change them. Scoring is Tromp-Taylor, and the engine\n"
            "never resigns.\n"
            'Example: rlgames gtp go -p board_size=9 --agent "mcts(time=2)"'
        ),
    )
    add_game(gtp)
    gtp.add_argument(
        "--agent",
        default="mcts(time=1.0)",
        metavar="SPEC",
        help="the engine's agent (default mcts(time=1.0))",
    )
    gtp.set_defaults(run=cmd_gtp)
