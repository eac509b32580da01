"""Agents: objects that choose moves, built from spec strings such as ``alphabeta(depth=6)``."""

from rlgames.agents.base import Agent, RandomAgent
from rlgames.agents.spec import (
    AgentSpec,
    AgentSpecError,
    check_spec,
    list_agents,
    load_agent,
    parse_spec,
    register_agent,
)

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "RandomAgent",
    "check_spec",
    "list_agents",
    "load_agent",
    "parse_spec",
    "register_agent",
]
