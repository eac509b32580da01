"""The ``rlgames`` command: one verb per job.

    rlgames games                          list the games, their parameters and sizes
    rlgames show connect_four --moves 4453 draw a position reached by moves in the game's notation
    rlgames solve connect_four --moves 4453
                                           solve a position exactly: value, plies to the end, best moves
"""

from __future__ import annotations

import argparse
import inspect
import sys
from typing import Sequence

from rlgames.registry import game_class, list_games, load_game


def _parse_param(text: str) -> tuple[str, object]:
    """``key=value`` with the value read as a Python literal when it is one (``heaps=1,3,5``)."""
    import ast

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def _game_from_args(args: argparse.Namespace):
    return load_game(args.game, **dict(args.param))


def cmd_games(args: argparse.Namespace) -> int:
    for name in list_games():
        cls = game_class(name)
        params = inspect.signature(cls.__init__).parameters.values()
        defaults = ", ".join(f"{p.name}={p.default!r}" for p in params if p.name != "self")
        game = cls()
        chance = ", chance nodes" if game.has_chance else ""
        print(f"{name}({defaults}): {game.num_actions} actions, observation {game.observation_shape}, "
              f"at most {game.max_game_length} plies{chance}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game = _game_from_args(args)
    state = game.state_from_moves(args.moves)
    print(state)
    if state.is_terminal():
        print(f"game over, returns {state.returns()}")
    else:
        moves = ", ".join(state.action_to_string(a) for a in state.legal_actions())
        print(f"to move: player {state.current_player()}; legal: {moves}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    from rlgames.solvers import solve

    state = _game_from_args(args).state_from_moves(args.moves)
    result = solve(state)
    print(state)
    outcome = {1: "win", 0: "draw", -1: "loss"}[result.value]
    print(f"to move: player {state.current_player()}")
    print(f"value: {outcome} ({result.value:+d}) for the side to move")
    print(f"plies to the end: {result.plies_to_end}")
    if hasattr(result, "score"):
        print(f"score (Pons): {result.score:+d}")
    print(f"best moves: {', '.join(state.action_to_string(a) for a in result.best_actions)}")
    print(f"value-preserving moves: {', '.join(state.action_to_string(a) for a in result.value_preserving_actions)}")
    print(f"nodes: {result.nodes}, time: {1000 * result.time_s:.2f} ms")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlgames", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("games", help="list the games").set_defaults(run=cmd_games)
    show = verbs.add_parser("show", help="draw a position")
    show.add_argument("game", choices=list_games())
    show.add_argument("--moves", default="", help="moves in the game's notation, separated by spaces")
    show.add_argument("--param", "-p", action="append", type=_parse_param, default=[],
                      metavar="KEY=VALUE", help="a game parameter, e.g. -p heaps=(1,3,5)")
    show.set_defaults(run=cmd_show)
    solve = verbs.add_parser("solve", help="solve a position exactly (deterministic games)")
    solve.add_argument("game", choices=list_games())
    solve.add_argument("--moves", default="", help="moves in the game's notation, separated by spaces "
                       "(connect four also reads a Pons string such as 4453)")
    solve.add_argument("--param", "-p", action="append", type=_parse_param, default=[],
                       metavar="KEY=VALUE", help="a game parameter, e.g. -p heaps=(1,3,5)")
    solve.set_defaults(run=cmd_solve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as error:  # bad moves or parameters: say what is wrong, no traceback
        print(f"rlgames {args.verb}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
