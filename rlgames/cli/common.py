"""What every verb shares: the one-line error parser, the game argument and its parameters, agent
specs' help, and the small argument types."""

from __future__ import annotations

import argparse
import math
import os
import sys
import typing
from typing import Any, Sequence

from rlgames.game import Game
from rlgames.registry import list_games, load_game


def parse_game_param(text: str) -> tuple[str, object]:
    """``key=value`` with the value read as a Python literal when it is one (``heaps=1,3,5``), or as a
    bool written as in agent specs (``cube=true``)."""
    import ast

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    if value in ("true", "false"):
        return key, value == "true"
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def game_from_args(args: argparse.Namespace):
    return load_game(args.game, **dict(game_params(args)))


def game_params(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """The game parameters of ``args``: its ``-p`` ones, or without any those of the checkpoints its agent
    specs name (`model_game_params`), so that ``mcts(model=checkpoints/go9.pt)`` plays 9x9 as it was trained."""
    return list(args.param) or model_game_params(args.game, _agent_specs(args))


def _agent_specs(args: argparse.Namespace) -> list[str]:
    """The agent specs a verb was given: arena's positional ``specs``, the others' ``--agent``."""
    specs = getattr(args, "specs", None) or [getattr(args, "agent", None)]
    return [spec for spec in specs if isinstance(spec, str)]


def model_game_params(game: str, specs: Sequence[str]) -> list[tuple[str, Any]]:
    """The game parameters of the checkpoints named by ``model=`` in ``specs`` (`agreed_game_params`)."""
    from rlgames.agents.spec import AgentSpecError, parse_spec

    models = []
    for spec in specs:
        try:
            model = parse_spec(spec).params.get("model")
        except AgentSpecError:
            continue  # reported with its problem when the agent is loaded
        if isinstance(model, str):
            models.append(model)
    return agreed_game_params(game, models)


def agreed_game_params(game: str, paths: Sequence[str]) -> list[tuple[str, Any]]:
    """The game parameters of the checkpoints at ``paths`` (`checkpoint_game_params`) when they agree; empty
    when there are none, or they differ (loading them then says which is wrong)."""
    found: list[list[tuple[str, Any]]] = []
    for path in paths:
        if (params := checkpoint_game_params(path, game)) not in found:
            found.append(params)
    return found[0] if len(found) == 1 else []


def checkpoint_game_params(path: str, game: str) -> list[tuple[str, Any]]:
    """The parameters, other than ``game``'s defaults, of the game the checkpoint at ``path`` was trained for
    (``checkpoints/go9.pt``: ``board_size=9``): what a command given no ``-p`` plays it at. Empty where the
    file is not a checkpoint of ``game`` (loading it later says why)."""
    from rlgames.models import CheckpointError
    from rlgames.models.checkpoint import load_checkpoint

    try:
        info = load_checkpoint(path)
    except CheckpointError:
        return []
    if info.game_name != game:
        return []
    defaults = load_game(game).params
    return [(key, value) for key, value in info.game_params.items() if defaults.get(key, value) != value]


def game_name(text: str) -> str:
    """A registered game's name (argparse type): an unknown one is refused with the list of games."""
    if text not in list_games():
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; games: {', '.join(list_games())}")
    return text


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``rlgames VERB: problem``, and exit status 2."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: object) -> str:
    """``text`` with its lines joined: an error is reported on a single line."""
    return " ".join(str(text).split())


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def existing_file(text: str) -> str:
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file: {text!r}")
    return text


SPEC_LANGUAGE = """\
Agents are given by spec strings: NAME or NAME(key=value, ...), e.g. random, random(seed=3), solver,
alphabeta(depth=4, eval=heuristic), alphabeta(nodes=10000), alphabeta(time=0.1); quote them in the
shell. Budgets (depth, nodes, time per move) are matched through the specs."""


class SpecHelpAction(argparse.Action):
    """``-h``/``--help`` that also lists every agent with its parameters (imported only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show this help, with every agent and its parameters, and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from rlgames.agents.spec import accepted_forms

        parser.print_help()
        print(f"\n{accepted_forms()}")
        parser.exit()


def verb_with_agents(
    verbs: argparse._SubParsersAction, name: str, summary: str, description: str
) -> argparse.ArgumentParser:
    parser = verbs.add_parser(
        name,
        help=summary,
        add_help=False,
        description=f"{description}\n\n{SPEC_LANGUAGE}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-h", "--help", action=SpecHelpAction)
    add_game(parser)
    return parser


def add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=game_name, metavar="GAME", help=f"one of: {', '.join(list_games())}")
    add_game_params(parser)


def add_game_params(parser: argparse.ArgumentParser) -> None:
    """``--param/-p KEY=VALUE``, repeatable: the game's parameters (`parse_game_param`)."""
    parser.add_argument(
        "--param",
        "-p",
        action="append",
        type=parse_game_param,
        default=[],
        metavar="KEY=VALUE",
        help="a game parameter, e.g. -p heaps=(1,3,5)",
    )


def elo_pair(text: str) -> tuple[float, float]:
    """``0,10`` -> (0.0, 10.0): an SPRT's two hypotheses."""
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 such as 0,10; got {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise argparse.ArgumentTypeError(f"the SPRT's Elo values must be finite, got {text!r}")
    return elo0, elo1


def add_sprt_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--sprt ELO0,ELO1`` and its error rates and minimum, stopping ``what`` once the test decides."""
    parser.add_argument(
        "--sprt",
        type=elo_pair,
        metavar="ELO0,ELO1",
        help=f"stop {what} as soon as fishtest's GSPRT over the game pairs decides between elo0 and elo1 "
        "(the first player's advantage)",
    )
    parser.add_argument("--sprt-alpha", type=float, default=0.05, help="SPRT false-positive rate (default 0.05)")
    parser.add_argument("--sprt-beta", type=float, default=0.05, help="SPRT false-negative rate (default 0.05)")
    parser.add_argument("--sprt-min-games", type=int, default=20, help="games before the SPRT may decide (default 20)")


def sprt_from_args(args: argparse.Namespace) -> Any:
    """The `SprtConfig` the arguments ask for, or None (a bad one raises `ValueError`, one line)."""
    from rlgames.arena.sprt import SprtConfig

    if args.sprt is None:
        return None
    elo0, elo1 = args.sprt
    return SprtConfig(elo0, elo1, alpha=args.sprt_alpha, beta=args.sprt_beta, min_games=args.sprt_min_games)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ray`` and ``--address``: the workers as Ray actors (`rlgames.parallel.Backend`)."""
    parser.add_argument(
        "--ray",
        action="store_true",
        help="run the workers as Ray actors, on a Ray started here or the cluster of --address or RAY_ADDRESS "
        "(pip install 'rlgames[ray]'); the same results as local processes",
    )
    parser.add_argument("--address", metavar="ADDR", help="the Ray cluster to join, e.g. 10.0.0.1:6379 (implies --ray)")


def backend_from_args(args: argparse.Namespace) -> Any:
    """The `rlgames.parallel.Backend` the arguments ask for (Ray must then be importable: one line if not)."""
    from rlgames.parallel import LOCAL, Backend

    if not (args.ray or args.address):
        return LOCAL
    try:
        import ray  # noqa: F401  (checked here, so that a missing Ray is refused before any work)
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'rlgames[ray]'") from None
    return Backend("ray", args.address)


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )


def progress_wanted(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() if args.progress is None else args.progress


def seeded_agent(spec: str, game: Game, seed: int) -> Any:
    """The agent ``spec`` for ``game``, seeded (an `AgentSpecError` for a bad spec)."""
    from rlgames.agents import load_agent

    agent = load_agent(spec, game)
    agent.seed(seed)
    return agent
