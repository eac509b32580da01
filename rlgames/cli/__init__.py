"""The ``rlgames`` command: one verb per job.

    rlgames games                          list the games, their parameters and sizes
    rlgames agents                         list the agents (the spec language) and the evaluators
    rlgames show connect_four --moves 4453 draw a position reached by moves in the game's notation
    rlgames solve connect_four --moves 4453
                                           solve a position exactly: value, plies to the end, best moves
    rlgames play connect_four --agent "alphabeta(depth=6)"
                                           play against an agent in the terminal (undo, moves, quit)
    rlgames arena tic_tac_toe random solver --games 20 --out arena-out
                                           a match or round-robin tournament: Elo, pairwise scores, files
    rlgames compare connect_four --learned checkpoints/connect_four.nnue.pt
                                           learned against hand-crafted alpha-beta, at equal depth and time
    rlgames analyse connect_four --agent solver --positions FILE
                                           an agent's move, value and search statistics per position
    rlgames accuracy connect_four --agent "alphabeta(depth=4)" --positions FILE
                                           optimal-move and value-sign accuracy against the exact truth,
                                           by stage; --whole-games: keeping the result against the solver
    rlgames positions connect_four --plies 0-36 --out FILE.jsonl
                                           positions sampled from varied games, labelled by the solver
    rlgames uci chess --agent "alphabeta(eval=heuristic)"
                                           a UCI engine on stdin/stdout, for chess GUIs and python-chess
    rlgames gtp go -p board_size=9 --agent "mcts(time=2)"
                                           a GTP engine on stdin/stdout, for go GUIs and match runners
    rlgames warmup chess                   compile a game's rules and searches ahead, into numba's cache
    rlgames train tic_tac_toe --seed 0     train a network by self-play (hands over to python -m rlgames.train)
    rlgames bench mcts                     a benchmark against OpenSpiel (games, alphabeta, mcts, solver)

The command is a package with a module per group of verbs (`rlgames.cli.games`, ``play``, ``arena``,
``compare``, ``uci``, ``gtp``, ``handover``) over `rlgames.cli.common`; every error of bad input is one line
and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from rlgames.threads import pin_threads
from rlgames.cli.arena import add_arena_verb, add_position_verbs
from rlgames.cli.common import Parser, one_line, parse_game_param
from rlgames.cli.compare import add_compare_verb
from rlgames.cli.games import SOLVE_TIME, add_game_verbs
from rlgames.cli.gtp import add_gtp_verb
from rlgames.cli.handover import HANDOVERS, add_handover_verbs
from rlgames.cli.play import add_play_verb
from rlgames.cli.uci import add_uci_verb
from rlgames.cli.warmup import add_warmup_verb

__all__ = ["SOLVE_TIME", "build_parser", "main", "parse_game_param"]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="rlgames",
        description=__doc__.split("\n\nThe command is")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    add_game_verbs(verbs)
    add_play_verb(verbs)
    add_handover_verbs(verbs)
    add_arena_verb(verbs)
    add_compare_verb(verbs)
    add_uci_verb(verbs)
    add_gtp_verb(verbs)
    add_warmup_verb(verbs)
    add_position_verbs(verbs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    pin_threads()  # results independent of the environment's thread settings (rlgames.threads)
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away (`rlgames agents | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 128 + signal.SIGPIPE


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.verb not in HANDOVERS:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.verb in HANDOVERS:  # everything after the verb belongs to the program handed over to
        args.arguments = [*args.arguments, *extra]
    try:
        return args.run(args)
    except BrokenPipeError:  # an OSError, but no bad input: `main` ends quietly
        raise
    except (ValueError, OSError) as error:  # bad input or a missing file: say what is wrong, no traceback
        print(f"rlgames {args.verb}: {one_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
