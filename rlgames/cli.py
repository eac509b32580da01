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
    rlgames analyse connect_four --agent solver --positions FILE
                                           an agent's move, value and search statistics per position
    rlgames accuracy connect_four --agent "alphabeta(depth=4)" --positions FILE
                                           optimal-move and value-sign accuracy against the exact truth
    rlgames train tic_tac_toe --seed 0     train a network by self-play (hands over to python -m train)
    rlgames bench mcts                     a benchmark against OpenSpiel (games, alphabeta, mcts, solver)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import typing
from typing import TYPE_CHECKING, Any, Sequence

from rlgames.registry import game_class, game_parameters, list_games, load_game

if TYPE_CHECKING:
    from rlgames.arena.positions import PositionLine
    from rlgames.game import Game


def parse_game_param(text: str) -> tuple[str, object]:
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


def game_name(text: str) -> str:
    """A registered game's name (argparse type): an unknown one is refused with the list of games."""
    if text not in list_games():
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; games: {', '.join(list_games())}")
    return text


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``rlgames VERB: problem``, and exit status 2."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: str) -> str:
    """``text`` with its lines joined: an error is reported on a single line."""
    return " ".join(str(text).split())


def cmd_games(args: argparse.Namespace) -> int:
    for name in list_games():
        defaults = ", ".join(f"{key}={value!r}" for key, value in game_parameters(name).items())
        info = game_class(name).describe()  # declared: nothing is compiled
        low, high = info.utility
        extras = [f"returns in [{low:g}, {high:g}]"] + ["chance nodes"] * info.has_chance
        extras += ["history-dependent rules"] * info.history_dependent
        print(f"{name}({defaults}): {info.num_actions} actions, observation {info.observation_shape}, "
              f"at most {info.max_game_length} plies, {', '.join(extras)}")
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
    result = solve(state, time_limit=args.time)
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


SPEC_LANGUAGE = """\
Agents are given by spec strings: NAME or NAME(key=value, ...), e.g. random, random(seed=3), solver,
alphabeta(depth=4, eval=heuristic), alphabeta(nodes=10000), alphabeta(time=0.1); quote them in the
shell. Budgets (depth, nodes, time per move) are matched through the specs."""


class _SpecHelpAction(argparse.Action):
    """``-h``/``--help`` that also lists every agent with its parameters (imported only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show this help, with every agent and its parameters, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from rlgames.agents.spec import accepted_forms

        parser.print_help()
        print(f"\n{accepted_forms()}")
        parser.exit()


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _existing_file(text: str) -> str:
    import os

    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file: {text!r}")
    return text


def _elo_pair(text: str) -> tuple[float, float]:
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 such as 0,10; got {text!r}") from None
    return elo0, elo1


def _verb_with_agents(verbs: argparse._SubParsersAction, name: str, summary: str,
                      description: str) -> argparse.ArgumentParser:
    parser = verbs.add_parser(name, help=summary, add_help=False, description=f"{description}\n\n{SPEC_LANGUAGE}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-h", "--help", action=_SpecHelpAction)
    _add_game(parser)
    return parser


def _add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=game_name, metavar="GAME", help=f"one of: {', '.join(list_games())}")
    parser.add_argument("--param", "-p", action="append", type=parse_game_param, default=[],
                        metavar="KEY=VALUE", help="a game parameter, e.g. -p heaps=(1,3,5)")


def cmd_agents(args: argparse.Namespace) -> int:
    from rlgames.agents.spec import accepted_forms
    from rlgames.evaluators import list_evaluators

    print(accepted_forms())
    print(f"evaluators (eval=...): {', '.join(list_evaluators())}; model=CHECKPOINT for a trained network")
    return 0


SOLVE_TIME = 60.0
"""Seconds `rlgames solve` searches before it gives up."""
BENCHMARKS = ("games", "alphabeta", "mcts", "solver")
HANDOVERS = ("train", "bench")
"""Verbs that hand their arguments over to another program."""


def cmd_train(args: argparse.Namespace) -> int:
    """Hands over to ``python -m train`` (the training package, with torch), in its own process."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "train", *args.arguments]).returncode


def cmd_bench(args: argparse.Namespace) -> int:
    """Runs ``benchmarks/bench_NAME.py`` of the source checkout."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / f"bench_{args.name}.py"
    if not script.is_file():
        raise ValueError(f"{script} not found: the benchmarks live in the source checkout, not the installed package")
    return subprocess.run([sys.executable, str(script), *args.arguments]).returncode


def _add_handovers(verbs: argparse._SubParsersAction) -> None:
    verbs.add_parser("agents", help="list the agents, their parameters and the evaluators").set_defaults(run=cmd_agents)
    train = verbs.add_parser("train", help="train a network by self-play (python -m train ...)", add_help=False,
                             description="Hands over to `python -m train`; try `rlgames train --help`.")
    train.add_argument("arguments", nargs="*", help="arguments of python -m train")
    train.set_defaults(run=cmd_train)
    bench = verbs.add_parser("bench", help="run a benchmark against OpenSpiel",
                             description="Runs benchmarks/bench_NAME.py, side by side with OpenSpiel.")
    bench.add_argument("name", choices=BENCHMARKS)
    bench.add_argument("arguments", nargs="*", help="arguments of the benchmark script")
    bench.set_defaults(run=cmd_bench)


def cmd_play(args: argparse.Namespace) -> int:
    import numpy as np

    from rlgames.agents.spec import load_agent
    from rlgames.play import PlaySession

    game = _game_from_args(args)
    spec = args.agent or ("expectiminimax(depth=4)" if game.has_chance else "alphabeta(depth=6)")
    agent = load_agent(spec, game)
    agent.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    seat = int(rng.integers(2)) if args.seat == "random" else int(args.seat)
    print(f"{game.name} against {spec}")
    PlaySession(agent, seat, rng=rng).run(game.state_from_moves(args.moves))
    return 0


def _add_play(verbs: argparse._SubParsersAction) -> None:
    play = _verb_with_agents(verbs, "play", "play against an agent in the terminal", (
        "You against an agent: the board is drawn, you type moves in the game's notation (connect four:\n"
        "a column 1-7; tic-tac-toe: a1..c3; othello: d3 or pass). 'undo' takes back your last move,\n"
        "'moves' lists the legal ones, 'quit' stops.\n"
        "Example: rlgames play connect_four --agent \"mcts(simulations=400)\" --seat 0"))
    play.add_argument("--agent", metavar="SPEC",
                      help="the opponent (default alphabeta(depth=6); expectiminimax(depth=4) for chance games)")
    play.add_argument("--seat", choices=("0", "1", "random"), default="0", help="your seat; 0 moves first")
    play.add_argument("--moves", default="", help="start from the position after these moves")
    play.add_argument("--seed", type=int, default=0, help="seed of the agent, the seat draw and chance")
    play.set_defaults(run=cmd_play)


def cmd_arena(args: argparse.Namespace) -> int:
    from rlgames.arena import (
        ArenaConfig,
        SprtConfig,
        console_report,
        log_to_tensorboard,
        resolve_anchor,
        run_arena,
        write_results,
    )

    sprt = None
    if args.sprt is not None:
        sprt = SprtConfig(*args.sprt, alpha=args.sprt_alpha, beta=args.sprt_beta, min_games=args.sprt_min_games)
    config = ArenaConfig(args.game, tuple(args.specs), games=args.games, seed=args.seed, workers=args.workers,
                         opening_plies=args.opening_plies, openings_file=args.openings,
                         game_params=tuple(args.param), anchor=resolve_anchor(args.anchor, args.specs),
                         anchor_rating=args.anchor_rating, prior_draws=args.prior_draws, sprt=sprt)
    result = run_arena(config, progress=_progress(args))
    print(console_report(result))
    if args.out is not None:
        print(f"wrote results.json, games.csv, report.md, elo.png, scores.png to {write_results(result, args.out)}")
    if args.tensorboard is not None:
        log_to_tensorboard(result, args.tensorboard)
        print(f"logged the Elo values under arena/ to {args.tensorboard}")
    return 0


def _agent_and_positions(args: argparse.Namespace) -> tuple[Game, Any, list[PositionLine]]:
    from rlgames.agents import load_agent
    from rlgames.arena.positions import read_position_file

    game = _game_from_args(args)
    agent = load_agent(args.agent, game)
    agent.seed(args.seed)
    positions = read_position_file(args.positions, game)
    return game, agent, positions[:args.limit] if args.limit is not None else positions


def cmd_analyse(args: argparse.Namespace) -> int:
    import json

    from rlgames.analysis import analyse

    game, agent, positions = _agent_and_positions(args)
    with open(args.out, "w") if args.out is not None else contextlib.nullcontext(sys.stdout) as out:
        for record in analyse(game, agent, positions, progress=_progress(args)):
            out.write(json.dumps(record) + "\n")
    return 0


def cmd_accuracy(args: argparse.Namespace) -> int:
    from rlgames.analysis import measure_accuracy

    game, agent, positions = _agent_and_positions(args)
    accuracy = measure_accuracy(game, agent, positions, truth=args.truth, draw_margin=args.draw_margin,
                                progress=_progress(args))
    print(f"{args.agent} on {accuracy.positions} positions of {args.positions} (truth: {accuracy.truth})")
    print(f"optimal moves: {accuracy.optimal_moves}/{accuracy.positions} = {accuracy.optimal_move_rate:.1%}")
    print(f"value sign:    {accuracy.value_signs}/{accuracy.positions} = {accuracy.value_sign_rate:.1%}")
    return 0


def _add_arena(verbs: argparse._SubParsersAction) -> None:
    arena = _verb_with_agents(verbs, "arena", "a match or round-robin tournament between agents", (
        "Plays every pair of agents --games times: half as many openings, each played with both colourings.\n"
        "Prints the players ranked by Elo (maximum likelihood, draws as half a win) with 95% intervals and\n"
        "every pair's wins/draws/losses, and each player's mean and longest time per move; --out writes\n"
        "results.json, games.csv, report.md, elo.png, scores.png. Equal depth: alphabeta(depth=4, model=FILE)\n"
        "against alphabeta(depth=4, eval=heuristic); equal time: give every player the same time=SECONDS per\n"
        "move (alphabeta(time=0.1, model=FILE) against alphabeta(time=0.1)); timed players are not reproducible.\n"
        "Example: rlgames arena connect_four \"alphabeta(depth=4)\" \"alphabeta(depth=2)\" random --games 40 "
        "--workers 2 --out arena-out"))
    arena.add_argument("specs", nargs="+", metavar="SPEC", help="two or more agent specs")
    arena.add_argument("--games", type=int, default=100, help="games per pair, even (default 100)")
    arena.add_argument("--seed", type=int, default=0, help="seed of the openings, agents and chance (default 0)")
    arena.add_argument("--out", metavar="DIR", help="folder for results.json, games.csv, report.md and the plots")
    arena.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    arena.add_argument("--opening-plies", type=int, default=2,
                       help="plies of the random openings, drawn without repeats (default 2)")
    arena.add_argument("--openings", type=_existing_file, metavar="FILE",
                       help="openings, one per line, as moves in the game's notation (connect four: Pons' "
                            "notation, e.g. 4453); used instead of random ones")
    arena.add_argument("--anchor", default="0", metavar="SPEC_OR_INDEX",
                       help="the player whose Elo is fixed (default the first)")
    arena.add_argument("--anchor-rating", type=float, default=0.0, help="the anchor's Elo (default 0)")
    arena.add_argument("--prior-draws", type=float, default=1.0,
                       help="virtual draws added per pair so that perfect scores keep finite Elo (default 1; "
                            "0 for the plain maximum likelihood)")
    arena.add_argument("--sprt", type=_elo_pair, metavar="ELO0,ELO1",
                       help="stop a two-player match as soon as an SPRT of elo0 against elo1 (the first "
                            "player's advantage) decides")
    arena.add_argument("--sprt-alpha", type=float, default=0.05, help="SPRT false-positive rate (default 0.05)")
    arena.add_argument("--sprt-beta", type=float, default=0.05, help="SPRT false-negative rate (default 0.05)")
    arena.add_argument("--sprt-min-games", type=int, default=20,
                       help="games before the SPRT may decide (default 20)")
    arena.add_argument("--tensorboard", metavar="DIR", help="log the Elo values under arena/ tags to DIR")
    _add_progress_flag(arena)
    arena.set_defaults(run=cmd_arena)


def _add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="a progress bar on stderr (default: when stderr is a terminal)")


def _progress(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() if args.progress is None else args.progress


def _add_position_verbs(verbs: argparse._SubParsersAction) -> None:
    files = ("Positions: one per line, as moves from the start in the game's notation; connect four in\n"
             "Pons' notation (4453), possibly followed by a score, e.g. Pons' benchmark files.")
    analyse = _verb_with_agents(verbs, "analyse", "an agent's move, value and statistics per position",
                                "Writes one JSON line per position: the agent's action and move, its value, "
                                "its principal variation and search statistics.\n" + files)
    accuracy = _verb_with_agents(verbs, "accuracy", "an agent's accuracy against the exact truth", (
        "Optimal-move accuracy (the move keeps the game-theoretic value) and value-sign accuracy (the sign\n"
        "of the agent's value), against the exact solver or the scores of a labelled file (Pons' format;\n"
        "then only the child of the agent's move is solved).\n" + files))
    for parser in (analyse, accuracy):
        parser.add_argument("--agent", required=True, metavar="SPEC", help="the agent's spec")
        parser.add_argument("--positions", required=True, type=_existing_file, metavar="FILE")
        parser.add_argument("--limit", type=int, metavar="N", help="only the first N positions")
        parser.add_argument("--seed", type=int, default=0, help="seed of an agent that has one (default 0)")
        _add_progress_flag(parser)
    analyse.add_argument("--out", metavar="FILE.jsonl", help="where to write the JSON lines (default stdout)")
    analyse.set_defaults(run=cmd_analyse)
    accuracy.add_argument("--truth", choices=("auto", "solver", "labels"), default="auto",
                          help="the solver, or the file's scores; auto: the scores when every line has one")
    accuracy.add_argument("--draw-margin", type=float, default=0.0,
                          help="agent values within this of 0 count as a draw (default 0)")
    accuracy.set_defaults(run=cmd_accuracy)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="rlgames", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("games", help="list the games").set_defaults(run=cmd_games)
    show = verbs.add_parser("show", help="draw a position")
    _add_game(show)
    show.add_argument("--moves", default="", help="moves in the game's notation, separated by spaces")
    show.set_defaults(run=cmd_show)
    solve = verbs.add_parser("solve", help="solve a position exactly (deterministic games)")
    _add_game(solve)
    solve.add_argument("--moves", default="", help="moves in the game's notation, separated by spaces "
                       "(connect four also reads a Pons string such as 4453)")
    solve.add_argument("--time", type=_positive_float, default=SOLVE_TIME, metavar="SECONDS",
                       help=f"give up after this long (default {SOLVE_TIME:g}); positions far from the end of "
                            "a big game (othello) cannot be solved exactly")
    solve.set_defaults(run=cmd_solve)
    _add_play(verbs)
    _add_handovers(verbs)
    _add_arena(verbs)
    _add_position_verbs(verbs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
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
    except (ValueError, OSError) as error:  # bad input or a missing file: say what is wrong, no traceback
        print(f"rlgames {args.verb}: {one_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
