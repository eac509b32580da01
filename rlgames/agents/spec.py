"""The agent spec language: ``name`` or ``name(key=value, ...)``, e.g. ``alphabeta(depth=6, eval=heuristic)``.

Every spec is checked here, in one place, before an agent is built: the name must be a registered
agent, every key one of its factory's keyword parameters, every value of that parameter's declared type
(``int``, ``float``, ``bool``, ``str``, or one of them or ``none`` for an optional parameter), every
required parameter given, and at most one of each group of exclusive parameters (one evaluator:
``eval=`` or ``model=``). A spec that fails raises `AgentSpecError`, a ``ValueError`` whose message is
one line naming the problem; so do the values the agent itself refuses (``depth=0``). The CLI prints
that line and exits with status 2. An external program is a spec of its protocol, ``uci:COMMAND ...`` or
``gtp:COMMAND ...`` (`rlgames.agents.external`), checked for its syntax here and by the engine itself when it
starts.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

from rlgames.agents.external import PROTOCOLS, ExternalEngineError, load_engine, parse_engine_spec
from rlgames.game import Game


@dataclass(frozen=True)
class AgentEntry:
    """A registered agent: its factory ``"module:callable"``, called as ``factory(game, **params)`` and
    imported only when needed; example specs for help texts; groups of parameters of which a spec may
    give at most one."""

    target: str
    examples: tuple[str, ...]
    exclusive: tuple[tuple[str, ...], ...] = ()


_ONE_EVALUATOR = (("eval", "model"), ("weights", "model"))
_ONE_DEPTH = ("depth", "plies")
_RAVE_COMPILED = ("rave", "model")
_EVAL_OR_PLAYOUT = ("eval", "rollout")
_WHY_EXCLUSIVE: dict[tuple[str, ...], str] = {
    _ONE_DEPTH: "depth counts decisions, plies counts turns",
    _RAVE_COMPILED: "RAVE needs leaves valued in compiled code, a network's are batched",
    _EVAL_OR_PLAYOUT: "an evaluator values the leaves that rollouts would play out",
}
"""Why a group of exclusive parameters is one; the default: the agent uses one evaluator."""

_AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry("rlgames.agents.base:RandomAgent", ("random", "random(seed=3)")),
    "alphabeta": AgentEntry(
        "rlgames.agents.alphabeta:AlphaBetaAgent",
        (
            "alphabeta(depth=6, eval=heuristic)",
            "alphabeta(time=0.5)",
            "alphabeta(nodes=100000)",
            "alphabeta(time=0.2, model=checkpoints/connect_four.pt)",
        ),
        _ONE_EVALUATOR,
    ),
    "expectiminimax": AgentEntry(
        "rlgames.agents.expectiminimax:ExpectiminimaxAgent",
        (
            "expectiminimax(depth=4)",
            "expectiminimax(depth=6, eval=rollout)",
            "expectiminimax(time=0.5)",
            "expectiminimax(plies=2, model=checkpoints/backgammon.pt)",
            "expectiminimax(plies=3, filter=8)",
        ),
        (*_ONE_EVALUATOR, _ONE_DEPTH),
    ),
    "mcts": AgentEntry(
        "rlgames.agents.mcts:MCTSAgent",
        (
            "mcts(simulations=800)",
            "mcts(simulations=800, rollout=random)",
            "mcts(time=1.0)",
            "mcts(simulations=200, model=checkpoints/connect_four.pt)",
            "mcts(simulations=200, model=checkpoints/connect_four.pt, rollout=policy, mix=0.5)",
        ),
        (("eval", "model"), _RAVE_COMPILED, _EVAL_OR_PLAYOUT),
    ),
    "policy": AgentEntry(
        "rlgames.agents.policy:PolicyAgent",
        ("policy(model=checkpoints/tic_tac_toe.pt)", "policy(model=checkpoints/tic_tac_toe.pt, temperature=1)"),
    ),
    "solver": AgentEntry("rlgames.agents.solver:SolverAgent", ("solver", "solver(seed=1)")),
}

_SPEC = re.compile(r"^\s*(?P<name>[a-z_][a-z0-9_]*)\s*(?:\((?P<args>.*)\))?\s*$", re.IGNORECASE | re.DOTALL)
_KEY = re.compile(r"^[a-z_][a-z0-9_]*$", re.IGNORECASE)
_SCALARS = (bool, int, float, str)
_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a name or path"}


class AgentSpecError(ValueError):
    """A spec string that does not name an agent with valid parameters; the message is one line."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: the agent's name and its parameters, each read as an int, a float,
    ``true``/``false``, ``none`` or else a string (quotes stripped)."""

    name: str
    params: dict[str, Any]

    def __str__(self) -> str:
        if self.name in PROTOCOLS:
            return str(self.params["engine"])
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.params.items())})"


@dataclass(frozen=True)
class Parameter:
    """A keyword parameter of an agent's factory: its scalar type, whether ``none`` is accepted, and
    its default (``inspect.Parameter.empty`` when it is required)."""

    name: str
    kind: type
    optional: bool
    default: Any

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def __str__(self) -> str:
        kind = self.kind.__name__ + (" | None" if self.optional else "")
        return f"{self.name}: {kind}" + ("" if self.required else f" = {self.default!r}")


def register_agent(name: str, target: str, *examples: str, exclusive: tuple[tuple[str, ...], ...] = ()) -> None:
    """Registers a factory ``"module:callable"`` under ``name``, with example specs for help texts.
    The factory's keyword-only parameters, annotated with scalar types, are the spec's keys."""
    _AGENTS[name] = AgentEntry(target, examples, exclusive)


def list_agents() -> list[str]:
    return sorted(_AGENTS)


def _factory(name: str) -> Callable[..., Any]:
    module_name, attribute = _AGENTS[name].target.split(":")
    return getattr(importlib.import_module(module_name), attribute)


def parameters(name: str) -> dict[str, Parameter]:
    """The spec keys of agent ``name``: its factory's keyword-only parameters and their types."""
    factory = _factory(name)
    function = factory.__init__ if inspect.isclass(factory) else factory
    hints = typing.get_type_hints(function)
    found = {}
    for p in inspect.signature(factory).parameters.values():
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            kind, optional = _scalar_type(hints.get(p.name, str))
            found[p.name] = Parameter(p.name, kind, optional, p.default)
    return found


def _scalar_type(hint: Any) -> tuple[type, bool]:
    """``(scalar type, accepts None)`` of an annotation such as ``int``, ``float | None``, ``Optional[str]``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) == 1 and members[0] in _SCALARS:
            return members[0], True
    if hint in _SCALARS:
        return hint, False
    raise TypeError(f"agent parameters must be annotated with bool, int, float or str (or | None), got {hint!r}")


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text.strip("'\"")


def parse_spec(spec: str) -> AgentSpec:
    """Parses a spec string (syntax only); raises `AgentSpecError` naming the problem. An external engine's
    spec (``uci:COMMAND ...``, ``gtp:COMMAND ...``, `rlgames.agents.external`) parses as the protocol's name
    with the parsed engine as its one parameter, ``engine``."""
    protocol, colon, _ = spec.strip().partition(":")
    if colon and protocol.lower() in PROTOCOLS:
        try:
            return AgentSpec(protocol.lower(), {"engine": parse_engine_spec(spec)})
        except ExternalEngineError as error:
            raise AgentSpecError(str(error)) from None
    if spec.count("(") != spec.count(")"):
        raise AgentSpecError(f"agent spec {spec!r}: unbalanced parenthesis; {_FORM}")
    match = _SPEC.match(spec)
    if not match:
        raise AgentSpecError(f"cannot read agent spec {spec!r}; {_FORM}")
    params: dict[str, Any] = {}
    args = (match.group("args") or "").strip()
    items = [part.strip() for part in args.split(",")] if args else []
    if "" in items:
        raise AgentSpecError(f"agent spec {spec!r}: an empty parameter (a stray comma); {_FORM}")
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not _KEY.match(key) or not value:
            raise AgentSpecError(f"agent spec {spec!r}: expected key=value, got {item!r}")
        if key in params:
            raise AgentSpecError(f"agent spec {spec!r}: {key!r} is given twice")
        params[key] = _value(value)
    return AgentSpec(match.group("name").lower(), params)


_FORM = "write NAME or NAME(key=value, ...), e.g. alphabeta(depth=4, eval=heuristic); `rlgames agents` lists them"


def check_spec(spec: str) -> AgentSpec:
    """Parses ``spec`` and checks it against the agent's parameters: a known agent, known keys, values of
    the declared types (converted: ``time=1`` becomes 1.0), required keys present, no two exclusive keys.
    Returns the checked spec; raises `AgentSpecError` with a one-line message."""
    parsed = parse_spec(spec)
    if parsed.name in PROTOCOLS:
        return parsed
    if parsed.name not in _AGENTS:
        raise AgentSpecError(
            f"unknown agent {parsed.name!r} in spec {spec!r}; agents: {', '.join(list_agents())}, "
            f"or an external engine, uci:COMMAND or gtp:COMMAND"
        )
    accepted = parameters(parsed.name)
    where = f"agent spec {spec!r}"
    unknown = [key for key in parsed.params if key not in accepted]
    if unknown:
        raise AgentSpecError(
            f"{where}: {parsed.name} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters: {', '.join(map(str, accepted.values()))}"
        )
    for group in _AGENTS[parsed.name].exclusive:  # a flag set false (rave=false) counts as not given
        given = [key for key in group if parsed.params.get(key) is not None and parsed.params[key] is not False]
        if len(given) > 1:
            why = _WHY_EXCLUSIVE.get(group, f"{parsed.name} uses one evaluator")
            raise AgentSpecError(f"{where}: give one of {' or '.join(f'{k}=' for k in group)}, not both ({why})")
    missing = [p for p in accepted.values() if p.required and parsed.params.get(p.name) is None]
    if missing:
        example = next(iter(_AGENTS[parsed.name].examples), parsed.name)
        raise AgentSpecError(f"{where}: {parsed.name} needs {', '.join(f'{p.name}=' for p in missing)}, e.g. {example}")
    values = {key: _convert(where, accepted[key], value) for key, value in parsed.params.items()}
    return AgentSpec(parsed.name, values)


def _convert(where: str, parameter: Parameter, value: Any) -> Any:
    """``value`` as the parameter's type; raises `AgentSpecError` when it is not one."""
    kind = parameter.kind
    if value is None and parameter.optional:
        return None
    if kind is str and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise AgentSpecError(f"{where}: {parameter.name} must be a finite number, got {_shown(value)}")
        return float(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        raise AgentSpecError(f"{where}: {parameter.name}={value} does not fit in 64 bits")
    if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value
    accepted = _TYPE_NAMES[kind] + (" or none" if parameter.optional else "")
    raise AgentSpecError(f"{where}: {parameter.name} must be {accepted}, got {_shown(value)}")


def _shown(value: Any) -> str:
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)


def accepted_forms() -> str:
    """A help text: every agent with its parameters, their types and defaults, and examples."""
    lines = ["accepted agent specs: NAME or NAME(key=value, ...), where NAME(parameters) is one of:"]
    for name in list_agents():
        lines.append(f"  {name}({', '.join(map(str, parameters(name).values()))})")
    lines.append("examples: " + ", ".join(e for entry in _AGENTS.values() for e in entry.examples))
    lines.append(
        "an external UCI engine (chess): uci:COMMAND [uci-option:NAME=VALUE ...] [uci-go:movetime|depth|nodes=N], "
        "e.g. uci:stockfish uci-option:UCI_LimitStrength=true uci-option:UCI_Elo=1800"
    )
    lines.append("an external GTP engine (go): gtp:COMMAND [gtp-go:movetime=N], e.g. gtp:gnugo --mode gtp --level 5")
    return "\n".join(lines)


def load_agent(spec: str, game: Game) -> Any:
    """Builds the agent described by ``spec`` for ``game``, e.g. ``load_agent("random(seed=1)", game)``.

    Raises `AgentSpecError` (one line) for a spec that `check_spec` refuses or values the agent refuses;
    errors of a more specific kind keep their type (``rlgames.models.CheckpointError`` for an unusable checkpoint)."""
    checked = check_spec(spec)
    if checked.name in PROTOCOLS:
        return load_engine(game, checked.params["engine"])
    params = {**_game_defaults(checked, game), **checked.params}
    try:
        return _factory(checked.name)(game, **params)
    except ValueError as error:
        if type(error) is not ValueError:  # a subclass names its own problem (a checkpoint's, a game's)
            raise
        raise AgentSpecError(f"agent spec {spec!r}: {' '.join(str(error).split())}") from None


def _game_defaults(checked: AgentSpec, game: Game) -> dict[str, Any]:
    """``game.search_defaults`` of the agent ``checked`` names, less those the spec sets itself or excludes
    by setting another of their group (a ``plies=`` spec takes no default ``depth``)."""
    given = set(checked.params)
    groups = _AGENTS[checked.name].exclusive
    return {
        key: value
        for key, value in game.search_defaults.get(checked.name, {}).items()
        if not any(key in group and given & set(group) for group in groups) and key not in given
    }


def default_spec(game: Game) -> str:
    """The agent a game is played against unless told otherwise: `Game.default_agent`, else
    ``alphabeta(depth=6)``, or ``expectiminimax(depth=4)`` in a game with chance nodes."""
    return game.default_agent or ("expectiminimax(depth=4)" if game.has_chance else "alphabeta(depth=6)")
