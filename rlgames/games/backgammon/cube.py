"""The doubling cube in money play: cubeful equities from cubeless outcome probabilities (Janowski).

An evaluator that knows the outcome probabilities of a position (`rlgames.evaluators.outcomes`: P(win) and
the gammons and backgammons won and lost, cubeless) gives the two averages Janowski's model needs, for the
player on roll: ``W``, the points an average win is worth, and ``L``, those an average loss costs. With a
*dead* cube (it will never be turned again) the equity is linear in the chance of winning ``p``:
``p W - (1 - p) L``. With a fully *live* cube (doubles come exactly when they should) the player who may
double cashes at ``CP = (L + 1) / (W + L + 1/2)`` and the opponent drops below ``TP = (L - 1/2) / (W +
L + 1/2)`` (Janowski's take and cash points for a live cube), so the equity runs in straight lines between
(0, -L), the points where the cube decides, and (1, W). A real cube lies between the two: the cubeful
equity is ``x`` times the live one plus ``1 - x`` times the dead one, ``x`` the *cube life* (Janowski
1993, "Take-points in money games"; 0.68 is gnubg's default for contact positions). Equities here are in
units of the current cube value, for the player on roll.

The decisions follow: double when the doubled cube, taken or passed, is worth at least keeping the cube
(``min(take, pass) >= no double``: a double that the opponent must pass is a cash, and "too good to
double" means keeping the cube to play on for a gammon), and take when the doubled cube taken costs less
than passing (``take <= 1`` for the doubler).

`formula_decision` takes the agents' decisions in the game with the cube (``Backgammon(cube=True)``,
`rlgames.games.backgammon.doubling`): the roller's to double or roll, the opponent's to take or drop, from
`roller_outcomes` at the roll that follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlgames.evaluators.outcomes import consistent, flip_outcomes
from rlgames.game import CHANCE, State
from rlgames.games.backgammon.doubling import DOUBLE, DROP, ROLL, TAKE, is_cube_decision
from rlgames.games.backgammon.slots import META, OFFERED, OPENING_BIT, OWNER, cube_owner, max_points

CUBE_LIFE = 0.68
"""Janowski's cube efficiency ``x`` for money play: gnubg's default for contact positions."""


@dataclass(frozen=True)
class CubeEquities:
    """The cubeful equities of a cube decision, for the player on roll, in units of the current cube."""

    no_double: float
    """Keep the cube and roll."""
    double_take: float
    """Double, and the opponent takes (the cube doubled, on the opponent's side)."""
    double_pass: float
    """Double, and the opponent passes: the current cube's value, 1."""

    @property
    def double(self) -> bool:
        """Whether to double: the opponent's best answer is worth at least keeping the cube (where they are
        equal, as with a fully live cube at the cash point, cashing now is the surer of the two)."""
        return min(self.double_take, self.double_pass) >= self.no_double

    @property
    def take(self) -> bool:
        """Whether the opponent should take a double."""
        return self.double_take <= self.double_pass


def win_values(outcomes: dict[str, float]) -> tuple[float, float, float]:
    """``(p, W, L)`` from cubeless outcomes by name (`rlgames.evaluators.outcomes.consistent`): the chance
    of winning, the points of an average win and of an average loss (1 for single games only)."""
    p = outcomes["win"]
    won = p + outcomes.get("win_2", 0.0) + outcomes.get("win_3", 0.0)
    lost = outcomes["lose"] + outcomes.get("lose_2", 0.0) + outcomes.get("lose_3", 0.0)
    return p, won / p if p > 0 else 1.0, lost / (1 - p) if p < 1 else 1.0


def cubeful_equity(p: float, win: float, loss: float, owner: str, *, cube_life: float = CUBE_LIFE) -> float:
    """Janowski's cubeful equity of the player on roll who wins with probability ``p`` (averages ``win`` and
    ``loss``), the cube held by ``owner``: ``"centered"``, ``"me"`` or ``"opponent"``."""
    dead = p * win - (1 - p) * loss
    take_point = (loss - 0.5) / (win + loss + 0.5)
    cash_point = (loss + 1.0) / (win + loss + 0.5)
    if owner == "me":  # from (0, -L) to the cash point (CP, 1), then the dead line's end (1, W)
        live = _line(p, 0.0, -loss, cash_point, 1.0) if p < cash_point else _line(p, cash_point, 1.0, 1.0, win)
    elif owner == "opponent":  # from (0, -L) to the opponent's cash point (TP, -1), then up to (1, W)
        live = _line(p, 0.0, -loss, take_point, -1.0) if p < take_point else _line(p, take_point, -1.0, 1.0, win)
    elif owner == "centered":
        if p < take_point:
            live = _line(p, 0.0, -loss, take_point, -1.0)
        elif p < cash_point:
            live = _line(p, take_point, -1.0, cash_point, 1.0)
        else:
            live = _line(p, cash_point, 1.0, 1.0, win)
    else:
        raise ValueError(f"cube owner must be centered, me or opponent, got {owner!r}")
    return cube_life * live + (1 - cube_life) * dead


def _line(p: float, p0: float, e0: float, p1: float, e1: float) -> float:
    """The straight line through (p0, e0) and (p1, e1), at ``p``."""
    return e0 + (e1 - e0) * (p - p0) / (p1 - p0)


def cube_equities(outcomes: dict[str, float], owner: str, *, cube_life: float = CUBE_LIFE) -> CubeEquities:
    """The equities of doubling or not, for the player on roll holding the cube (``owner`` ``"me"``) or
    with it centered, from its cubeless outcomes (`win_values`)."""
    if owner not in ("centered", "me"):
        raise ValueError(f"only the cube's holder may double: owner {owner!r}")
    p, win, loss = win_values(outcomes)
    return CubeEquities(
        no_double=cubeful_equity(p, win, loss, owner, cube_life=cube_life),
        double_take=2.0 * cubeful_equity(p, win, loss, "opponent", cube_life=cube_life),
        double_pass=1.0,
    )


def cube_decision(
    evaluator: Any, state: State, *, owner: str = "centered", cube_life: float = CUBE_LIFE
) -> CubeEquities:
    """The cube decision of the player about to roll at the chance node ``state``, from the outcome
    probabilities the evaluator gives there (`roller_outcomes`: e.g. those of ``checkpoints/backgammon_full.pt``
    through `rlgames.models.NNUEvaluator`). ``owner``: the cube ``"centered"`` or the roller's (``"me"``)."""
    compact = state.compact
    if compact[0] != CHANCE or compact[META] & OPENING_BIT:
        raise ValueError("backgammon: a cube decision is taken before a roll, at a chance node after the opening")
    return cube_equities(roller_outcomes(evaluator, state), owner, cube_life=cube_life)


def roller_outcomes(evaluator: Any, roll: State) -> dict[str, float]:
    """The cubeless outcomes (`consistent`'s names) for the player about to roll at the chance node
    ``roll``: the evaluator's outcome probabilities where it has them (a network with an outcome head;
    it values a chance node for the player who just moved, whose outcomes are turned to the roller's),
    or the hand-crafted evaluator and pubeval, `rlgames.games.backgammon.evaluator`), else its value read
    as a cubeless equity of single games only (``W = L = 1``: a win/loss network)."""
    points = max_points(roll.compact)
    if evaluator.has_outcomes:
        mover = evaluator.outcomes([roll])[0]
        most = (len(mover) + 1) // 2  # the points of the network's outcome head
        roller = mover.copy()
        flip_outcomes(mover, most, roller)
        return consistent(roller, most)
    kernel = evaluator.kernel
    value = kernel(roll.compact) if kernel is not None else evaluator.value(roll)
    p = min(1.0, max(0.0, (1.0 - value * points) / 2.0))  # the mover's value, turned to the roller's
    return {"win": p, "lose": 1.0 - p}


def formula_decision(
    state: State, evaluator: Any, *, passive: bool = False, cube_life: float = CUBE_LIFE
) -> tuple[int, float] | None:
    """``(action, value)`` at a decision of the cube (`rlgames.game.Game.formula_decision`), by Janowski's
    formula over the evaluator's outcome probabilities (`roller_outcomes`); ``passive``: never double,
    always take. The value, from the side to move, is search's: the cubeful equity times the stakes
    over the largest points. None elsewhere."""
    compact = state.compact
    if not is_cube_decision(compact):
        return None
    offered = compact[OWNER] & OFFERED != 0
    roll = type(state)(state.game, (CHANCE, 0, compact[OWNER] & ~OFFERED, *compact[3:]))
    owner = "centered" if cube_owner(compact) < 0 else "me"
    equities = cube_equities(roller_outcomes(evaluator, roll), owner, cube_life=cube_life)
    scale = state.stakes() / max_points(compact)
    if offered:  # the taker's decision, its equity the doubler's negated
        take = passive or equities.take
        return (TAKE, -equities.double_take * scale) if take else (DROP, -equities.double_pass * scale)
    if not passive and equities.double:
        return DOUBLE, min(equities.double_take, equities.double_pass) * scale
    return ROLL, equities.no_double * scale
