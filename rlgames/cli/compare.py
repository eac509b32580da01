"""The ``compare`` verb: does learned evaluation beat hand-crafted evaluation, at equal depth and time?"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rlgames.cli.common import (
    add_backend_arguments,
    add_game,
    add_progress_flag,
    existing_file,
    positive_float,
    progress_wanted,
    sprt_from_args,
    add_sprt_arguments,
    backend_from_args,
)


def count_list(what: str, example: str) -> Callable[[str], tuple[int, ...]]:
    """A parser of ``2,4,6`` -> (2, 4, 6) (an empty string for none) for the budgets named ``what``."""

    def parse(text: str) -> tuple[int, ...]:
        try:
            counts = tuple(int(part) for part in text.split(",") if part.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} such as {example}; got {text!r}") from None
        if any(count < 1 for count in counts):
            raise argparse.ArgumentTypeError(f"{what} must be at least 1, got {text!r}")
        return counts

    return parse


def search_param(text: str) -> str:
    """``KEY=VALUE``, added to both agent specs (checked with them), or the name of both sides' search."""
    from rlgames.arena.compare import ALGORITHMS

    if text.strip() in ALGORITHMS:
        return text.strip()
    try:
        return setting_param(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE such as quiescence=8, or a search ({', '.join(ALGORITHMS)}); got {text!r}"
        ) from None


def setting_param(text: str) -> str:
    """``KEY=VALUE``, added to the learned side's spec (checked with it)."""
    key, equals, value = text.partition("=")
    if not equals or not key.strip().isidentifier() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE such as rollout=FILE.npz; got {text!r}")
    return f"{key.strip()}={value.strip()}"


def algorithm_of(search: list[str]) -> tuple[str, tuple[str, ...]]:
    """The search named among ``--search``'s values (alpha-beta by default) and the settings; one name at most."""
    names = [item for item in search if "=" not in item]
    if len(set(names)) > 1:
        raise ValueError(f"--search names two searches, {' and '.join(names)}: both sides use one")
    return (names[0] if names else "alphabeta"), tuple(item for item in search if "=" in item)


def cmd_compare(args: argparse.Namespace) -> int:
    from rlgames.agents import load_agent
    from rlgames.arena.compare import CompareConfig, reference_spec, run_compare, summary, write_compare
    from rlgames.cli.common import agreed_game_params, game_from_args

    if not args.param:  # the checkpoint's own game: go9.pt plays 9x9
        args.param = agreed_game_params(args.game, [args.learned])
    algorithm, settings = algorithm_of(args.search)
    config = CompareConfig(
        args.game,
        args.learned,
        algorithm=algorithm,
        depths=args.depths,
        simulations=args.simulations,
        seconds=None if args.no_time else args.time,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        opening_plies=args.opening_plies,
        game_params=tuple(args.param),
        search=settings,
        learned_search=tuple(args.learned_search),
        sprt=sprt_from_args(args),
        references=tuple(args.reference),
        backend=backend_from_args(args),
    )
    game = game_from_args(args)
    load_agent(config.specs(config.budgets()[0][1])[0], game)  # a bad checkpoint fails now, not in a worker
    for reference in config.references:  # a bad spec, a missing engine or option fails now
        agent = load_agent(reference_spec(reference, config.reference_budget(config.budgets()[0][1])), game)
        getattr(agent, "close", lambda: None)()
    out = args.out or f"compare-{args.game}"
    result = run_compare(
        config,
        progress=progress_wanted(args),
        echo=lambda line: print(line, flush=True),
        out=out,
        resume=args.resume,
    )
    write_compare(result, out)
    print(summary(result))
    print(f"wrote report.md, compare.json, compare.png and each budget's games to {out}")
    return 0


def add_compare_verb(verbs: argparse._SubParsersAction) -> None:
    compare = verbs.add_parser(
        "compare",
        help="learned against hand-crafted evaluation, at equal depth and at equal time",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Plays alpha-beta with a learned evaluator (a checkpoint; an NNUE runs inside the compiled search)\n"
            "against alpha-beta with the game's hand-crafted evaluator, at each equal depth and at equal time\n"
            "per move: GAMES games per budget from GAMES/2 distinct openings, colours swapped. Prints each\n"
            "budget's score with its 95% interval and a one-sentence finding; writes report.md, compare.json,\n"
            "compare.png and every game. In a game with chance nodes both sides search by expectiminimax,\n"
            "a depth counting plies (one player's roll and move).\n"
            "With --sprt ELO0,ELO1 each budget's match stops once fishtest's GSPRT over the game pairs decides.\n"
            "With --reference SPEC both sides also play that reference (an agent spec, or an external UCI engine\n"
            "uci:COMMAND) at each budget, and the report gives the learned side's Elo over the hand-crafted side\n"
            "through the references: whether a head-to-head gain holds against third parties.\n"
            "With --search mcts both sides search by MCTS: the learned side with the checkpoint's priors and\n"
            "values, the hand-crafted side with the game's rollouts, at equal --simulations and equal time; in\n"
            "go the game's usual MCTS, RAVE over light playouts (--learned-search rollout=FILE.npz mixes\n"
            "AlphaGo's learned rollouts into the learned side's values; --learned-search expansion_threshold=8\n"
            "sends a leaf to the network on its 8th visit, the rollouts valuing it before).\n"
            "Without -p the game is the checkpoint's (go9.pt: 9x9).\n"
            "Example: rlgames compare connect_four --learned checkpoints/connect_four.nnue.pt --workers 2\n"
            "         rlgames compare backgammon --learned checkpoints/backgammon.pt --search filter=8\n"
            "         rlgames compare connect_four --learned checkpoints/connect_four.pt --search mcts\n"
            "         rlgames compare go --learned checkpoints/go9.pt --search mcts\n"
            "         rlgames compare chess --learned checkpoints/chess.nnue.pt --no-time --depths 2 \\\n"
            "             --reference 'uci:stockfish uci-option:UCI_LimitStrength=true uci-option:UCI_Elo=1800'"
        ),
    )
    add_game(compare)
    compare.add_argument(
        "--learned",
        required=True,
        type=existing_file,
        metavar="CHECKPOINT",
        help="the learned evaluator's checkpoint (e.g. checkpoints/connect_four.nnue.pt)",
    )
    compare.add_argument(
        "--depths",
        type=count_list("depths", "2,4,6"),
        metavar="D1,D2,...",
        help="the equal depths (default 2,4,6, or plies 1,2 in a game with chance; '' for none)",
    )
    compare.add_argument(
        "--simulations",
        type=count_list("simulations", "100,400"),
        metavar="N1,N2,...",
        help="with --search mcts, the equal numbers of simulations (default 100,400; '' for none)",
    )
    compare.add_argument(
        "--search",
        action="append",
        default=[],
        type=search_param,
        metavar="KEY=VALUE|mcts",
        help="a parameter of both sides' searches, e.g. filter=8 (backgammon), over the "
        "game's usual settings (chess: quiescence=8), or the search itself: mcts (default alpha-beta); "
        "repeatable",
    )
    compare.add_argument(
        "--learned-search",
        action="append",
        default=[],
        type=setting_param,
        metavar="KEY=VALUE",
        help="a parameter of the learned side's search alone, e.g. rollout=checkpoints/go9_rollout.npz "
        "(go: AlphaGo's rollouts mixed with the network's values); repeatable",
    )
    compare.add_argument(
        "--time", type=positive_float, default=0.1, metavar="SECONDS", help="the equal time per move (default 0.1)"
    )
    compare.add_argument("--no-time", action="store_true", help="play no match at equal time")
    compare.add_argument("--games", type=int, default=400, help="games per budget, even (default 400)")
    compare.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    add_backend_arguments(compare)
    compare.add_argument("--seed", type=int, default=0, help="seed of the openings (default 0)")
    compare.add_argument(
        "--opening-plies",
        type=int,
        metavar="N",
        help="plies of the random openings (default: the fewest giving GAMES/2 distinct ones)",
    )
    compare.add_argument(
        "--reference",
        action="append",
        default=[],
        metavar="SPEC",
        help="a third party both sides also play at each budget: an agent spec (mcts, solver, another "
        "evaluator) or an external engine, uci:COMMAND [uci-option:NAME=VALUE ...]; it takes the budget "
        "(depth or time) unless its spec sets one; repeatable",
    )
    add_sprt_arguments(compare, "each budget's match")
    compare.add_argument(
        "--out",
        metavar="DIR",
        help="the report's folder (default compare-GAME); each match writes its games there as they end",
    )
    compare.add_argument(
        "--resume",
        action="store_true",
        help="continue a stopped compare from the games in --out: play only the games it lacks",
    )
    add_progress_flag(compare)
    compare.set_defaults(run=cmd_compare)
