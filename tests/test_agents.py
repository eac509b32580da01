"""Agents built from spec strings, and what they promise."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.agents import AgentSpecError, RandomAgent, check_spec, parse_spec

TTT = rlgames.load_game("tic_tac_toe")


def play(game: rlgames.Game, first, second, state: rlgames.State | None = None) -> list[float]:
    """Plays one game between two agents (``first`` is player 0); returns the returns."""
    state = state or game.new_initial_state()
    agents = (first, second)
    while not state.is_terminal():
        state = state.apply(agents[state.current_player()].act(state))
    return state.returns()


@pytest.mark.parametrize(
    "spec, name, params",
    [
        ("random", "random", {}),
        ("  MCTS( simulations = 800 , rollout=random ) ", "mcts", {"simulations": 800, "rollout": "random"}),
        ("alphabeta(depth=6, eval=heuristic)", "alphabeta", {"depth": 6, "eval": "heuristic"}),
        (
            "x(a=1.5, b=true, c=None, d='q', e=checkpoints/connect_four.pt)",
            "x",
            {"a": 1.5, "b": True, "c": None, "d": "q", "e": "checkpoints/connect_four.pt"},
        ),
        ("solver()", "solver", {}),
    ],
)
def test_parse_spec(spec, name, params):
    parsed = parse_spec(spec)
    assert (parsed.name, parsed.params) == (name, params)


@pytest.mark.parametrize(
    "spec, problem",
    [
        ("alphabeta(depth=)", "expected key=value, got 'depth='"),
        ("alphabeta(depth=3, depth=4)", "'depth' is given twice"),
        ("alphabeta(depth 3)", "expected key=value"),
        ("3x", "cannot read agent spec '3x'"),
        ("alphabeta(depth=3", "unbalanced parenthesis"),
        (
            "chess_engine",
            "unknown agent 'chess_engine' in spec 'chess_engine'; "
            "agents: alphabeta, expectiminimax, mcts, policy, random, solver",
        ),
        ("random(sed=1)", "random has no parameter 'sed'; its parameters: seed: int | None = None"),
        ("alphabeta(depth=three)", "depth must be an integer or none, got 'three'"),
        ("alphabeta(depth=2.5)", "depth must be an integer or none, got 2.5"),
        ("alphabeta(depth=true)", "depth must be an integer or none, got true"),
        ("mcts(simulations=1.5)", "simulations must be an integer or none, got 1.5"),
        ("mcts(reuse=3)", "reuse must be true or false, got 3"),
        ("mcts(time=fast)", "time must be a number or none, got 'fast'"),
        ("random(seed=abc)", "seed must be an integer or none, got 'abc'"),
        ("policy", "policy needs model=, e.g. policy(model="),
        ("policy(model=none)", "policy needs model="),
        (
            "alphabeta(depth=4, eval=heuristic, model=checkpoints/connect_four.pt)",
            "give one of eval= or model=, not both",
        ),
        ("alphabeta(weights=w.json, model=checkpoints/connect_four.pt)", "give one of weights= or model=, not both"),
        ("mcts(eval=heuristic, model=x.pt)", "give one of eval= or model=, not both"),
        (
            "expectiminimax(depth=2, plies=1)",
            "give one of depth= or plies=, not both (depth counts decisions, plies counts turns)",
        ),
        ("expectiminimax(plies=1, eval=rollout)", "does not score"),
        ("alphabeta(depth=0)", "agent spec 'alphabeta(depth=0)': depth must be in [1, 500], got 0"),
        ("mcts(simulations=0)", "simulations must be at least 1, got 0"),
        ("alphabeta(eval=nonsense)", "unknown evaluator 'nonsense'"),
    ],
)
def test_bad_specs_are_refused_in_one_line_naming_the_problem(spec, problem):
    with pytest.raises(AgentSpecError) as raised:
        rlgames.load_agent(spec, TTT)
    message = str(raised.value)
    assert problem in message and "\n" not in message


@pytest.mark.parametrize(
    "spec, params",
    [
        ("alphabeta(time=1)", {"time": 1.0}),
        ("alphabeta(depth=none, nodes=5)", {"depth": None, "nodes": 5}),
        ("mcts(simulations=8, reuse=false, c=2)", {"simulations": 8, "reuse": False, "c": 2.0}),
        ("alphabeta(eval=heuristic)", {"eval": "heuristic"}),
    ],
)
def test_check_spec_converts_values_to_the_declared_types(spec, params):
    checked = check_spec(spec)
    assert checked.params == params
    assert all(type(checked.params[k]) is type(v) for k, v in params.items())


def test_random_agent_is_reproducible_and_uniform():
    state = TTT.new_initial_state()
    first = [rlgames.load_agent("random(seed=5)", TTT).act(state) for _ in range(3)]
    assert len(set(first)) == 1
    agent = RandomAgent(TTT, seed=0)
    counts = np.bincount([agent.act(state) for _ in range(9000)], minlength=9)
    assert counts.min() > 850 and counts.max() < 1150
    result = agent.search(state)
    assert result.policy.sum() == pytest.approx(1.0) and result.action in state.legal_actions()


def test_solver_agent_never_loses_and_reports_exact_values():
    solver = rlgames.load_agent("solver(seed=1)", TTT)
    randoms = [RandomAgent(TTT, seed=s) for s in range(30)]
    for opponent in randoms[:15]:
        assert play(TTT, solver, opponent)[0] >= 0
    for opponent in randoms[15:]:
        assert play(TTT, opponent, solver)[1] >= 0
    result = solver.search(TTT.state_from_moves("a1 b2 c3"))  # o holds the draw with an edge move only
    assert result.value == 0.0 and result.action in (1, 3, 5, 7)
    assert np.flatnonzero(result.policy).tolist() == [1, 3, 5, 7]
    won = solver.search(TTT.state_from_moves("a1 b1 a2 b2"))  # x wins at a3 at once
    assert (won.action, won.value, won.plies_to_end) == (6, 1.0, 1)


def test_solver_agent_refuses_chance_games():
    with pytest.raises(ValueError, match="chance"):
        rlgames.load_agent("solver", rlgames.load_game("pig"))


def test_mcts_agent_finds_the_win_and_reuses_its_tree():
    agent = rlgames.load_agent("mcts(simulations=400, seed=3)", TTT)
    state = TTT.state_from_moves("a1 b1 a2 b2")  # x wins at a3
    result = agent.search(state)
    assert result.action == 6 and result.value == 1.0
    agent = rlgames.load_agent("mcts(simulations=2000)", TTT)
    first = agent.search(TTT.new_initial_state())
    reply = TTT.new_initial_state().apply(first.action)
    later = reply.apply(reply.legal_actions()[0])
    assert agent.search(later).stats.extra["reused_visits"] > 0
    fresh = rlgames.load_agent("mcts(simulations=2000, reuse=false)", TTT)
    fresh.search(TTT.new_initial_state())
    assert fresh.search(later).stats.extra["reused_visits"] == 0


def test_mcts_agent_rejects_unknown_rollouts_and_mixed_evaluators():
    with pytest.raises(ValueError, match="unknown rollout 'smart'"):
        rlgames.load_agent("mcts(rollout=smart)", TTT)
    with pytest.raises(ValueError, match="not both"):
        rlgames.load_agent("mcts(eval=heuristic, model=x.pt)", TTT)


def test_a_checkpoint_plays_inside_alphabeta_and_mcts(tmp_path):
    torch = pytest.importorskip("torch")
    from rlgames.models import CheckpointError, build_network, save_checkpoint

    torch.set_num_threads(1)
    c4 = rlgames.load_game("connect_four")
    path = save_checkpoint(tmp_path / "c4.pt", network=build_network(c4, blocks=1, channels=8, seed=0), game=c4)
    state = c4.state_from_moves("4453")
    for spec in (f"alphabeta(depth=2, model={path})", f"mcts(simulations=32, model={path})"):
        result = rlgames.load_agent(spec, c4).search(state)
        assert result.action in state.legal_actions() and -1.0 <= result.value <= 1.0
    with pytest.raises(CheckpointError, match="connect_four, not tic_tac_toe"):
        rlgames.load_agent(f"mcts(model={path})", TTT)


def test_every_agent_follows_the_protocol_seed_included():
    from pathlib import Path

    from rlgames.agents import Agent, list_agents

    model = Path(__file__).resolve().parents[1] / "checkpoints" / "tic_tac_toe.pt"
    specs = {
        "random": "random",
        "alphabeta": "alphabeta(depth=1)",
        "mcts": "mcts(simulations=4)",
        "policy": f"policy(model={model})",
        "solver": "solver",
        "expectiminimax": "expectiminimax(depth=1)",
    }
    assert set(specs) == set(list_agents())
    for name, spec in specs.items():
        game = rlgames.load_game("pig", winscore=10) if name == "expectiminimax" else TTT
        agent = rlgames.load_agent(spec, game)
        assert isinstance(agent, Agent), name
        agent.seed(3)
        state = game.new_initial_state()
        assert agent.act(state) in state.legal_actions()


def test_a_games_search_defaults_apply_unless_the_spec_names_them():
    """Chess declares quiescence for alpha-beta (`Game.search_defaults`): every spec gets it unless it names
    the setting; other games and other agents are left as they are."""
    chess, connect_four = rlgames.load_game("chess"), rlgames.load_game("connect_four")

    def quiescence(spec: str, game: rlgames.Game) -> int:
        return rlgames.load_agent(spec, game).search_algorithm.config.quiescence_depth

    assert chess.search_defaults == {"alphabeta": {"quiescence": 8}}
    assert quiescence("alphabeta(depth=2)", chess) == 8
    assert quiescence("alphabeta(depth=2, quiescence=0)", chess) == 0
    assert quiescence("alphabeta(time=0.1, quiescence=3)", chess) == 3
    assert quiescence("alphabeta(depth=2)", connect_four) == 0
