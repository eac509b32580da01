"""``rlgames play``: a person against an agent in the terminal."""

from __future__ import annotations

import argparse

from rlgames.agents.spec import default_spec
from rlgames.cli.common import game_from_args, seeded_agent, verb_with_agents


def cmd_play(args: argparse.Namespace) -> int:
    import numpy as np

    from rlgames.play import PlaySession

    game = game_from_args(args)
    spec = default_spec(game) if args.agent is None else args.agent
    agent = seeded_agent(spec, game, args.seed)
    rng = np.random.default_rng(args.seed)
    seat = int(rng.integers(2)) if args.seat == "random" else int(args.seat)
    print(f"{game.name} against {spec}")
    PlaySession(agent, seat, rng=rng).run(game.state_from_moves(args.moves))
    return 0


def add_play_verb(verbs: argparse._SubParsersAction) -> None:
    play = verb_with_agents(
        verbs,
        "play",
        "play against an agent in the terminal",
        (
            "You against an agent: the board is drawn, you type moves in the game's notation (connect four:\n"
            "a column 1-7; tic-tac-toe: a1..c3; othello: d3 or pass). 'undo' takes back your last move,\n"
            "'moves' lists the legal ones, 'quit' stops.\n"
            'Example: rlgames play connect_four --agent "mcts(simulations=400)" --seat 0'
        ),
    )
    play.add_argument(
        "--agent",
        metavar="SPEC",
        help="the opponent (default: the game's own, else alphabeta(depth=6); "
        "expectiminimax(depth=4) for chance games)",
    )
    play.add_argument("--seat", choices=("0", "1", "random"), default="0", help="your seat; 0 moves first")
    play.add_argument("--moves", default="", help="start from the position after these moves")
    play.add_argument("--seed", type=int, default=0, help="seed of the agent, the seat draw and chance")
    play.set_defaults(run=cmd_play)
