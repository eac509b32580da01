"""Go's learned rollout policy: AlphaGo's fast rollout policy p_pi (Silver et al. 2016) at small scale, a
linear softmax over a move's 3x3 shape and its relation to the opponent's last stone, compiled into the
playouts.

The policy plays point ``p`` among the light policy's candidates (legal, not filling one of the mover's
own one-point eyes; `rlgames.games.go.playout.is_playable`) with probability proportional to
``exp(shape[SHAPE_CLASS[block]] + sum of local[f] over the flags f of p)``, and passes when none is left:

* ``block`` is the 3x3 code of the 8 points around ``p`` seen by the mover (own, enemy, empty, off the
  board; `rlgames.games.go.playout.block_index`) and `SHAPE_CLASS` folds its 8 rotations and reflections
  into one class, so that a shape is learnt once whichever way it faces;
* the local flags (`local_points`) say how ``p`` answers the opponent's last stone: `RESPONSE`, one of
  the 8 points around it; `ESCAPE`, the liberty of a chain of the mover's next to it left in atari;
  `CAPTURE`, the liberty of the last stone's chain in atari.

The weights are fitted to the moves of strong searches (``python -m rlgames.train.rollout go``), and a
file of them (`RolloutWeights`, ``.npz``) plays as ``mcts(rollout=FILE.npz)``.

Speed. The compiled playout (`make_learned_playout`) keeps each empty point's shape weight,
``exp(shape[...])`` for either colour to move, and their sums on an array beside the playout board, and
refreshes only the points around a new stone and around the stones it captured (the board appends them to
its list of empty points); each point's 3x3 code is kept beside them too, a stone changing one cell of
each of its 8 neighbours' codes (`code_stone`), so that a refresh is one table lookup, not 8 reads of the
board. A move then costs the few local points and a walk over the empty points to the one drawn, instead
of a 3x3 lookup per empty point. `move_weights`
is the readable reference, every candidate's weight computed from scratch, and the tests hold the compiled
draw to its probabilities.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from rlgames.game import record_move
from rlgames.games.go.playout import (
    _COLOUR,
    _EMPTIES,
    _EMPTY_COUNT,
    _HEAD,
    _KO,
    _META,
    _WIDTH,
    BLACK,
    EMPTY,
    MAX_PADDED,
    NO_POINT,
    _ended,
    area_margin,
    block_index,
    is_playable,
    load,
    lone_liberty,
    new_board,
    play,
    playout_over,
    point_action,
    point_of,
)
from rlgames.games.go.rules import MAX_LENGTH, MOVES, PASSES, SIZE, deduction2
from rlgames.jit.cache import never_cache
from rlgames.jit.nrt import borrowed
from rlgames.jit.rng import uniform
from rlgames.jit.stack import stack_float64, stack_int64

RESPONSE, ESCAPE, CAPTURE = 1, 2, 4
"""The local flags, bits of a mask."""
LOCAL_FLAGS = (RESPONSE, ESCAPE, CAPTURE)
LOCAL_NAMES = ("response", "escape", "capture")
MAX_LOCAL = 16
"""More than the local points of any move: 8 around the last stone, 4 escapes, 1 capture."""
WEIGHTS_FORMAT = "rlgames-go-rollout-policy"


def _shape_classes() -> tuple[np.ndarray, int]:
    """int32[65536]: the class of each 3x3 code, equal for the codes of one shape's 8 rotations and
    reflections; and the number of classes."""
    codes = np.arange(4**8)
    cells = (codes[:, None] >> (2 * np.arange(8))) & 3  # the 8 cells, NW N NE W E SW S SE
    grid = np.zeros((len(codes), 9), dtype=np.int64)
    around = [0, 1, 2, 3, 5, 6, 7, 8]
    grid[:, around] = cells
    canonical = np.full(len(codes), np.iinfo(np.int64).max)
    positions = np.arange(9).reshape(3, 3)
    for k in range(4):
        for flip in (False, True):
            moved = np.rot90(positions, k)
            moved = np.fliplr(moved) if flip else moved
            order = moved.ravel()[around]
            code = (grid[:, order] << (2 * np.arange(8))).sum(axis=1)
            canonical = np.minimum(canonical, code)
    _, classes = np.unique(canonical, return_inverse=True)
    return classes.astype(np.int32), int(classes.max()) + 1


SHAPE_CLASS, NUM_SHAPES = _shape_classes()


@dataclass(frozen=True)
class RolloutWeights:
    """The weights of the learned rollout policy."""

    shape: np.ndarray
    """float64[NUM_SHAPES]: the log-weight of each 3x3 shape class."""
    local: np.ndarray
    """float64[3]: the log-weights of the local flags, in `LOCAL_FLAGS`' order."""

    def __post_init__(self) -> None:
        if self.shape.shape != (NUM_SHAPES,) or self.local.shape != (len(LOCAL_FLAGS),):
            raise ValueError(f"go rollout weights: {NUM_SHAPES} shape and {len(LOCAL_FLAGS)} local weights expected")

    def save(self, path: str | Path, **meta: str) -> None:
        """Writes the weights (``.npz``) with ``meta`` (strings: how they were trained)."""
        arrays: dict[str, Any] = {"format": WEIGHTS_FORMAT, "shape": self.shape, "local": self.local, **meta}
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> RolloutWeights:
        """Reads a file written by `save`; a missing or foreign file raises `ValueError` in one line."""
        try:
            with np.load(path) as data:
                if str(data.get("format", "")) != WEIGHTS_FORMAT:
                    raise ValueError(f"{path} is not a go rollout policy (no {WEIGHTS_FORMAT} format)")
                return cls(shape=data["shape"].astype(np.float64), local=data["local"].astype(np.float64))
        except (OSError, KeyError, ValueError) as error:
            raise ValueError(f"cannot read the go rollout policy {path}: {error}") from None


@njit(cache=True)
def local_points(b, colour: int, last: int, points, flags) -> int:
    """Writes the empty points that answer the opponent's last stone ``last`` (a padded point, or
    `NO_POINT`) into ``points`` with their flag masks in ``flags``, each point once; returns their number."""
    if last == NO_POINT:
        return 0
    w = b[_META, _WIDTH]
    n = 0
    for q in (last + w - 1, last + w, last + w + 1, last - 1, last + 1, last - w - 1, last - w, last - w + 1):
        if b[_COLOUR, q] == EMPTY:
            points[n], flags[n] = q, RESPONSE
            n += 1
    for q in (last + w, last + 1, last - 1, last - w):
        liberty = lone_liberty(b, b[_HEAD, q]) if b[_COLOUR, q] == colour else NO_POINT
        if liberty != NO_POINT:
            n = _add_flag(points, flags, n, liberty, ESCAPE)
    liberty = lone_liberty(b, b[_HEAD, last]) if b[_COLOUR, last] == 3 - colour else NO_POINT
    if liberty != NO_POINT:
        n = _add_flag(points, flags, n, liberty, CAPTURE)
    return n


@njit(cache=True, inline="always")
def _add_flag(points, flags, n: int, p: int, flag: int) -> int:
    for i in range(n):
        if points[i] == p:
            flags[i] |= flag
            return n
    points[n], flags[n] = p, flag
    return n + 1


@njit(cache=True, inline="always")
def _local_gamma(mask: int, local_gamma) -> float:
    gamma = 1.0
    for i in range(local_gamma.shape[0]):
        if mask >> i & 1:
            gamma *= local_gamma[i]
    return gamma


def mask_gammas(local_gamma: np.ndarray) -> np.ndarray:
    """float64[8]: the product of the local weights ``local_gamma`` (one per flag) of each flag mask, the
    table that `sample_move` reads a local point's weight from."""
    return np.array([_local_gamma(mask, local_gamma) for mask in range(1 << len(LOCAL_FLAGS))])


@njit(cache=True)
def candidate_features(b, colour: int, last: int, points, shapes, flags) -> int:
    """The reference: every candidate of the policy (empty and `is_playable`) with its shape class and its
    local flags, into ``points``, ``shapes`` and ``flags`` (each as long as the board's points); returns
    their number. Training reads these, and `move_weights` scores them."""
    local, masks = stack_int64(MAX_LOCAL), stack_int64(MAX_LOCAL)
    nl = local_points(b, colour, last, local, masks)
    n = 0
    for i in range(b[_META, _EMPTY_COUNT]):
        p = b[_EMPTIES, i]
        if not is_playable(b, p, colour):
            continue
        mask = 0
        for j in range(nl):
            if local[j] == p:
                mask = masks[j]
        points[n], shapes[n], flags[n] = p, SHAPE_CLASS[block_index(b, p, colour)], mask
        n += 1
    return n


@njit(cache=True)
def move_weights(b, colour: int, last: int, shape_gamma, local_gamma, points, weights) -> int:
    """The reference policy's unnormalised weights of every candidate, into ``points`` and ``weights``."""
    shapes, flags = np.empty(points.shape[0], dtype=np.int64), np.empty(points.shape[0], dtype=np.int64)
    n = candidate_features(b, colour, last, points, shapes, flags)
    for i in range(n):
        weights[i] = shape_gamma[shapes[i]] * _local_gamma(flags[i], local_gamma)
    return n


def _colours_swapped() -> np.ndarray:
    """int64[65536]: each 3x3 code with the mover's and the opponent's stones exchanged."""
    codes = np.arange(4**8)
    cells = (codes[:, None] >> (2 * np.arange(8))) & 3
    swapped = np.where(cells == 1, 2, np.where(cells == 2, 1, cells))
    return (swapped << (2 * np.arange(8))).sum(axis=1)


SWAPPED = _colours_swapped()
TOTAL = MAX_PADDED
"""The column of a gamma table (`new_gammas`) holding the sum of its row over the empty points."""


def code_gammas(shape_gamma: np.ndarray) -> np.ndarray:
    """float64[2, 65536]: the shape weight of each 3x3 code seen by black (``block_index(.., BLACK)``), for
    black to move (row 0) and for white to move (row 1), so that a point's two weights cost one code."""
    black = shape_gamma[SHAPE_CLASS]
    return np.stack([black, black[SWAPPED]])


def new_gammas() -> np.ndarray:
    """float64[2, MAX_PADDED + 1]: the shape weight of each padded point for black (row 0) and white (row
    1) to move, 0 where the point is not empty, and their sums at column `TOTAL`."""
    return np.zeros((2, MAX_PADDED + 1))


@njit(cache=True)
def code_all(b, codes) -> None:
    """The 3x3 code seen by black (`rlgames.games.go.playout.block_index`) of every point of the board,
    from scratch, into ``codes`` (int64 per padded point): `code_stone` keeps them from then on."""
    w = b[_META, _WIDTH]
    for row in range(1, w - 1):
        for p in range(row * w + 1, row * w + w - 1):
            codes[p] = block_index(b, p, BLACK)


@njit(cache=True, inline="always")
def code_stone(codes, w: int, p: int, change: int) -> None:
    """A stone came to ``p`` (``change`` its colour) or left it (minus its colour): each of the 8 points
    around it sees its cell toward ``p`` change by that much. A code's cell for a neighbour is the colour
    itself (black 1, white 2, empty 0), so the change is the colour shifted to the cell's place."""
    shift = 0
    for q in (p - w + 1, p - w, p - w - 1, p + 1, p - 1, p + w + 1, p + w, p + w - 1):  # p is q's NW, N, .. SE
        codes[q] += change << shift
        shift += 2


@njit(cache=True, inline="always")
def _refresh(gammas, codes, p: int, tables) -> None:
    """Sets the shape weights of empty point ``p`` from its code, keeping the sums."""
    code = codes[p]
    for row in range(2):
        weight = tables[row, code]
        gammas[row, TOTAL] += weight - gammas[row, p]
        gammas[row, p] = weight


@njit(cache=True, inline="always")
def _occupy(gammas, p: int) -> None:
    """Point ``p`` took a stone: its weights leave the sums."""
    for row in range(2):
        gammas[row, TOTAL] -= gammas[row, p]
        gammas[row, p] = 0.0


@njit(cache=True)
def refresh_all(b, gammas, codes, tables) -> None:
    """The codes of every point (`code_all`), the shape weights of every point (0 off the empty points) and
    their sums, from scratch."""
    code_all(b, codes)
    gammas[:] = 0.0
    for i in range(b[_META, _EMPTY_COUNT]):
        _refresh(gammas, codes, b[_EMPTIES, i], tables)


@njit(cache=True, inline="always")
def refresh_around(b, gammas, codes, p: int, tables) -> None:
    """The shape weights of the empty points around ``p`` (a stone came or went there, and `code_stone`
    changed their codes)."""
    w = b[_META, _WIDTH]
    for q in (p + w - 1, p + w, p + w + 1, p - 1, p + 1, p - w - 1, p - w, p - w + 1):
        if b[_COLOUR, q] == EMPTY:
            _refresh(gammas, codes, q, tables)


@njit(cache=True, inline="always")
def play_kept(b, gammas, codes, p: int, colour: int, tables) -> None:
    """Plays ``colour`` at ``p`` (`rlgames.games.go.playout.play`) and keeps the codes and shape weights of
    `refresh_all`: those of the points around the new stone and around each stone it captured."""
    empties, w = b[_META, _EMPTY_COUNT], b[_META, _WIDTH]
    play(b, p, colour)
    code_stone(codes, w, p, colour)
    _occupy(gammas, p)
    refresh_around(b, gammas, codes, p, tables)
    for i in range(empties - 1, b[_META, _EMPTY_COUNT]):  # captured stones, appended to the empties
        captured = b[_EMPTIES, i]
        code_stone(codes, w, captured, -(3 - colour))
        refresh_around(b, gammas, codes, captured, tables)
        _refresh(gammas, codes, captured, tables)


@njit(cache=True)
def sample_move(b, gammas, colour: int, last: int, rng_state, mask_gamma, marks, stamp: int) -> int:
    """A point drawn by the policy among the candidates, or `NO_POINT` (pass) when there is none.

    The weights: ``gammas[colour - 1]`` (`new_gammas`, kept by `refresh_around`) times, at the local
    points, the local flags' product ``mask_gamma[mask]`` (`mask_gammas`). A point drawn that the light
    policy may not play is set aside (its weight out of the total) and the draw repeats. ``marks`` (int64
    per padded point) holds ``stamp`` at the points set aside or local in this draw, so that the walk over
    the empty points skips them; ``stamp`` must be new at each call."""
    g = gammas[colour - 1]
    local, flags, weight = stack_int64(MAX_LOCAL), stack_int64(MAX_LOCAL), stack_float64(MAX_LOCAL)
    nl = local_points(b, colour, last, local, flags)
    local_total = 0.0
    for j in range(nl):
        marks[local[j]] = stamp
        weight[j] = g[local[j]] * mask_gamma[flags[j]]
        local_total += weight[j]
    count = b[_META, _EMPTY_COUNT]
    rest = g[TOTAL]
    for j in range(nl):
        rest -= g[local[j]]
    while local_total + rest > 1e-12:
        u = uniform(rng_state) * (local_total + rest)
        if u < local_total:
            j = 0
            for k in range(nl):  # the last point of positive weight where rounding runs past the end
                if weight[k] > 0.0:
                    j = k
                    u -= weight[k]
                    if u < 0.0:
                        break
            if is_playable(b, local[j], colour):
                return local[j]
            weight[j] = 0.0
            local_total = 0.0  # summed again: a difference could leave a rounding residue behind
            for k in range(nl):
                local_total += weight[k]
            continue
        u -= local_total
        chosen = NO_POINT
        for i in range(count):
            p = b[_EMPTIES, i]
            if marks[p] != stamp:
                chosen = p
                u -= g[p]
                if u < 0.0:
                    break
        if chosen == NO_POINT:
            break
        if is_playable(b, chosen, colour):
            return chosen
        marks[chosen] = stamp
        rest -= g[chosen]
        if rest < 1e-9:  # summed again where rounding may have left a residue
            rest = 0.0
            for i in range(count):
                p = b[_EMPTIES, i]
                if marks[p] != stamp:
                    rest += g[p]
    return NO_POINT


@njit(cache=True)
def run_learned_playout(b, gammas, codes, marks, s, rng_state, tables, mask_gamma, moves=None) -> tuple[int, int]:
    """One playout of the learned policy from compact state ``s`` (not terminal), as
    `rlgames.games.go.playout.run_playout`: twice black's final score and the moves played. ``tables`` are
    the policy's `code_gammas` and ``mask_gamma`` its `mask_gammas`, ``gammas`` a `new_gammas`, and ``codes``
    and ``marks`` int64 per padded point."""
    load(b, s)
    b, gammas, codes, marks = borrowed(b), borrowed(gammas), borrowed(codes), borrowed(marks)  # playout.py's docstring
    refresh_all(b, gammas, codes, tables)
    colour = BLACK if s[0] == 0 else 3 - BLACK
    total, passes, played = s[MOVES], s[PASSES], 0
    limit, n, w = s[MAX_LENGTH], s[SIZE], b[_META, _WIDTH]
    marks[:] = -1
    last = NO_POINT
    while True:
        chosen = sample_move(b, gammas, colour, last, rng_state, mask_gamma, marks, played)
        if chosen == NO_POINT:
            passes += 1
            b[_META, _KO] = NO_POINT
        else:
            passes = 0
            play_kept(b, gammas, codes, chosen, colour, tables)
        record_move(moves, played, colour - 1, point_action(chosen, n, w))
        last = chosen
        total += 1
        played += 1
        if playout_over(total, passes, limit):
            break
        colour = 3 - colour
    return 2 * area_margin(b, s[SIZE]) - deduction2(s), played


@functools.cache
def _learned_playout(path: str):
    weights = RolloutWeights.load(path)
    tables, mask_gamma = code_gammas(np.exp(weights.shape)), mask_gammas(np.exp(weights.local))

    @njit
    def learned_rollout(s, rng_state, actions, probs, moves=None):
        """The ``playout`` kernel of the learned policy (`rlgames.game.GameKernels`)."""
        b = new_board()
        gammas = np.zeros((2, MAX_PADDED + 1))
        codes, marks = np.empty(MAX_PADDED, dtype=np.int64), np.empty(MAX_PADDED, dtype=np.int64)
        score2, plies = run_learned_playout(b, gammas, codes, marks, s, rng_state, tables, mask_gamma, moves)
        return _ended(s, score2), plies

    return never_cache(learned_rollout)  # its weights are constants of its code: numba caches no such code


def make_learned_playout(path: str | Path):
    """The compiled playout of the weights in ``path`` (`RolloutWeights`), a ``playout`` kernel
    ``(s, rng_state, actions, probs, moves=None) -> (s_terminal, plies)``; one per file and process, compiled
    at its first call in each process (a search around it too: about 10 s), never cached on disk."""
    return _learned_playout(str(Path(path).resolve()))


__all__ = [
    "CAPTURE",
    "POLICY",
    "ESCAPE",
    "LOCAL_FLAGS",
    "NUM_SHAPES",
    "RESPONSE",
    "SHAPE_CLASS",
    "RolloutWeights",
    "candidate_features",
    "make_learned_playout",
    "move_weights",
    "sample_move",
]


class GoRolloutPolicy:
    """Go's learnable rollout policy as `rlgames.Game.rollout_policy` names it: what the trainer
    (``python -m rlgames.train.rollout``) and ``mcts(rollout=FILE.npz)`` use."""

    num_shapes = NUM_SHAPES
    local_names = LOCAL_NAMES

    def candidates(self, state, last_action: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The policy's candidate moves at ``state`` (a player to move), the opponent's last move being
        ``last_action`` (None or a pass: none): int64 arrays of their actions, shape classes and local
        flag masks (bit ``i`` the flag `LOCAL_FLAGS[i]`)."""
        n = state.game.board_size
        b = new_board()
        load(b, state.compact)
        w = n + 2
        last = NO_POINT if last_action is None or last_action >= n * n else point_of(last_action, n)
        points, shapes, flags = (np.empty(n * n, dtype=np.int64) for _ in range(3))
        count = candidate_features(b, BLACK if state.current_player() == 0 else 3 - BLACK, last, points, shapes, flags)
        actions = (points[:count] // w - 1) * n + points[:count] % w - 1
        return actions, shapes[:count], flags[:count]

    def save(self, path: str | Path, shape: np.ndarray, local: np.ndarray, **meta: str) -> None:
        """Writes fitted weights (`RolloutWeights`)."""
        RolloutWeights(shape=np.asarray(shape, dtype=np.float64), local=np.asarray(local, dtype=np.float64)).save(
            path, **meta
        )

    def playout(self, path: str | Path):
        """The compiled playout of a weights file (`make_learned_playout`)."""
        return make_learned_playout(path)


POLICY = GoRolloutPolicy()
