"""The verbs that measure agents: ``arena`` (tournaments), ``analyse`` and ``accuracy`` (positions), and
``positions`` (labelled position files)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rlgames.cli.common import (
    add_backend_arguments,
    add_progress_flag,
    add_sprt_arguments,
    backend_from_args,
    existing_file,
    game_from_args,
    game_params,
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
        game_params=tuple(game_params(args)),
        anchor=resolve_anchor(args.anchor, args.specs),
        anchor_rating=args.anchor_rating,
        prior_draws=args.prior_draws,
        sprt=sprt_from_args(args),
        backend=backend_from_args(args),
    )
    from rlgames.arena.journal import JOURNAL

    if args.resume and args.out is None:
        raise ValueError("--resume continues the match whose games are in --out DIR: give --out")
    journal = None if args.out is None else Path(args.out) / JOURNAL
    result = run_arena(config, progress=progress_wanted(args), journal=journal, resume=args.resume)
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
    arena.add_argument(
        "--out",
        metavar="DIR",
        help="folder for results.json, games.csv, report.md and the plots, and games.jsonl, where each game is "
        "written as it ends",
    )
    arena.add_argument(
        "--resume",
        action="store_true",
        help="continue the match whose games are in --out DIR's games.jsonl: play only the games it lacks",
    )
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
    game, agent, positions = _agent_and_positions(args)
    if args.whole_games:
        return _whole_games(args, game, agent, positions)
    from rlgames.analysis import Accuracy, measure_accuracy

    accuracy = measure_accuracy(
        game, agent, positions, truth=args.truth, draw_margin=args.draw_margin, progress=progress_wanted(args)
    )
    print(f"{args.agent} on {accuracy.positions} positions of {args.positions} (truth: {accuracy.truth})")
    rows: list[tuple[str, Accuracy]] = [
        ("all", accuracy),
        ("decisive", accuracy.decisive()),
        ("drawn", accuracy.drawn()),
    ]
    stages = accuracy.by_stage(args.stages)
    if len(stages) > 1:
        rows += stages
    for label, part in rows:
        if part.positions:
            print(
                f"{label + ':':<14} optimal moves {_fraction(part.optimal_moves, part.positions):<21} "
                f"value sign {_fraction(part.value_signs, part.positions)}"
            )
    return 0


def _fraction(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.1%}"


def _whole_games(args: argparse.Namespace, game: Game, agent: Any, positions: list[PositionLine]) -> int:
    from rlgames.arena.whole_games import play_whole_games

    played = play_whole_games(game, agent, positions, seed=args.seed, progress=progress_wanted(args))
    if not played.games:
        raise ValueError(f"{args.positions}: every position is lost for the side to move; nothing can be kept")
    print(f"{args.agent} against the exact solver, from {len(played.games)} positions of {args.positions}")
    for label, part in (("all", played), ("won", played.starting(1)), ("drawn", played.starting(0))):
        if part.games:
            print(f"{label + ':':<7} kept the result in {_fraction(part.kept, len(part.games))} of the games")
    if played.lost_left_out:
        print(f"({played.lost_left_out} lost positions left out)")
    return 0


def cmd_positions(args: argparse.Namespace) -> int:
    from rlgames.arena.sampling import SamplingConfig, write_labelled_positions

    if not args.out.endswith(".jsonl"):
        raise ValueError(f"--out must name a .jsonl file (a labelled position file), got {args.out!r}")
    game = game_from_args(args)
    config = SamplingConfig(
        plies=args.plies, random_fraction=args.random_fraction, results=args.results, seed=args.seed
    )
    agent = seeded_agent(args.agent, game, args.seed)
    held = write_labelled_positions(args.out, game, agent, config, count=args.count, progress=progress_wanted(args))
    print(f"{args.out}: {held} labelled positions" + ("" if held >= args.count else " (the stages hold no more)"))
    return 0


def ply_range(text: str) -> tuple[int, int]:
    """``LO-HI`` (or one ply ``N``) as a pair of non-negative ints, LO <= HI."""
    lo, _, hi = text.partition("-")
    try:
        pair = (int(lo), int(hi or lo))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected plies as LO-HI, e.g. 0-36, got {text!r}") from None
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"expected plies as LO-HI with 0 <= LO <= HI, got {text!r}")
    return pair


RESULTS = {"lost": -1, "drawn": 0, "won": 1}


def results_list(text: str) -> tuple[int, ...]:
    """``won,drawn`` (results for the side to move) as values 1, 0."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in RESULTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"expected some of {', '.join(RESULTS)}, got {text!r}")
    return tuple(sorted({RESULTS[name] for name in names}))


def stage_starts(text: str) -> tuple[int, ...]:
    """``8,16,24``: where the stages after the first begin, increasing."""
    try:
        starts = tuple(int(field) for field in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected plies as N,N,..., e.g. 8,16,24, got {text!r}") from None
    if any(a >= b for a, b in zip((0, *starts), starts)):
        raise argparse.ArgumentTypeError(f"expected increasing positive plies, got {text!r}")
    return starts


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
    accuracy.add_argument(
        "--stages",
        type=stage_starts,
        default="8,16,24",  # rlgames.analysis.STAGES, read by the type (no import at startup)
        metavar="N,N,...",
        help="report by stage, each beginning at these plies (default 8,16,24: plies 0-7, 8-15, 16-23, 24+)",
    )
    accuracy.add_argument(
        "--whole-games",
        action="store_true",
        help="play each won or drawn position to the end against the exact solver (it picks among its optimal "
        "replies at random, seeded) and count the games whose result the agent keeps",
    )
    accuracy.set_defaults(run=cmd_accuracy)
    add_positions_verb(verbs)


def add_positions_verb(verbs: argparse._SubParsersAction) -> None:
    positions = verb_with_agents(
        verbs,
        "positions",
        "a labelled position file sampled from varied games",
        "Samples distinct positions from games played by --agent, a uniformly random move replacing each of\n"
        "its moves with probability --random-fraction, each game stopping at a ply drawn from --plies; labels\n"
        "each with the exact solver (its result and every move that keeps it), and writes one JSON line per\n"
        "position to --out, for `rlgames accuracy`. A run that stops is continued by the same command.",
    )
    positions.add_argument("--out", required=True, metavar="FILE.jsonl", help="the labelled file to write or continue")
    positions.add_argument("--count", type=int, default=1000, help="positions the file should hold (default 1000)")
    positions.add_argument(
        "--plies", type=ply_range, default=(0, 36), metavar="LO-HI", help="the stages sampled (default 0-36)"
    )
    positions.add_argument(
        "--agent", default="alphabeta(depth=4)", metavar="SPEC", help="who plays the games (default alphabeta(depth=4))"
    )
    positions.add_argument(
        "--random-fraction", type=float, default=0.25, help="the chance of a random move instead (default 0.25)"
    )
    positions.add_argument(
        "--results",
        type=results_list,
        default=(-1, 0, 1),
        metavar="won,drawn,lost",
        help="keep positions with these results for the side to move (default all; whole games: won,drawn)",
    )
    positions.add_argument("--seed", type=int, default=0, help="seed of the games and the agent (default 0)")
    add_progress_flag(positions)
    positions.set_defaults(run=cmd_positions)
