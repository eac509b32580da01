"""The agent spec language: ``name`` or ``name(key=value, ...)``, e.g. ``alphabeta(depth=6, eval=heuristic)``.

Values are read as ints, floats, ``true``/``false``/``none``, or else kept as strings (evaluator names,
checkpoint paths). `load_agent` builds the agent for a game; a malformed spec raises `AgentSpecError`
listing the accepted forms.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable

from rlgames.game import Game

# name -> ("module:factory", example specs); a factory is called as factory(game, **params), and
# imported only when an agent of that name is built.
_AGENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "random": ("rlgames.agents.base:RandomAgent", ("random", "random(seed=3)")),
    "alphabeta": ("rlgames.agents.alphabeta:AlphaBetaAgent",
                  ("alphabeta(depth=6, eval=heuristic)", "alphabeta(time=0.5)", "alphabeta(nodes=100000)")),
    "expectiminimax": ("rlgames.agents.expectiminimax:ExpectiminimaxAgent",
                       ("expectiminimax(depth=4)", "expectiminimax(depth=6, eval=rollout)")),
    "mcts": ("rlgames.agents.mcts:MCTSAgent",
             ("mcts(simulations=800)", "mcts(simulations=800, rollout=random)", "mcts(time=1.0)",
              "mcts(simulations=200, model=checkpoints/connect_four.pt)",
              "mcts(simulations=200, model=checkpoints/connect_four.pt, rollout=policy, mix=0.5)")),
    "policy": ("rlgames.agents.policy:PolicyAgent",
               ("policy(model=checkpoints/tic_tac_toe.pt)", "policy(model=checkpoints/tic_tac_toe.pt, temperature=1)")),
    "solver": ("rlgames.agents.solver:SolverAgent", ("solver", "solver(seed=1)")),
}

_SPEC = re.compile(r"^\s*(?P<name>[a-z_][a-z0-9_]*)\s*(?:\((?P<args>.*)\))?\s*$", re.IGNORECASE | re.DOTALL)
_KEY = re.compile(r"^[a-z_][a-z0-9_]*$", re.IGNORECASE)


class AgentSpecError(ValueError):
    """A spec string that does not name an agent with valid parameters."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: the agent's name and its parameters."""

    name: str
    params: dict[str, Any]

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.params.items())})"


def register_agent(name: str, target: str, *examples: str) -> None:
    """Registers a factory ``"module:callable"`` under ``name``, with example specs for help texts."""
    _AGENTS[name] = (target, examples)


def list_agents() -> list[str]:
    return sorted(_AGENTS)


def _factory(name: str) -> Callable[..., Any]:
    module_name, attribute = _AGENTS[name][0].split(":")
    return getattr(importlib.import_module(module_name), attribute)


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
    """Parses a spec string; raises `AgentSpecError` naming the problem and showing the accepted forms."""
    match = _SPEC.match(spec)
    if not match:
        raise AgentSpecError(f"cannot read agent spec {spec!r}\n{accepted_forms()}")
    params: dict[str, Any] = {}
    args = (match.group("args") or "").strip()
    for item in (part.strip() for part in args.split(",") if part.strip()):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not _KEY.match(key) or not value:
            raise AgentSpecError(f"in agent spec {spec!r}: expected key=value, got {item!r}\n{accepted_forms()}")
        if key in params:
            raise AgentSpecError(f"in agent spec {spec!r}: {key!r} is given twice\n{accepted_forms()}")
        params[key] = _value(value)
    return AgentSpec(match.group("name").lower(), params)


def accepted_forms() -> str:
    """A help text: every agent with its parameters and defaults, and examples."""
    lines = ["accepted agent specs: NAME or NAME(key=value, ...), where NAME(parameters) is one of:"]
    for name in list_agents():
        parameters = inspect.signature(_factory(name)).parameters.values()
        shown = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                 for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
        lines.append(f"  {name}({', '.join(shown)})")
    lines.append("examples: " + ", ".join(e for _, examples in _AGENTS.values() for e in examples))
    return "\n".join(lines)


def load_agent(spec: str, game: Game) -> Any:
    """Builds the agent described by ``spec`` for ``game``, e.g. ``load_agent("random(seed=1)", game)``."""
    parsed = parse_spec(spec)
    if parsed.name not in _AGENTS:
        raise AgentSpecError(f"unknown agent {parsed.name!r} in spec {spec!r}\n{accepted_forms()}")
    factory = _factory(parsed.name)
    accepted = inspect.signature(factory).parameters
    unknown = [key for key in parsed.params if key not in accepted or key == "game"]
    if unknown:
        raise AgentSpecError(f"agent {parsed.name!r} has no parameter {', '.join(map(repr, unknown))}\n"
                             f"{accepted_forms()}")
    return factory(game, **parsed.params)
