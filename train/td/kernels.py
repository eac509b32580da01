"""The compiled half of `rlgames.train.td`: the NNUE value path with its gradient, TD(lambda) self-play and the
evaluation matches, all in numba over a game's kernels.

The network is `rlgames.models.networks.NNUE`'s value path: x = the observation of ``s`` from ``observer(s)``
(flattened, F features) -> clip(x @ w1 + b1, 0, 1) -> clip(. @ w2 + b2, 0, 1) -> its head, a value in
[-1, 1] for ``observer(s)``, as `rlgames.evaluators.nnue` computes it; only the non-zero features cost a
row of w1. The head is one tanh output, the value, or, for a game scored in whole points up to R
(backgammon at full scoring), `rlgames.evaluators.outcomes`' K = 2R - 1 sigmoid outcome probabilities,
whose expected return is the value; each output learns by TD(lambda) with a trace of its own, as
TD-Gammon's four did. Its parameters are one flat vector ``params`` (w1[F, A], b1[A], w2[A, H], b2[H],
w3[H, K], b3[K], in that order: `layout`) with ``dims = (F, A, H, R)`` (R = 0: the tanh head). The array
functions are generic over the dtype (float32 in training, float64 in the gradient check).

A *turn* of player p is every action p takes before the game reaches a state that is terminal, a chance
node or the other player's decision: its *afterstate* (backgammon's doubles are two decisions of one
turn; pig's roll ends the turn at a chance node). `make_td_ops` compiles, per game:

* ``train(params, dims, rng, games, alpha, lam, epsilon, decision_weight, stats)``: self-play
  games, each player taking the afterstate of best value for it (1-ply greedy, TD-Gammon), a random one
  with probability ``epsilon``; the weights learn by TD(lambda) along the afterstates of each game and
  by a supervised step at every decision (`rlgames.train.td` explains both);
* ``match(params_a, params_b, dims, kind_b, pair_rngs, opening_turns, returns)``: evaluation games of
  1-ply greedy players, ``params_a`` against ``params_b``, the game's hand-crafted kernel or random turns;
* ``values(params, dims, states)``: the network's value of compact states (rows), and
  ``afterstates(s)``: the distinct afterstates of the turn of the side to move at ``s`` (rows), for checks.

Nothing is random but the ``rng`` states passed in (`rlgames.jit.rng`), so a run replays from its seed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import CHANCE, TERMINAL, GameKernels
from rlgames.jit.cache import cache_closure
from rlgames.jit.rng import below, sample_index, uniform
from rlgames.jit.unsafe import to_fixed_tuple
from rlgames.evaluators.outcomes import flip_outcomes, outcome_value, terminal_outcomes

NET, HEURISTIC, RANDOM = 0, 1, 2
"""``kind_b`` of a match: the second player is a network, the game's hand-crafted kernel, or random."""
STATS = ("games", "decisions", "td_steps", "abs_delta", "first_player_return", "afterstates")
"""What ``train`` adds into its float64 ``stats`` array, in this order."""
TABLE_BITS = 15
"""The per-turn table that finds afterstates reached twice (backgammon's moves in either order) holds
2**TABLE_BITS keys; past half full, further afterstates are kept without the check."""


# --- the network -----------------------------------------------------------------------------------
# ``params`` holds the six arrays back to back (`layout`), and ``grad`` / ``trace`` have its layout, so
# that a step over the dense part is one loop and every call passes one array, not six. ``dims = (F, A,
# H, R)``: R = 0, one tanh output, the value; R >= 1, the `rlgames.evaluators.outcomes` head of returns
# of up to R points, K = 2R - 1 sigmoid outputs.
@njit(cache=True)
def outputs(dims) -> int:
    """K: the network's outputs (1 for the tanh head)."""
    return 2 * dims[3] - 1 if dims[3] > 0 else 1


@njit(cache=True)
def layout(dims):
    """The offsets of ``(w1, b1, w2, b2, w3, b3)`` in a flat parameter vector of ``dims``, and its size;
    w3 is [H, K] and b3 [K]."""
    features, width, hidden = dims[0], dims[1], dims[2]
    b1 = features * width
    w2 = b1 + width
    b2 = w2 + width * hidden
    w3 = b2 + hidden
    b3 = w3 + hidden * outputs(dims)
    return b1, w2, b2, w3, b3, b3 + outputs(dims)


@njit(cache=True)
def head_value(o, dims) -> float:
    """The value in [-1, 1] of the outputs ``o[K]``: the tanh output, or the outcomes' expected return."""
    return outcome_value(o, dims[3]) if dims[3] > 0 else o[0]


@njit(cache=True)
def sparse_features(x, idx, xv) -> int:
    """The non-zero entries of ``x[F]``: their indices into ``idx[:n]``, values into ``xv[:n]``; ``n``."""
    n = 0
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            idx[n] = i
            xv[n] = x[i]
            n += 1
    return n


@njit(cache=True)
def forward(params, dims, idx, xv, nnz, layers) -> float:
    """The value (`head_value`) of the sparse input ``(idx, xv)[:nnz]``. Keeps, in ``layers[9, max(A, H,
    K)]``, the pre-activations and activations for `add_gradient` (rows z1, a1, (d1), z2, a2, (d2)) and
    the outputs (row 6); rows 7 and 8 are the gradient's and `td_update`'s scratch."""
    width, hidden, k_out = dims[1], dims[2], outputs(dims)
    b1, w2, b2, w3, b3, _ = layout(dims)
    z1, a1, z2, a2, out = layers[0], layers[1], layers[3], layers[4], layers[6]
    for k in range(width):
        z1[k] = params[b1 + k]
    for i in range(nnz):
        row, value = idx[i] * width, xv[i]
        for k in range(width):
            z1[k] += value * params[row + k]
    for j in range(hidden):
        z2[j] = params[b2 + j]
    for k in range(width):
        a1[k] = min(1.0, max(0.0, z1[k]))
        if a1[k] != 0.0:
            row = w2 + k * hidden
            for j in range(hidden):
                z2[j] += a1[k] * params[row + j]
    for m in range(k_out):
        out[m] = params[b3 + m]
    for j in range(hidden):
        a2[j] = min(1.0, max(0.0, z2[j]))
        for m in range(k_out):
            out[m] += a2[j] * params[w3 + j * k_out + m]
    for m in range(k_out):
        out[m] = 1.0 / (1.0 + math.exp(-out[m])) if dims[3] > 0 else math.tanh(out[m])
    return head_value(out, dims)


@njit(cache=True)
def add_gradient(params, grad, dims, coeffs, idx, xv, nnz, layers) -> None:
    """``grad += sum_m coeffs[m] * d(output m)/dparams`` at the input of the last `forward`; ``grad`` may
    be ``params`` itself (every derivative is taken before any write). The clipped ReLU passes the
    gradient where ``0 <= z <= 1``, as ``torch.clamp`` does; of w1, only the rows of the non-zero inputs
    change."""
    width, hidden, k_out = dims[1], dims[2], outputs(dims)
    b1, w2, b2, w3, b3, _ = layout(dims)
    z1, a1, d1, z2, a2, d2, out, dz3 = (
        layers[0],
        layers[1],
        layers[2],
        layers[3],
        layers[4],
        layers[5],
        layers[6],
        layers[7],
    )
    for m in range(k_out):  # the output's derivative: sigmoid o (1 - o), tanh 1 - o^2
        slope = out[m] * (1.0 - out[m]) if dims[3] > 0 else 1.0 - out[m] * out[m]
        dz3[m] = coeffs[m] * slope
    for j in range(hidden):
        total = 0.0
        if 0.0 <= z2[j] <= 1.0:
            for m in range(k_out):
                total += dz3[m] * params[w3 + j * k_out + m]
        d2[j] = total
    for k in range(width):
        total = 0.0
        if 0.0 <= z1[k] <= 1.0:
            row = w2 + k * hidden
            for j in range(hidden):
                total += params[row + j] * d2[j]
        d1[k] = total
    for m in range(k_out):
        grad[b3 + m] += dz3[m]
    for j in range(hidden):
        for m in range(k_out):
            grad[w3 + j * k_out + m] += dz3[m] * a2[j]
        grad[b2 + j] += d2[j]
    for k in range(width):
        grad[b1 + k] += d1[k]
        if a1[k] != 0.0:
            row = w2 + k * hidden
            for j in range(hidden):
                grad[row + j] += a1[k] * d2[j]
    for i in range(nnz):
        row, x = idx[i] * width, xv[i]
        for k in range(width):
            grad[row + k] += x * d1[k]


@njit(cache=True)
def new_scratch(params, dims):
    """The scratch arrays of the network: ``(x[F] float32, idx[F], xv[F], layers[9, max(A, H, K)])``
    (observations are float32; the others take the parameters' dtype)."""
    features = dims[0]
    return (
        np.zeros(features, dtype=np.float32),
        np.empty(features, dtype=np.int64),
        np.empty(features, dtype=params.dtype),
        np.empty((9, max(dims[1], dims[2], outputs(dims))), dtype=params.dtype),
    )


@njit(cache=True)
def for_player0(o, flip, dims, out) -> None:
    """``out[K]`` = the outputs ``o`` of a state's observer read for player 0: ``o`` itself, or with
    ``flip`` (the observer is player 1) its negation (tanh) or its `flip_outcomes`."""
    if not flip:
        for m in range(outputs(dims)):
            out[m] = o[m]
    elif dims[3] > 0:
        flip_outcomes(o, dims[3], out)
    else:
        out[0] = -o[0]


@njit(cache=True)
def observer_output(m, flip, dims):
    """``(i, sign)``: player 0's output ``m`` is ``sign`` times (plus a constant) the observer's output
    ``i``, so that its gradient is ``sign`` times output ``i``'s (see `for_player0`)."""
    if not flip:
        return m, 1.0
    if m == 0:
        return 0, -1.0  # the negated value, or P(win) = 1 - the other player's P(win)
    points = dims[3]
    return (m + points - 1 if m < points else m - points + 1), 1.0


@njit(cache=True)
def td_update(params, trace, dims, touched, rows, n_rows, flip, delta, alpha, lam, nnz, sc) -> int:
    """One TD(lambda) step at the input of the last `forward` (``nnz`` features in ``sc``), output by
    output in player 0's terms (`for_player0`, ``flip``: the afterstate's observer is player 1), so
    that one trace per output serves the afterstates of both players: ``trace[m] = lam * trace[m] +
    d(output m)/dparams`` and ``params += alpha * sum_m delta[m] * trace[m]``. Only the rows of w1 that
    some input of the game touched (``rows[:n_rows]``, flagged in ``touched[F]``) have a non-zero trace:
    they alone, and the dense rest of the vector, are decayed and applied. Returns the new ``n_rows``."""
    _, idx, xv, layers = sc
    width, k_out, coeffs = dims[1], outputs(dims), sc[3][8]
    dense, end = layout(dims)[0], layout(dims)[5]
    for i in range(nnz):
        if not touched[idx[i]]:
            touched[idx[i]] = True
            rows[n_rows] = idx[i]
            n_rows += 1
    for m in range(k_out):
        tm = trace[m]
        for r in range(n_rows):
            for k in range(rows[r] * width, (rows[r] + 1) * width):
                tm[k] *= lam
        for k in range(dense, end):
            tm[k] *= lam
        coeffs[:k_out] = 0.0
        i, sign = observer_output(m, flip, dims)
        coeffs[i] = sign
        add_gradient(params, tm, dims, coeffs, idx, xv, nnz, layers)
    for m in range(k_out):
        tm, step = trace[m], alpha * delta[m]
        for r in range(n_rows):
            for k in range(rows[r] * width, (rows[r] + 1) * width):
                params[k] += step * tm[k]
        for k in range(dense, end):
            params[k] += step * tm[k]
    return n_rows


@njit(cache=True)
def reset_trace(trace, dims, touched, rows, n_rows) -> None:
    """Zeroes the traces (of w1, the touched rows only) and the touched flags, for a new game."""
    width = dims[1]
    for r in range(n_rows):
        touched[rows[r]] = False
        for m in range(trace.shape[0]):
            for k in range(rows[r] * width, (rows[r] + 1) * width):
                trace[m, k] = 0.0
    for m in range(trace.shape[0]):
        for k in range(layout(dims)[0], layout(dims)[5]):
            trace[m, k] = 0.0


@njit(cache=True)
def no_heuristic(s) -> float:
    """The ``heuristic`` of a game without a hand-crafted evaluator (``kind_b = HEURISTIC`` unused)."""
    return 0.0


# --- the game loops ----------------------------------------------------------------------------------
class TDOps(NamedTuple):
    """The compiled loops of one game (see the module docstring)."""

    train: Callable[..., None]
    match: Callable[..., None]
    values: Callable[..., np.ndarray]
    afterstates: Callable[..., np.ndarray]


@functools.cache
def make_td_ops(
    kernels: GameKernels,
    observation_shape: tuple[int, ...],
    initial: tuple,
    heuristic: Callable[..., float],
    encode: Callable[..., None] | None = None,
) -> TDOps:
    """The compiled `TDOps` of the game with these kernels, observation shape and initial compact
    state; ``heuristic`` is the njit ``(s) -> value`` for ``observer(s)`` that ``kind_b = HEURISTIC``
    plays with; ``encode``, where given, writes the network's inputs (of ``observation_shape``) in place
    of the game's observation (an `rlgames.game.Encoding`'s kernel). Cached: each game compiles once per
    process (numba does not cache closures on disk)."""
    legal_actions, apply, chance_outcomes = kernels.legal_actions, kernels.apply, kernels.chance_outcomes
    observation, observer, hash_key = encode or kernels.observation, kernels.observer, kernels.hash_key
    max_actions, max_return, size = kernels.max_actions, float(kernels.max_return), len(initial)
    mask = (1 << TABLE_BITS) - 1

    @njit
    def observe(s, x) -> None:
        """x[F] = the network's inputs of ``s`` from ``observer(s)``."""
        x[:] = 0.0
        observation(s, observer(s), x.reshape(observation_shape))

    @njit
    def net_value(s, params, dims, sc):
        """``(value, nnz)``: the network's value of the non-terminal ``s`` for ``observer(s)``, and
        the number of non-zero features left in ``sc`` for a gradient."""
        x, idx, xv, layers = sc
        observe(s, x)
        nnz = sparse_features(x, idx, xv)
        return forward(params, dims, idx, xv, nnz, layers), nnz

    @njit
    def player0_outputs(s, params, dims, sc, out) -> float:
        """``out[K]`` = the outputs of ``s`` for player 0 (`for_player0`): the network's, or at a
        terminal state the return (tanh: scaled into [-1, 1]; outcomes: `terminal_outcomes`); returns
        their value for player 0."""
        if s[0] == TERMINAL:
            if dims[3] > 0:
                terminal_outcomes(s[1], dims[3], out)
            else:
                out[0] = s[1] / max_return
        else:
            net_value(s, params, dims, sc)
            for_player0(sc[3][6], observer(s) == 1, dims, out)
        return head_value(out, dims)

    @njit
    def push(rows, n, s):
        """``rows`` (int64[C, size], grown when full) with ``s`` written into row ``n``."""
        if n == rows.shape[0]:
            wider = np.empty((2 * n, size), dtype=np.int64)
            for i in range(n):  # a loop: a slice copy compiles numba's shape-error formatting
                for k in range(size):
                    wider[i, k] = rows[i, k]
            rows = wider
        for k in range(size):
            rows[n, k] = s[k]
        return rows

    @njit
    def first_visit(s, table, stamp, seen) -> bool:
        """Whether ``s`` is new this turn (``table[:, 1] == stamp`` marks this turn's keys); with more
        than half the table used (``seen[0]``), every state counts as new."""
        if 2 * seen[0] > mask:
            return True
        key = hash_key(s)
        i = (key ^ (key >> 23) ^ (key >> 41)) & mask
        while table[i, 1] == stamp:
            if table[i, 0] == key:
                return False
            i = (i + 1) & mask
        table[i, 0], table[i, 1] = key, stamp
        seen[0] += 1
        return True

    @njit
    def afterstates(s, p, leaves, stack, table, stamp, actions):
        """``(n, leaves, stack)``: the distinct afterstates of player ``p``'s turn from decision ``s``
        in ``leaves[:n]`` (``leaves`` and the scratch ``stack`` are returned grown when they were full)."""
        seen = np.zeros(1, dtype=np.int64)
        stack = push(stack, 0, s)
        depth, n = 1, 0
        while depth > 0:
            depth -= 1
            state = to_fixed_tuple(stack[depth], size)
            count = legal_actions(state, actions)
            for a in range(count):
                child = apply(state, actions[a])
                if not first_visit(child, table, stamp, seen):
                    continue
                if child[0] == p:
                    stack = push(stack, depth, child)
                    depth += 1
                else:
                    leaves = push(leaves, n, child)
                    n += 1
        return n, leaves, stack

    @njit
    def turn_buffers():
        """``(leaves, stack, table, actions, probs)``: the scratch of `afterstates` and `roll`."""
        return (
            np.empty((64, size), dtype=np.int64),
            np.empty((8, size), dtype=np.int64),
            np.zeros((mask + 1, 2), dtype=np.int64),
            np.empty(max_actions, dtype=np.int64),
            np.empty(max_actions, dtype=np.float64),
        )

    @njit
    def turn_afterstates(s) -> np.ndarray:
        leaves, stack, table, actions, _ = turn_buffers()
        n, leaves, stack = afterstates(s, s[0], leaves, stack, table, 1, actions)
        return leaves[:n].copy()

    @njit
    def score_heuristic(s, p) -> float:
        if s[0] == TERMINAL:
            return s[1] / max_return if p == 0 else -s[1] / max_return
        return heuristic(s) if observer(s) == p else -heuristic(s)

    @njit
    def greedy_net(leaves, n, p, params, dims, sc, best0):
        """The first of ``leaves[:n]`` of best value for ``p``; its outputs for player 0 in ``best0``."""
        best, best_score, here = 0, -np.inf, sc[3][8]
        for i in range(n):
            value = player0_outputs(to_fixed_tuple(leaves[i], size), params, dims, sc, here)
            score = value if p == 0 else -value
            if score > best_score:
                best, best_score = i, score
                best0[: outputs(dims)] = here[: outputs(dims)]
        return best

    @njit
    def greedy_heuristic(leaves, n, p) -> int:
        best, best_score = 0, -np.inf
        for i in range(n):
            score = score_heuristic(to_fixed_tuple(leaves[i], size), p)
            if score > best_score:
                best, best_score = i, score
        return best

    @njit
    def roll(s, rng, actions, probs):
        """The chance node ``s`` after an outcome drawn by its probability."""
        count = chance_outcomes(s, actions, probs)
        return apply(s, actions[sample_index(rng, probs, count)])

    @njit
    def learn_at(s, params, trace, dims, touched, rows, n_rows, target0, alpha, lam, sc, delta):
        """The TD(lambda) step pulling the afterstate ``s``'s outputs toward ``target0`` (player 0's):
        ``(|change of value|, n_rows)``."""
        flip = observer(s) == 1
        nnz = net_value(s, params, dims, sc)[1]
        for_player0(sc[3][6], flip, dims, delta)
        value0 = head_value(delta, dims)
        for m in range(outputs(dims)):
            delta[m] = target0[m] - delta[m]
        n_rows = td_update(params, trace, dims, touched, rows, n_rows, flip, delta, alpha, lam, nnz, sc)
        return abs(head_value(target0, dims) - value0), n_rows

    @njit
    def supervise(s, params, dims, target0, rate, sc, scratch) -> None:
        """A gradient step of ``rate`` pulling the decision ``s``'s outputs toward ``target0`` (player
        0's)."""
        coeffs, flip = sc[3][8], observer(s) == 1
        nnz = net_value(s, params, dims, sc)[1]
        for_player0(sc[3][6], flip, dims, scratch)
        coeffs[: outputs(dims)] = 0.0
        for m in range(outputs(dims)):
            i, sign = observer_output(m, flip, dims)
            coeffs[i] += sign * rate * (target0[m] - scratch[m])
        add_gradient(params, params, dims, coeffs, sc[1], sc[2], nnz, sc[3])

    @njit
    def train(params, dims, rng, games, alpha, lam, epsilon, decision_weight, stats) -> None:
        sc = new_scratch(params, dims)
        k_out = outputs(dims)
        trace = np.zeros((k_out, params.shape[0]), dtype=params.dtype)
        best0, played0, scratch = np.empty(k_out), np.empty(k_out), np.empty(k_out)
        features = dims[0]
        touched = np.zeros(features, dtype=np.bool_)
        rows = np.empty(features, dtype=np.int64)
        n_rows = 0
        leaves, stack, table, actions, probs = turn_buffers()
        stamp = 0
        for _ in range(games):
            reset_trace(trace, dims, touched, rows, n_rows)
            n_rows = 0
            s, previous, pending = initial, initial, False  # pending: ``previous`` awaits its TD target
            while s[0] != TERMINAL:
                if s[0] == CHANCE:
                    s = roll(s, rng, actions, probs)
                    continue
                p = s[0]
                stamp += 1
                n, leaves, stack = afterstates(s, p, leaves, stack, table, stamp, actions)
                played = greedy_net(leaves, n, p, params, dims, sc, best0)
                played0[:] = best0
                if epsilon > 0.0 and uniform(rng) < epsilon:
                    played = np.int64(below(rng, n))
                    player0_outputs(to_fixed_tuple(leaves[played], size), params, dims, sc, played0)
                after = to_fixed_tuple(leaves[played], size)
                if pending:  # TD(lambda) follows the moves played, random ones included
                    change, n_rows = learn_at(
                        previous, params, trace, dims, touched, rows, n_rows, played0, alpha, lam, sc, scratch
                    )
                    stats[2] += 1
                    stats[3] += change
                if decision_weight > 0.0:  # a decision is worth its best afterstate
                    supervise(s, params, dims, best0, alpha * decision_weight, sc, scratch)
                stats[1] += 1
                stats[5] += n
                previous, pending, s = after, after[0] != TERMINAL, after
            if pending:  # the game ended at a chance outcome
                player0_outputs(s, params, dims, sc, played0)
                change, n_rows = learn_at(
                    previous, params, trace, dims, touched, rows, n_rows, played0, alpha, lam, sc, scratch
                )
                stats[2] += 1
                stats[3] += change
            stats[0] += 1
            stats[4] += s[1] / max_return

    @njit
    def match(params_a, params_b, dims, kind_b, pair_rngs, opening_turns, returns) -> None:
        sc = new_scratch(params_a, dims)
        best0 = np.empty(outputs(dims))
        leaves, stack, table, actions, probs = turn_buffers()
        stamp = 0
        for g in range(returns.shape[0]):
            rng = pair_rngs[g // 2].copy()  # both colours of a pair see the same dice and openings
            seat_a, s, turns = g % 2, initial, 0
            while s[0] != TERMINAL:
                if s[0] == CHANCE:
                    s = roll(s, rng, actions, probs)
                    continue
                p = s[0]
                stamp += 1
                n, leaves, stack = afterstates(s, p, leaves, stack, table, stamp, actions)
                if turns < opening_turns or (p != seat_a and kind_b == RANDOM):
                    best = np.int64(below(rng, n))
                elif p == seat_a:
                    best = greedy_net(leaves, n, p, params_a, dims, sc, best0)
                elif kind_b == NET:
                    best = greedy_net(leaves, n, p, params_b, dims, sc, best0)
                else:
                    best = greedy_heuristic(leaves, n, p)
                s = to_fixed_tuple(leaves[best], size)
                turns += 1
            returns[g] = s[1] if seat_a == 0 else -s[1]

    @njit
    def values(params, dims, states) -> np.ndarray:
        sc = new_scratch(params, dims)
        out = np.empty(states.shape[0])
        for i in range(states.shape[0]):
            out[i] = net_value(to_fixed_tuple(states[i], size), params, dims, sc)[0]
        return out

    return TDOps(*map(cache_closure, (train, match, values, turn_afterstates)))
