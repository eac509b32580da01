"""The ``uci`` verb: an agent as a UCI engine on stdin and stdout, for chess GUIs and python-chess."""

from __future__ import annotations

import argparse
import sys

from rlgames.cli.common import add_game, game_from_args


def cmd_uci(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    if "uci" not in game.protocols:
        raise ValueError(f"{game.name} speaks no UCI (UCI speaks chess)")
    game.locate(game.protocols["uci"])(game, args.agent).run(sys.stdin)
    return 0


def add_uci_verb(verbs: argparse._SubParsersAction) -> None:
    uci = verbs.add_parser(
        "uci",
        help="speak UCI on stdin/stdout (chess GUIs, python-chess, lichess bots)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Runs AGENT as a UCI engine: point a chess GUI (Cute Chess, Arena) at this command.\n"
            "Alpha-beta takes each go's budget (movetime, clock, depth, nodes, infinite) and\n"
            "reports every iteration; another agent plays with the budget of its spec.\n"
            "The game's usual search settings apply unless the spec names them (chess:\n"
            "quiescence=8; quiescence=0 turns it off).\n"
            'Example: rlgames uci chess --agent "alphabeta(model=checkpoints/chess.nnue.pt)"'
        ),
    )
    add_game(uci)
    uci.add_argument(
        "--agent",
        default="alphabeta(eval=heuristic)",
        metavar="SPEC",
        help="the engine's agent (default alphabeta(eval=heuristic))",
    )
    uci.set_defaults(run=cmd_uci)
