"""The ``warmup`` verb: compile ahead what the games' agents run, so that a first search answers at once."""

from __future__ import annotations

import argparse
import time

from rlgames.cli.common import game_name, parse_game_param


def cmd_warmup(args: argparse.Namespace) -> int:
    from rlgames.agents import load_agent
    from rlgames.agents.spec import default_spec
    from rlgames.agents.warmup import compiled_heuristic, first_decision, warm_rules, warm_search
    from rlgames.registry import list_games, load_game

    for name in args.games or list_games():
        game = load_game(name, **dict(args.param))
        specs = args.agent or [default_spec(game)]
        agents = [load_agent(spec, game) for spec in specs]  # a bad spec is refused before anything compiles
        started = time.perf_counter()
        warm_rules(first_decision(game))
        compiled_heuristic(game)
        for agent in agents:
            warm_search(agent, game)
        print(f"{name}: {', '.join(specs)} compiled in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


def add_warmup_verb(verbs: argparse._SubParsersAction) -> None:
    warmup = verbs.add_parser(
        "warmup",
        help="compile the games' rules, evaluators and searches ahead (a first search then answers at once)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Compiles, into numba's cache, each game's rules, its hand-crafted evaluator and the search of\n"
            "each agent (default: the game's own, as rlgames play uses; chess's searches with quiescence), so\n"
            "that later commands start at once. Protocol engines (rlgames uci) answer at once without it, on a\n"
            "fallback move until their search is compiled.\n"
            'Example: rlgames warmup chess connect_four --agent "alphabeta(depth=6)"'
        ),
    )
    warmup.add_argument("games", nargs="*", type=game_name, metavar="GAME", help="the games (default: all)")
    warmup.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="an agent whose search to compile (repeatable; default: the game's own)",
    )
    warmup.add_argument(
        "--param",
        "-p",
        action="append",
        type=parse_game_param,
        default=[],
        metavar="KEY=VALUE",
        help="a game parameter, e.g. -p heaps=(1,3,5)",
    )
    warmup.set_defaults(run=cmd_warmup)
