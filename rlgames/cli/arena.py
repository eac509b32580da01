"""The verbs that measure agents: ``arena`` (tournaments), ``analyse`` and ``accuracy`` (positions)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from rlgames.cli.common import (
    add_backend_arguments,
    add_progress_flag,
    add_sprt_arguments,
    backend_from_args,
    existing_file,
    game_from_args,
    progress_wanted,
    seeded_agent,
    sprt_from_args,
    verb_with_agents,
)

if TYPE_CHECKING:
    from rlgames.arena.positions import PositionLine
    from rlgames.game import Game


def cmd_arena(args: argparse.Namespace) -> int:
    from rlgames.arena import (
        ArenaConfig,
        console_report,
        log_to_tensorboard,
        resolve_anchor,
        run_arena,
        write_results,
    )

    config = ArenaConfig(
        args.game,
        tuple(args.specs),
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        opening_plies=args.opening_plies,
        openings_file=args.openings,
        game_params=tuple(args.param),
        anchor=resolve_anchor(args.anchor, args.specs),
        anchor_rating=args.anchor_rating,
        prior_draws=args.prior_draws,
        sprt=sprt_from_args(args),
        backend=backend_from_args(args),
    )
    result = run_arena(config, progress=progress_wanted(args))
    print(console_report(result))
    if args.out is not None:
        folder = write_results(result, args.out)
        print(f"wrote {', '.join(sorted(path.name for path in folder.iterdir()))} to {folder}")
    if args.tensorboard is not None:
        log_to_tensorboard(result, args.tensorboard)
        print(f"logged the Elo values under arena/ to {args.tensorboard}")
    return 0


def add_arena_verb(verbs: argparse._SubParsersAction) -> None:
    arena = verb_with_agents(
        verbs,
        "arena",
        "a match or round-robin tournament between agents",
        (
            "Plays every pair of agents --games times: half as many openings, each played with both colourings.\n"
            "Prints the players ranked by Elo (maximum likelihood, draws as half a win) with 95% intervals and\n"
            "every pair's wins/draws/losses, the points per game (a player's return, in the game's utility\n"
            "range) with 95% intervals, and each player's mean and longest time per move; --out writes\n"
            "results.json, games.csv, report.md, elo.png, scores.png. Equal depth: alphabeta(depth=4, model=FILE)\n"
            "against alphabeta(depth=4, eval=heuristic); equal time: give every player the same time=SECONDS per\n"
            "move (alphabeta(time=0.1, model=FILE) against alphabeta(time=0.1)); timed players are not reproducible.\n"
            'Example: rlgames arena connect_four "alphabeta(depth=4)" "alphabeta(depth=2)" random --games 40 '
            "--workers 2 --out arena-out"
        ),
    )
    arena.add_argument("specs", nargs="+", metavar="SPEC", help="two or more agent specs")
    arena.add_argument("--games", type=int, default=100, help="games per pair, even (default 100)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the openings, agents and chance (default 0)")
    arena.add_argument("--out", metavar="DIR", help="folder for results.json, games.csv, report.md and the plots")
    arena.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    add_backend_arguments(arena)
    arena.add_argument(
        "--opening-plies", type=int, default=2, help="plies of the random openings, drawn without repeats (default 2)"
    )
    arena.add_argument(
        "--openings",
        type=existing_file,
        metavar="FILE",
        help="openings, one per line, as moves in the game's notation (connect four: Pons' "
        "notation, e.g. 4453); used instead of random ones",
    )
    arena.add_argument(
        "--anchor", default="0", metavar="SPEC_OR_INDEX", help="the player whose Elo is fixed (default the first)"
    )
    arena.add_argument("--anchor-rating", type=float, default=0.0, help="the anchor's Elo (default 0)")
    arena.add_argument(
        "--prior-draws",
        type=float,
        default=1.0,
        help="virtual draws added per pair so that perfect scores keep finite Elo (default 1; "
        "0 for the plain maximum likelihood)",
    )
    add_sprt_arguments(arena, "a two-player match")
    arena.add_argument("--tensorboard", metavar="DIR", help="log the Elo values under arena/ tags to DIR")
    add_progress_flag(arena)
    arena.set_defaults(run=cmd_arena)


def _agent_and_positions(args: argparse.Namespace) -> tuple[Game, Any, list[PositionLine]]:
    from rlgames.arena.positions import read_position_file

    game = game_from_args(args)
    agent = seeded_agent(args.agent, game, args.seed)
    positions = read_position_file(args.positions, game)
    return game, agent, positions[: args.limit] if args.limit is not None else positions


def cmd_analyse(args: argparse.Namespace) -> int:
    import json

    from rlgames.analysis import analyse

    game, agent, positions = _agent_and_positions(args)
    with open(args.out, "w") if args.out is not None else contextlib.nullcontext(sys.stdout) as out:
        for record in analyse(game, agent, positions, progress=progress_wanted(args)):
            out.write(json.dumps(record) + "\n")
    return 0


def cmd_accuracy(args: argparse.Namespace) -> int:
    from rlgames.analysis import measure_accuracy

    game, agent, positions = _agent_and_positions(args)
    accuracy = measure_accuracy(
        game, agent, positions, truth=args.truth, draw_margin=args.draw_margin, progress=progress_wanted(args)
    )
    print(f"{args.agent} on {accuracy.positions} positions of {args.positions} (truth: {accuracy.truth})")
    print(f"optimal moves: {accuracy.optimal_moves}/{accuracy.positions} = {accuracy.optimal_move_rate:.1%}")
    print(f"value sign:    {accuracy.value_signs}/{accuracy.positions} = {accuracy.value_sign_rate:.1%}")
    return 0


def add_position_verbs(verbs: argparse._SubParsersAction) -> None:
    files = (
        "Positions: one per line, as moves from the start in the game's notation; connect four in\n"
        "Pons' notation (4453), possibly followed by a score, e.g. Pons' benchmark files."
    )
    analyse = verb_with_agents(
        verbs,
        "analyse",
        "an agent's move, value and statistics per position",
        "Writes one JSON line per position: the agent's action and move, its value, "
        "its principal variation and search statistics.\n" + files,
    )
    accuracy = verb_with_agents(
        verbs,
        "accuracy",
        "an agent's accuracy against the exact truth",
        (
            "Optimal-move accuracy (the move keeps the game-theoretic value) and value-sign accuracy (the sign\n"
            "of the agent's value), against the exact solver or the scores of a labelled file (Pons' format;\n"
            "then only the child of the agent's move is solved).\n" + files
        ),
    )
    for parser in (analyse, accuracy):
        parser.add_argument("--agent", required=True, metavar="SPEC", help="the agent's spec")
        parser.add_argument("--positions", required=True, type=existing_file, metavar="FILE")
        parser.add_argument("--limit", type=int, metavar="N", help="only the first N positions")
        parser.add_argument("--seed", type=int, default=0, help="seed of an agent that has one (default 0)")
        add_progress_flag(parser)
    analyse.add_argument("--out", metavar="FILE.jsonl", help="where to write the JSON lines (default stdout)")
    analyse.set_defaults(run=cmd_analyse)
    accuracy.add_argument(
        "--truth",
        choices=("auto", "solver", "labels"),
        default="auto",
        help="the solver, or the file's scores; auto: the scores when every line has one",
    )
    accuracy.add_argument(
        "--draw-margin", type=float, default=0.0, help="agent values within this of 0 count as a draw (default 0)"
    )
    accuracy.set_defaults(run=cmd_accuracy)
