"""An agent's moves on a file of positions, and its accuracy against the game-theoretic truth.

Positions are lines of moves (`rlgames.arena.positions`: connect four in Pons' notation, possibly with
a score; other games as space-separated moves). `analyse` gives, per position, the agent's move, value
and search statistics. `measure_accuracy` scores two things against the truth:

* optimal-move accuracy: the agent's move keeps the game-theoretic value of the position;
* value-sign accuracy: the sign of the agent's value (0 within ``draw_margin`` of 0) equals the value's
  (win, draw or loss: a game-theoretic value is a return, which may be worth 2 points).

Both are reported over all positions, over the decisive ones, and by stage of the game
(`Accuracy.by_stage`). The truth comes from one of two sources. ``"solver"``: the exact solver
(`rlgames.solvers.solve`) solves the position, and the move is optimal when it is among
``value_preserving_actions`` (the connect-four solver runs one search per legal move for them).
``"labels"``: a labelled file (`rlgames.arena.positions`) gives the value and the moves that keep it,
and nothing is solved; or the file's scores (Pons' format) give the value, and only the child after
the agent's move is solved: the move is optimal when the sign of the child's value, seen from the
mover, equals the label's. ``"auto"`` uses the labels when every position has one.
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
class Judged:
    """One position's verdict: its plies from the start, its game-theoretic result for the side to move
    (-1, 0 or 1), whether the agent's move kept it, and whether its value had its sign."""

    plies: int
    value: int
    optimal: bool
    sign_right: bool


STAGES = (8, 16, 24)
"""Where the stages of `Accuracy.by_stage` begin (after the first, which begins at ply 0): connect four's
opening, early and late middle game, and ending (plies 0-7, 8-15, 16-23, 24+)."""


@dataclass(frozen=True)
class Accuracy:
    """How often the agent's move kept the value, and its value had the right sign, over the judged positions."""

    truth: str
    judged: tuple[Judged, ...]

    @property
    def positions(self) -> int:
        return len(self.judged)

    @property
    def optimal_moves(self) -> int:
        return sum(j.optimal for j in self.judged)

    @property
    def value_signs(self) -> int:
        return sum(j.sign_right for j in self.judged)

    @property
    def optimal_move_rate(self) -> float:
        return self.optimal_moves / self.positions if self.judged else float("nan")

    @property
    def value_sign_rate(self) -> float:
        return self.value_signs / self.positions if self.judged else float("nan")

    def decisive(self) -> Accuracy:
        """The positions won or lost for the side to move (draws left out)."""
        return Accuracy(self.truth, tuple(j for j in self.judged if j.value != 0))

    def drawn(self) -> Accuracy:
        """The positions drawn with best play, where most moves lose and the agent must find one that
        does not."""
        return Accuracy(self.truth, tuple(j for j in self.judged if j.value == 0))

    def by_stage(self, starts: Sequence[int] = STAGES) -> list[tuple[str, Accuracy]]:
        """``(label, accuracy)`` per stage of the game, by plies from the start: ``starts`` are where the
        stages after the first begin; stages without a position are left out."""
        bounds = [0, *starts]
        stages = []
        for lo, hi in zip(bounds, [*bounds[1:], None]):
            label = f"plies {lo}-{hi - 1}" if hi is not None else f"plies {lo}+"
            judged = tuple(j for j in self.judged if j.plies >= lo and (hi is None or j.plies < hi))
            if judged:
                stages.append((label, Accuracy(self.truth, judged)))
        return stages


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
    judge = _labelled_truth if truth == "labels" else _solver_truth
    judged = []
    for position in tqdm(positions, unit="position", disable=not progress):
        state = position_state(game, position)
        result = agent.search(state)
        value, keeps = judge(state, position, result.action)
        judged.append(Judged(len(position.actions), value, keeps, value_sign(result.value, draw_margin) == value))
    return Accuracy(truth, tuple(judged))


def _resolve_truth(truth: str, positions: Sequence[PositionLine]) -> str:
    if truth not in TRUTHS:
        raise ValueError(f"unknown truth {truth!r}; expected one of {', '.join(TRUTHS)}")
    if not positions:
        raise ValueError("accuracy needs at least one position")
    labelled = all(position.result is not None for position in positions)
    if truth == "labels" and not labelled:
        raise ValueError("truth 'labels' needs a score (Pons' format) or a value (a labelled file) on every position")
    return truth if truth != "auto" else ("labels" if labelled else "solver")


def _solver_truth(state: State, position: PositionLine, action: int) -> tuple[int, bool]:
    solution = solve(state)  # its value is a return: its sign is the game-theoretic result
    return value_sign(solution.value), action in solution.value_preserving_actions


def _labelled_truth(state: State, position: PositionLine, action: int) -> tuple[int, bool]:
    value = position.result
    assert value is not None  # `_resolve_truth` saw a label on every position
    if position.keeps is not None:
        return value, action in position.keeps
    mover = state.current_player()
    child = state.apply(action)
    if child.is_terminal():  # the result's sign from the mover (a return may be worth 2 points)
        kept = value_sign(child.game.info.value(child.returns()[mover]))
    else:
        child_value = value_sign(solve(child).value)
        kept = child_value if child.current_player() == mover else -child_value
    return value, kept == value
