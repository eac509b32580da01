"""Helpers shared by the evaluator tests: random states, named features, matches between searchers."""

from __future__ import annotations

import numpy as np

from rlgames.game import State

SMALL_TT = 0.25  # MB


def random_states(game, count: int, seed: int, max_plies: int) -> list[State]:
    """Non-terminal states reached by random play (chance outcomes by their probabilities)."""
    rng = np.random.default_rng(seed)
    states: list[State] = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, max_plies + 1)):
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state = state.apply(int(rng.choice(outcomes, p=probs)))
            else:
                state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            states.append(state)
    return states


def features(evaluator, state) -> dict[str, float]:
    return dict(zip(evaluator.feature_names, evaluator.feature_values(state).tolist()))


def play(game, players, rng: np.random.Generator, opening: int = 0) -> float:
    """Player 0's return in one game; ``players[i]`` is an AlphaBeta or None (uniformly random);
    the first ``opening`` moves are random."""
    state = game.new_initial_state()
    ply = 0
    while not state.is_terminal():
        searcher = players[state.current_player()]
        if searcher is None or ply < opening:
            state = state.apply(int(rng.choice(state.legal_actions())))
        else:
            state = state.apply(searcher.search(state).action)
        ply += 1
    return state.returns()[0]


def score_vs(game, searcher, opponent, games: int, seed: int, opening: int = 0) -> float:
    """The searcher's points (win 1, draw 0.5) over ``games`` games, colours alternating."""
    rng = np.random.default_rng(seed)
    points = 0.0
    for i in range(games):
        seats = (searcher, opponent) if i % 2 == 0 else (opponent, searcher)
        result = play(game, seats, rng, opening) * (1 if i % 2 == 0 else -1)
        points += (result + 1) / 2
    return points
