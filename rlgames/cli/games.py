"""The verbs about games themselves: ``games``, ``agents``, ``show``, ``solve``."""

from __future__ import annotations

import argparse

from rlgames.cli.common import add_game, game_from_args, positive_float
from rlgames.registry import game_class, game_parameters, list_games

SOLVE_TIME = 60.0
"""Seconds `rlgames solve` searches before it gives up."""


def cmd_games(args: argparse.Namespace) -> int:
    for name in list_games():
        defaults = ", ".join(f"{key}={value!r}" for key, value in game_parameters(name).items())
        info = game_class(name).describe()  # declared: nothing is compiled
        low, high = info.utility
        extras = [f"returns in [{low:g}, {high:g}]"] + ["chance nodes"] * info.has_chance
        extras += ["history-dependent rules"] * info.history_dependent
        print(
            f"{name}({defaults}): {info.num_actions} actions, observation {info.observation_shape}, "
            f"at most {info.max_game_length} plies, {', '.join(extras)}"
        )
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    from rlgames.agents.spec import accepted_forms
    from rlgames.evaluators import list_evaluators

    print(accepted_forms())
    print(f"evaluators (eval=...): {', '.join(list_evaluators())}; model=CHECKPOINT for a trained network")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    state = game.state_from_moves(args.moves)
    print(state)
    outcome = state.outcome()
    if outcome is not None:
        from rlgames.play import outcome_text

        print(outcome_text(outcome))
    else:
        moves = ", ".join(state.action_to_string(a) for a in state.legal_actions())
        print(f"to move: player {state.current_player()}; legal: {moves}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    from rlgames.solvers import solve

    state = game_from_args(args).state_from_moves(args.moves)
    result = solve(state, time_limit=args.time)
    print(state)
    outcome = {1: "win", 0: "draw", -1: "loss"}[(result.value > 0) - (result.value < 0)]  # a return: may be 2
    print(f"to move: player {state.current_player()}")
    print(f"value: {outcome} ({result.value:+d}) for the side to move")
    print(f"plies to the end: {result.plies_to_end}")
    if result.score is not None:
        print(f"score (Pons): {result.score:+d}")
    print(f"best moves: {', '.join(state.action_to_string(a) for a in result.best_actions)}")
    print(f"value-preserving moves: {', '.join(state.action_to_string(a) for a in result.value_preserving_actions)}")
    print(f"nodes: {result.nodes}, time: {1000 * result.time_s:.2f} ms")
    return 0


def add_game_verbs(verbs: argparse._SubParsersAction) -> None:
    verbs.add_parser("games", help="list the games").set_defaults(run=cmd_games)
    verbs.add_parser("agents", help="list the agents, their parameters and the evaluators").set_defaults(run=cmd_agents)
    show = verbs.add_parser("show", help="draw a position")
    add_game(show)
    show.add_argument("--moves", default="", help="moves in the game's notation, separated by spaces")
    show.set_defaults(run=cmd_show)
    solve = verbs.add_parser("solve", help="solve a position exactly (deterministic games)")
    add_game(solve)
    solve.add_argument(
        "--moves",
        default="",
        help="moves in the game's notation, separated by spaces (connect four also reads a Pons string such as 4453)",
    )
    solve.add_argument(
        "--time",
        type=positive_float,
        default=SOLVE_TIME,
        metavar="SECONDS",
        help=f"give up after this long (default {SOLVE_TIME:g}); a position too far from the end "
        "of a big game (othello: more than 12 empty squares) is refused at once",
    )
    solve.set_defaults(run=cmd_solve)
