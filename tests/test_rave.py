"""RAVE (all moves as first) in the generic MCTS: playouts record their moves, the AMAF statistics count
exactly the moves each node's mover played below it, and searches with them play and find wins."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.game import TERMINAL
from rlgames.jit.rng import new_rng_state
from rlgames.playout import make_buffered_playout
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.ops import make_tree_ops
from rlgames.search.mcts.puct import MCTS
from rlgames.search.mcts.selection import rave_beta
from rlgames.solvers import solve
from rlgames.search.mcts.tree import (
    ACTION,
    AMAF_VALUE,
    AMAF_VISITS,
    COUNT,
    FIRST,
    PARENT,
    POV,
    VISITS,
)

TTT = rlgames.load_game("tic_tac_toe")


def replay(start, moves):
    """The state a recorded playout reaches from ``start`` and the moves replayed, each checked legal and
    by its player; stops early where the game ends (go's superko, which playouts leave out) and at the
    first chance outcome (its outcome is not recorded)."""
    state, played = start, 0
    for code in moves:
        if state.is_terminal():
            break
        if code < 0:
            assert state.is_chance_node()
            break
        action, player = code >> 1, code & 1
        assert state.current_player() == player and action in state.legal_actions()
        state, played = state.apply(action), played + 1
    return state, played


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "checkers"])
def test_a_random_playout_records_the_moves_it_played(name):
    game = rlgames.load_game(name)
    playout = make_buffered_playout(game.kernels)
    actions = np.empty(game.kernels.max_actions, dtype=np.int64)
    probs = np.empty(game.kernels.max_actions, dtype=np.float64)
    start = game.new_initial_state()
    for seed in range(5):
        moves = np.full(1000, -7, dtype=np.int64)
        end, plies = playout(start.compact, new_rng_state(seed), actions, probs, moves)
        assert end[0] == TERMINAL and (moves[plies:] == -7).all()
        final, played = replay(start, moves[:plies])
        assert final.is_terminal() and played == plies and final.returns()[0] == end[1]
        short = np.zeros(3, dtype=np.int64)  # a shorter buffer keeps the first moves, the same playout
        again, _ = playout(start.compact, new_rng_state(seed), actions, probs, short)
        assert again == end and (short == moves[:3]).all()


def test_a_chance_outcome_is_recorded_as_minus_one():
    game = rlgames.load_game("pig", winscore=10)
    playout = make_buffered_playout(game.kernels)
    moves = np.zeros(500, dtype=np.int64)
    _, plies = playout(game.new_initial_state().compact, new_rng_state(0), np.empty(8, np.int64), np.empty(8), moves)
    assert (moves[:plies] == -1).sum() > 0 and set(moves[:plies] & 1) <= {0, 1}
    assert replay(game.new_initial_state(), moves[:plies])[0].is_chance_node()


@pytest.mark.parametrize("rollout", ["light", "patterns"])
def test_go_playouts_record_their_moves(rollout):
    """Go's playouts play OpenSpiel's moves but for superko: replayed through the rules, every recorded
    move is legal for its player, and a replay that no superko cut short ends with the playout's result."""
    game = rlgames.load_game("go", board_size=9)
    playout = game.kernels.playout if rollout == "light" else game.locate(game.playouts[rollout])
    start = game.new_initial_state().apply(40)
    completed = 0
    for seed in range(10):
        moves = np.zeros(400, dtype=np.int64)
        end, plies = playout(start.compact, new_rng_state(seed), np.empty(1), np.empty(1), moves)
        assert 0 < plies <= 400
        final, played = replay(start, moves[:plies])
        if final.is_terminal() and played == plies:
            completed += 1
            assert final.returns()[0] == end[1]
    assert completed >= 5


def amaf_reference(tree, leaf, moves):
    """The AMAF visits each node of tree 0 gains from a simulation ending at ``leaf`` whose playout
    played ``moves`` (recorded codes): for each expanded decision node on the path, the children whose
    action its mover played at it or below it."""
    nodes, states = tree.nodes[0], tree.states[0]
    path = [leaf]
    while path[-1] != 0:
        path.append(int(nodes[path[-1], PARENT]))
    path.reverse()
    played = [(code & 1, code >> 1) for code in moves if code >= 0]
    gains = {}
    for depth, node in enumerate(path):
        mover = int(states[node, 0])
        if mover < 0 or nodes[node, FIRST] < 0:
            continue
        below = {(int(states[p, 0]), int(nodes[c, ACTION])) for p, c in zip(path[depth:], path[depth + 1 :])}
        below |= set(played)
        first = int(nodes[node, FIRST])
        for child in range(first, first + int(nodes[node, COUNT])):
            if (mover, int(nodes[child, ACTION])) in below:
                gains[child] = 1
    return gains


def test_amaf_backup_counts_the_moves_each_mover_played_below_each_node():
    mcts = MCTS(MCTSConfig(simulations=400, rave=True, solver=False), seed=1)
    mcts.search(TTT.new_initial_state())
    tree = mcts._trees._tree
    ops = make_tree_ops(TTT.kernels, tree.states.shape[2])
    deep = [i for i in range(1, int(tree.meta[0, 0])) if tree.nodes[0, i, FIRST] >= 0 and tree.states[0, i, 0] >= 0]
    leaf = max(deep, key=lambda i: (tree.nodes[0, i, PARENT] > 0, i))  # an expanded node two plies down at least
    state = TTT.new_initial_state()
    for action in reversed([int(tree.nodes[0, n, ACTION]) for n in path_to(tree, leaf)]):
        state = state.apply(action)
    playout = []  # a legal continuation from the leaf, recorded as a playout records it
    while not state.is_terminal():
        action = state.legal_actions()[-1]
        playout.append(2 * action + state.current_player())
        state = state.apply(action)
    tree.moves[: len(playout)] = playout
    before_visits, before_values = tree.nodes[0, :, AMAF_VISITS].copy(), tree.stats[0, :, AMAF_VALUE].copy()
    ops.amaf_backup(tree, 0, leaf, 0.5, len(playout))
    gains = amaf_reference(tree, leaf, playout)
    assert gains and len(gains) > len(playout)  # the path's nodes gain too, not only the leaf's children
    changed = np.flatnonzero(tree.nodes[0, :, AMAF_VISITS] != before_visits)
    assert sorted(changed) == sorted(gains)
    for child in gains:
        sign = 1.0 if tree.nodes[0, child, POV] == 0 else -1.0
        assert tree.stats[0, child, AMAF_VALUE] - before_values[child] == pytest.approx(0.5 * sign)
    assert not tree.played.any()  # the marks are cleared for the next simulation


def path_to(tree, node):
    """The nodes from ``node`` up to the root's child on its path (node 0 excluded), deepest first."""
    path = []
    while node != 0:
        path.append(node)
        node = int(tree.nodes[0, node, PARENT])
    return path


def test_rave_beta_follows_mogos_schedule():
    assert rave_beta(0.0, 1000.0) == 1.0
    assert rave_beta(1000.0 / 3.0, 1000.0) == pytest.approx(0.5**0.5)
    assert rave_beta(1000.0, 1000.0) == pytest.approx(0.5)


def test_every_simulation_updates_the_amaf_statistics_of_the_roots_children():
    """From the empty board every playout plays on, so each simulation credits the root's mover's moves
    to some root children; with RAVE off nothing is counted."""
    for rave in (True, False):
        mcts = MCTS(MCTSConfig(simulations=500, rave=rave, solver=False), seed=0)
        mcts.search(TTT.new_initial_state())
        tree = mcts._trees._tree
        first, count = int(tree.nodes[0, 0, FIRST]), int(tree.nodes[0, 0, COUNT])
        amaf = tree.nodes[0, first : first + count, AMAF_VISITS]
        if rave:
            # the first move is always one of them (its own child), plus up to four more X moves
            assert amaf.sum() >= 500 and (amaf >= tree.nodes[0, first : first + count, VISITS]).all()
        else:
            assert not amaf.any()


@pytest.mark.parametrize("prefix", [[0, 3, 1, 4], [0, 4, 8, 2], [4, 0, 2], [1, 4, 2], [0, 4, 1], [0, 4, 2]])
@pytest.mark.parametrize("solver", [False, True])
def test_rave_finds_the_only_good_move(prefix, solver):
    """Positions with one value-preserving move (a win or a block), with and without the MCTS-solver."""
    state = TTT.new_initial_state()
    for action in prefix:
        state = state.apply(action)
    (best,) = solve(state).value_preserving_actions
    assert MCTS(MCTSConfig(simulations=2000, rave=True, solver=solver), seed=1).search(state).action == best


def test_rave_plays_go_and_connect_four_from_their_engines_specs():
    go = rlgames.load_game("go", board_size=9)
    agent = rlgames.load_agent("mcts(simulations=300, rave=true)", go)
    assert agent.config.rave and go.new_initial_state().is_legal(agent.act(go.new_initial_state()))
    four = rlgames.load_game("connect_four")
    state = four.new_initial_state()
    for action in [3, 0, 3, 0, 3, 1]:  # three in column 3: the win is there
        state = state.apply(action)
    assert rlgames.load_agent("mcts(simulations=500, rave=true)", four).act(state) == 3


class PythonZero(Evaluator):
    """Values of 0 without a compiled kernel: MCTS batches such an evaluator (a network) from Python."""

    def value(self, state) -> float:
        return 0.0


def test_rave_refuses_leaves_valued_outside_compiled_code():
    with pytest.raises(ValueError, match="rave needs leaves valued in compiled code"):
        MCTS(MCTSConfig(rave=True), PythonZero(), seed=0)
    with pytest.raises(ValueError, match="rave_equivalence"):
        MCTSConfig(rave=True, rave_equivalence=0.0)
