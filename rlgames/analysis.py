"""An agent's moves on a file of positions, and its accuracy against the game-theoretic truth.

Positions are lines of moves (`rlgames.arena.positions`: connect four in Pons' notation, possibly with
a score; other games as space-separated moves). `analyse` gives, per position, the agent's move, value
and search statistics. `measure_accuracy` scores two things against the truth:

* optimal-move accuracy: the agent's move keeps the game-theoretic value of the position;
* value-sign accuracy: the sign of the agent's value (0 within ``draw_margin`` of 0) equals the value's
  (win, draw or loss: a game-theoretic value is a return, which may be worth 2 points).

The truth comes from one of two sources. ``"solver"``: the exact solver (`rlgames.solvers.solve`)
solves the position, and the move is optimal when it is among ``value_preserving_actions`` (the
connect-four solver runs one search per legal move for them). ``"labels"``: the file's scores (Pons'
format) give the value, and only the child after the agent's move is solved: the move is optimal when
the sign of the child's value, seen from the mover, equals the label's. ``"auto"`` uses the labels when
every position has one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from tqdm import tqdm

from rlgames.arena.positions import PositionLine, moves_to_text
from rlgames.game import Game, State
from rlgames.search.result import SearchResult
from rlgames.solvers import solve

TRUTHS = ("auto", "solver", "labels")


def position_state(game: Game, position: PositionLine) -> State:
    """The position's state; raises `ValueError` when the game is already over there."""
    state = game.state_from_actions(position.actions)
    if state.is_terminal() or state.is_chance_node():
        raise ValueError(f"line {position.number} ({position.text!r}): no player is to move there")
    return state


def analysis_record(game: Game, position: PositionLine, state: State, result: SearchResult) -> dict[str, Any]:
    """One JSON line of `analyse`: the agent's ``result`` on the position's ``state``."""
    stats = result.stats
    return {
        "line": position.number,
        "position": moves_to_text(game, position.actions),
        "to_move": state.current_player(),
        "action": result.action,
        "move": state.action_to_string(result.action),
        "value": result.value,
        "principal_variation": _line_text(state, result.principal_variation),
        "plies_to_end": result.plies_to_end,
        "nodes": stats.nodes,
        "depth": stats.depth,
        "cutoffs": stats.cutoffs,
        "tt_hits": stats.tt_hits,
        "time_s": stats.time_s,
        "nodes_per_second": stats.nodes_per_second,
        "extra": dict(stats.extra),
    }


def _line_text(state: State, actions: Iterable[int]) -> list[str]:
    moves = []
    for action in actions:
        if state.is_terminal():
            break
        moves.append(state.action_to_string(action))
        state = state.apply(action)
    return moves


def analyse(
    game: Game, agent: Any, positions: Sequence[PositionLine], *, progress: bool = False
) -> Iterator[dict[str, Any]]:
    """The agent's search on every position, as `analysis_record` dicts; ``progress`` draws a bar on stderr."""
    for position in tqdm(positions, unit="position", disable=not progress):
        state = position_state(game, position)
        yield analysis_record(game, position, state, agent.search(state))


@dataclass(frozen=True)
class Accuracy:
    """How often the agent's move kept the value, and its value had the right sign, over ``positions``."""

    truth: str
    positions: int
    optimal_moves: int
    value_signs: int

    @property
    def optimal_move_rate(self) -> float:
        return self.optimal_moves / self.positions

    @property
    def value_sign_rate(self) -> float:
        return self.value_signs / self.positions


def value_sign(value: float, draw_margin: float = 0.0) -> int:
    """-1, 0 or 1: 0 when ``|value| <= draw_margin``."""
    return 0 if abs(value) <= draw_margin else (1 if value > 0 else -1)


def measure_accuracy(
    game: Game,
    agent: Any,
    positions: Sequence[PositionLine],
    *,
    truth: str = "auto",
    draw_margin: float = 0.0,
    progress: bool = False,
) -> Accuracy:
    """Optimal-move and value-sign accuracy of ``agent`` on ``positions`` (see the module's docstring);
    ``progress`` draws a bar on stderr."""
    truth = _resolve_truth(truth, positions)
    optimal = signs = 0
    for position in tqdm(positions, unit="position", disable=not progress):
        state = position_state(game, position)
        result = agent.search(state)
        value, keeps = (_labelled_truth if truth == "labels" else _solver_truth)(state, position, result.action)
        optimal += keeps
        signs += value_sign(result.value, draw_margin) == value
    return Accuracy(truth, len(positions), optimal, signs)


def _resolve_truth(truth: str, positions: Sequence[PositionLine]) -> str:
    if truth not in TRUTHS:
        raise ValueError(f"unknown truth {truth!r}; expected one of {', '.join(TRUTHS)}")
    if not positions:
        raise ValueError("accuracy needs at least one position")
    labelled = all(position.score is not None for position in positions)
    if truth == "labels" and not labelled:
        raise ValueError("truth 'labels' needs a score on every position (Pons' format)")
    return truth if truth != "auto" else ("labels" if labelled else "solver")


def _solver_truth(state: State, position: PositionLine, action: int) -> tuple[int, bool]:
    solution = solve(state)  # its value is a return: its sign is the game-theoretic result
    return value_sign(solution.value), action in solution.value_preserving_actions


def _labelled_truth(state: State, position: PositionLine, action: int) -> tuple[int, bool]:
    assert position.score is not None
    value = (position.score > 0) - (position.score < 0)
    mover = state.current_player()
    child = state.apply(action)
    if child.is_terminal():  # the result's sign from the mover (a return may be worth 2 points)
        kept = value_sign(child.game.info.value(child.returns()[mover]))
    else:
        child_value = value_sign(solve(child).value)
        kept = child_value if child.current_player() == mover else -child_value
    return value, kept == value
