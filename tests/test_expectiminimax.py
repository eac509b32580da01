"""Expectiminimax against the Python reference, exact pig values, negamax on tic-tac-toe, and pruning."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from numba import njit

import rlgames
from rlgames.evaluators import Evaluator, ZeroEvaluator
from rlgames.game import CHANCE, TERMINAL, Game, GameInfo, GameKernels, State
from rlgames.games.pig.rules import (
    DECISIONS_LEFT,
    SCORE0,
    SCORE1,
    TURN_PLAYER,
    TURN_TOTAL,
)
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.expectiminimax.config import ExpectiminimaxConfig
from rlgames.search.expectiminimax.driver import Expectiminimax, expectiminimax
from rlgames.search.reference import minimax

PRUNINGS = ("none", "alphabeta", "star1")
TTT = rlgames.load_game("tic_tac_toe")


@njit(cache=True)
def _lead(s) -> float:
    turn = s[TURN_PLAYER]
    return math.tanh((s[SCORE0 + turn] + s[TURN_TOTAL] - s[SCORE1 - turn]) / 10.0)


class LeadEvaluator(Evaluator):
    """Pig: the turn player's lead, counting the turn total, squashed: ``tanh(lead / 10)``."""

    def value(self, state) -> float:
        return float(_lead(state.compact))

    @property
    def kernel(self):
        return _lead


class PythonOnlyEvaluator(LeadEvaluator):
    """The same values without a compiled kernel: the driver falls back to the Python reference."""

    @property
    def kernel(self):
        return None


def search(state, evaluator=None, **config):
    return Expectiminimax(evaluator or ZeroEvaluator(), ExpectiminimaxConfig(**config)).search(state)


def random_decision_states(game, count: int, seed: int, max_steps: int = 40) -> list:
    """Decision nodes reached by random play (random actions, chance outcomes drawn by probability)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, max_steps)):
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state = state.apply(int(rng.choice(outcomes, p=probs)))
            else:
                state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal() and not state.is_chance_node():
            states.append(state)
    return states


@functools.cache
def pig_oracle(winscore: int, dice: int, horizon: int):
    """Pig's exact value, written from OpenSpiel's rules: ``decide(mine, theirs, total, decisions)`` is
    worth ``decide`` to the player to move, who has banked ``mine`` and holds the turn total ``total``
    after ``decisions`` decisions of the game."""

    @functools.cache
    def decide(mine: int, theirs: int, total: int, decisions: int) -> float:
        done = decisions + 1
        if mine + total >= winscore:  # rolling is illegal; stopping wins
            return 1.0
        stop = 0.0 if done >= horizon else -decide(theirs, mine + total, 0, done)
        if done >= horizon:  # the roll ends the game before the die is thrown
            return max(stop, 0.0)
        faces = [-decide(theirs, mine, 0, done)] + [decide(mine, theirs, total + f, done) for f in range(2, dice + 1)]
        return max(stop, sum(faces) / dice)

    return decide


def oracle_value(state) -> float:
    _, _, score0, score1, total, turn, decisions_left, _ = state.compact
    winscore, dice, horizon = state.game.winscore, state.game.diceoutcomes, state.game.horizon
    mine, theirs = (score0, score1) if turn == 0 else (score1, score0)
    return pig_oracle(winscore, dice, horizon)(mine, theirs, total, horizon - decisions_left)


# --- (a) the compiled search equals the Python reference ---------------------------------------------

PIG20 = rlgames.load_game("pig", winscore=20)
REFERENCE_STATES = random_decision_states(PIG20, 40, seed=1)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_compiled_search_without_pruning_equals_the_reference(depth):
    evaluator = LeadEvaluator()
    for state in REFERENCE_STATES:
        expected = expectiminimax(state, depth, evaluator)
        result = search(state, evaluator, depth=depth, pruning="none")
        assert result.value == pytest.approx(expected.value, abs=1e-12), state
        assert result.action == expected.action, state
        assert result.principal_variation == expected.principal_variation, state
        assert result.stats.nodes == expected.stats.nodes, state
        assert result.stats.extra["evaluations"] == expected.stats.extra["evaluations"], state


class TurnLeadEvaluator(LeadEvaluator):
    """The lead, which also scores chance nodes (pig's are the turn player's, who rolled)."""

    scores_chance_nodes = True


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_in_turns_compiled_equals_the_reference(depth):
    evaluator = TurnLeadEvaluator()
    for state in REFERENCE_STATES:
        expected = expectiminimax(state, depth, evaluator, by_turn=True)
        result = search(state, evaluator, depth=depth, depth_unit="turn", pruning="none")
        assert result.value == pytest.approx(expected.value, abs=1e-12), state
        assert result.principal_variation == expected.principal_variation, state
        assert result.stats.nodes == expected.stats.nodes, state
        assert result.stats.extra["evaluations"] == expected.stats.extra["evaluations"], state
        pruned = search(state, evaluator, depth=depth, depth_unit="turn", pruning="star1")
        assert pruned.value == pytest.approx(expected.value, abs=1e-12), state


def test_one_turn_cuts_off_on_the_roll_and_on_the_opponents_decision():
    state = PIG20.state_at(5, 3, turn_total=4, turn=0)  # roll and stop are legal
    evaluator = TurnLeadEvaluator()
    result = search(state, evaluator, depth=1, depth_unit="turn", pruning="none")
    # the root, the chance node after the roll (a turn's end, evaluated) and the opponent's decision
    assert (result.stats.nodes, result.stats.extra["evaluations"]) == (3, 2)
    roll = _lead(PIG20.state_at(5, 3, turn_total=4, turn=0, chance=True).compact)
    stop = -_lead(PIG20.state_at(9, 3, turn=1, decisions=1).compact)
    assert result.value == pytest.approx(max(roll, stop), abs=1e-12)
    with pytest.raises(ValueError, match="does not score"):
        Expectiminimax(LeadEvaluator(), ExpectiminimaxConfig(depth=1, depth_unit="turn"))


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("pruning", ["alphabeta", "star1"])
@pytest.mark.parametrize("tt_size_mb", [0.0, 0.25])
def test_pruning_and_the_table_never_change_the_root_value(depth, pruning, tt_size_mb):
    evaluator = LeadEvaluator()
    for state in REFERENCE_STATES:
        plain = search(state, evaluator, depth=depth, pruning="none")
        pruned = search(state, evaluator, depth=depth, pruning=pruning, tt_size_mb=tt_size_mb)
        assert pruned.value == pytest.approx(plain.value, abs=1e-12), state
        assert pruned.stats.nodes <= plain.stats.nodes


def test_the_pruned_search_chooses_a_best_action():
    evaluator = LeadEvaluator()
    for state in REFERENCE_STATES:
        result = search(state, evaluator, depth=3)
        # as good as the best action (it may differ from the reference's only among equal values)
        child_value = action_value(state.apply(result.action), state, evaluator, 3)
        assert child_value == pytest.approx(result.value, abs=1e-12), state


def action_value(child, parent, evaluator, depth: int) -> float:
    """The value of ``parent``'s action leading to ``child``, from the parent's mover, by the reference."""
    if child.is_terminal():
        return child.returns()[parent.current_player()]
    if child.is_chance_node():
        return sum(p * action_value(child.apply(o), parent, evaluator, depth) for o, p in child.chance_outcomes())
    value = evaluator.value(child) if depth == 1 else expectiminimax(child, depth - 1, evaluator).value
    return value if child.current_player() == parent.current_player() else -value


def test_an_evaluator_without_kernel_falls_back_to_the_reference():
    state = REFERENCE_STATES[3]
    result = search(state, PythonOnlyEvaluator(), depth=2)
    expected = search(state, LeadEvaluator(), depth=2, pruning="none")
    assert (result.value, result.action, result.stats.nodes) == pytest.approx(
        (expected.value, expected.action, expected.stats.nodes)
    )


# --- (b) exact pig values -----------------------------------------------------------------------------


def openspiel_value(winscore: int, dice: int, horizon: int) -> float:
    """Player 0's exact value of OpenSpiel's own pig from the start: max, min and mean over pyspiel
    states, memoised on their string (scores, turn total, player, rolling) and the decisions made."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("pig", {"winscore": winscore, "diceoutcomes": dice, "horizon": horizon})
    memo: dict[tuple[str, int], float] = {}

    def value(state, decisions: int) -> float:
        key = (str(state), decisions)
        if key not in memo:
            if state.is_terminal():
                memo[key] = state.returns()[0]
            elif state.is_chance_node():
                memo[key] = sum(p * value(state.child(o), decisions) for o, p in state.chance_outcomes())
            else:
                values = [value(state.child(a), decisions + 1) for a in state.legal_actions()]
                memo[key] = max(values) if state.current_player() == 0 else min(values)
        return memo[key]

    return value(game.new_initial_state(), 0)


@pytest.mark.parametrize("winscore, dice, horizon", [(6, 3, 6), (8, 6, 7)])
def test_the_oracle_follows_openspiel_rules(winscore, dice, horizon):
    assert pig_oracle(winscore, dice, horizon)(0, 0, 0, 0) == pytest.approx(
        openspiel_value(winscore, dice, horizon), abs=1e-12
    )


@pytest.mark.parametrize(
    "winscore, dice, horizon, tt_size_mb",
    [
        (6, 6, 6, 0.0),
        (6, 3, 9, 0.0),
        (8, 6, 8, 0.0),
        (10, 6, 8, 0.0),
        (10, 6, 14, 1.0),
        (10, 4, 20, 4.0),
    ],
)
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_full_depth_from_the_start_is_exact(winscore, dice, horizon, tt_size_mb, pruning):
    game = rlgames.load_game("pig", winscore=winscore, diceoutcomes=dice, horizon=horizon)
    if pruning == "none" and tt_size_mb == 0 and horizon > 8:
        tt_size_mb = 1.0  # an exhaustive tree this deep takes seconds
    result = search(game.new_initial_state(), depth=horizon, pruning=pruning, tt_size_mb=tt_size_mb)
    assert result.value == pytest.approx(pig_oracle(winscore, dice, horizon)(0, 0, 0, 0), abs=1e-12)
    assert result.stats.extra["evaluations"] == 0


@pytest.mark.parametrize("pruning", PRUNINGS)
def test_full_depth_is_exact_in_mid_game_positions(pruning):
    game = rlgames.load_game("pig", winscore=10, horizon=16)
    states = random_decision_states(game, 60, seed=7, max_steps=25)
    states.append(game.state_at(7, 4, 2, 1, decisions=5))  # player 1, 4 + 2 against 7
    states.append(game.state_at(9, 9, 0, 0, decisions=14))  # 9 all, two decisions left
    for state in states:
        result = search(state, depth=state.compact[DECISIONS_LEFT], pruning=pruning, tt_size_mb=1.0)
        assert result.value == pytest.approx(oracle_value(state), abs=1e-12), state


def test_a_deeper_limit_than_the_game_changes_nothing():
    game = rlgames.load_game("pig", winscore=8, horizon=7)
    state = game.new_initial_state()
    assert search(state, depth=7).value == pytest.approx(search(state, depth=12).value, abs=1e-12)


# --- (e) first-mover advantage ------------------------------------------------------------------------


def test_pig_to_ten_favours_the_first_player():
    game = rlgames.load_game("pig", winscore=10, horizon=30)
    exact = pig_oracle(10, 6, 30)(0, 0, 0, 0)
    result = search(game.new_initial_state(), depth=30, tt_size_mb=4.0)
    assert result.value == pytest.approx(exact, abs=1e-12)
    assert exact > 0.3  # the first player wins about 70% of the games
    assert result.action == 0  # with nothing banked, roll


# --- (c) deterministic games: negamax -----------------------------------------------------------------

TTT_STATES = random_decision_states(TTT, 60, seed=3, max_steps=7)


@functools.cache
def full_minimax(compact: tuple):
    return minimax(TTT.state_class(TTT, compact))


@pytest.mark.parametrize("pruning", PRUNINGS)
@pytest.mark.parametrize("tt_size_mb", [0.0, 0.25])
def test_tic_tac_toe_full_depth_equals_minimax(pruning, tt_size_mb):
    for state in TTT_STATES:
        if len(state.legal_actions()) > 7:
            continue  # keep the Python minimax fast
        expected = full_minimax(state.compact)
        result = search(state, depth=9, pruning=pruning, tt_size_mb=tt_size_mb)
        assert result.value == expected.value, state
        if pruning == "none" and not tt_size_mb:
            assert result.action == expected.action, state


@pytest.mark.parametrize("depth", [1, 2, 4])
@pytest.mark.parametrize("pruning", PRUNINGS)
@pytest.mark.parametrize("tt_size_mb", [0.0, 0.25])
def test_tic_tac_toe_depth_limited_equals_minimax(depth, pruning, tt_size_mb):
    evaluator = OpenLinesEvaluator()
    for state in TTT_STATES:
        expected = minimax(state, depth=depth, evaluator=evaluator)
        result = search(state, evaluator, depth=depth, pruning=pruning, tt_size_mb=tt_size_mb)
        assert result.value == pytest.approx(expected.value, abs=1e-12), state


# --- (d) pruning counts -------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [3, 5])
def test_star1_visits_fewer_nodes_than_alphabeta_alone(depth):
    state = PIG20.state_at(12, 15, 3, 0, decisions=10)
    evaluator = LeadEvaluator()
    counts = {p: search(state, evaluator, depth=depth, pruning=p).stats for p in PRUNINGS}
    assert counts["star1"].nodes < counts["alphabeta"].nodes <= counts["none"].nodes
    assert counts["star1"].extra["chance_cutoffs"] > 0
    assert counts["alphabeta"].extra["chance_cutoffs"] == 0 and counts["none"].cutoffs == 0


def test_the_table_saves_nodes_on_pig():
    state = PIG20.new_initial_state()
    without = search(state, LeadEvaluator(), depth=6)
    with_table = search(state, LeadEvaluator(), depth=6, tt_size_mb=1.0)
    assert with_table.stats.tt_hits > 0 and with_table.stats.nodes < without.stats.nodes
    assert with_table.value == pytest.approx(without.value, abs=1e-12)


# --- random expectimax trees: non-uniform probabilities, both players, terminal leaves ---------------

TREE_DEPTH, TREE_ROOTS = 3, 150


def _random_forest(seed: int) -> tuple[np.ndarray, ...]:
    """Random trees ``TREE_DEPTH`` decisions deep, as arrays over node ids: the player code (0, 1,
    CHANCE, TERMINAL), the first child and the number of children (children are contiguous), the
    probability of a chance outcome, the return of a terminal node and the value of a leaf decision."""
    rng = np.random.default_rng(seed)
    kinds, first, count, prob, ret, leaf = [], [], [], [], [], []

    def new(kind: int) -> int:
        kinds.append(kind), first.append(0), count.append(0), prob.append(1.0)
        ret.append(int(rng.integers(-1, 2)))
        leaf.append(float(rng.choice([-1.0, -0.5, 0.0, 0.25, 1.0, rng.uniform(-1, 1)])))
        return len(kinds) - 1

    def grow(node: int, decisions_left: int) -> None:
        kind = kinds[node]
        if kind == TERMINAL or (kind != CHANCE and decisions_left == 0):
            return
        n = int(rng.integers(2, 4)) if kind != CHANCE else int(rng.integers(2, 5))
        child_kinds = (
            [int(rng.integers(0, 2)) for _ in range(n)]
            if kind == CHANCE
            else [int(rng.choice([0, 1, CHANCE, CHANCE, TERMINAL])) for _ in range(n)]
        )
        children = [new(k) for k in child_kinds]
        first[node], count[node] = children[0], n
        if kind == CHANCE:
            for c, p in zip(children, rng.dirichlet(np.ones(n))):
                prob[c] = p
        for c in children:
            grow(c, decisions_left if kind == CHANCE else decisions_left - 1)

    roots = []
    for _ in range(TREE_ROOTS):
        roots.append(new(int(rng.integers(0, 2))))
        grow(roots[-1], TREE_DEPTH)
    return (
        np.array(roots),
        np.array(kinds),
        np.array(first),
        np.array(count),
        np.array(prob),
        np.array(ret),
        np.array(leaf),
    )


ROOTS, KIND, FIRST, COUNT, PROB, RET, LEAF = _random_forest(seed=11)


@njit
def _tree_legal(s, out) -> int:
    for i in range(COUNT[s[2]]):
        out[i] = i
    return COUNT[s[2]]


@njit
def _tree_apply(s, a):
    child = FIRST[s[2]] + a
    return (KIND[child], RET[child], child)


@njit
def _tree_outcomes(s, actions, probs) -> int:
    for i in range(COUNT[s[2]]):
        actions[i] = i
        probs[i] = PROB[FIRST[s[2]] + i]
    return COUNT[s[2]]


@njit
def _tree_key(s) -> int:
    return s[2]


@njit
def _tree_observation(s, player, out) -> None:
    out[0] = s[2]


@njit
def _tree_leaf(s) -> float:
    return LEAF[s[2]]


class TreeGame(Game):
    name = "random_tree"
    state_class = State
    info = GameInfo(name, num_actions=4, observation_shape=(1,), max_game_length=2 * TREE_DEPTH, has_chance=True)
    kernels = GameKernels(
        legal_actions=_tree_legal,
        apply=_tree_apply,
        hash_key=_tree_key,
        observation=_tree_observation,
        max_actions=4,
        chance_outcomes=_tree_outcomes,
    )

    def initial_compact_state(self) -> tuple:
        return (int(KIND[ROOTS[0]]), 0, int(ROOTS[0]))


class TreeLeafEvaluator(Evaluator):
    def value(self, state) -> float:
        return float(LEAF[state.compact[2]])

    @property
    def kernel(self):
        return _tree_leaf


def tree_value(node: int, view: int) -> float:
    """The expectiminimax value of a tree node from ``view``'s point of view, straight from the arrays."""
    kind = KIND[node]
    if kind == TERMINAL:
        return RET[node] * (1 - 2 * view)
    children = range(FIRST[node], FIRST[node] + COUNT[node])
    if kind == CHANCE:
        return sum(PROB[c] * tree_child_value(c, view) for c in children)
    if COUNT[node] == 0:
        return LEAF[node]
    return max(tree_child_value(c, kind) for c in children)


def tree_child_value(child: int, view: int) -> float:
    kind = KIND[child]
    return tree_value(child, view) if kind in (view, CHANCE, TERMINAL) else -tree_value(child, kind)


@pytest.mark.parametrize("pruning", PRUNINGS)
@pytest.mark.parametrize("tt_size_mb", [0.0, 0.25])
def test_random_trees_with_chance_match_a_direct_recursion(pruning, tt_size_mb):
    game = TreeGame()
    evaluator = TreeLeafEvaluator()
    cutoffs = 0
    for root in ROOTS:
        state = State(game, (int(KIND[root]), 0, int(root)))
        result = search(state, evaluator, depth=TREE_DEPTH, pruning=pruning, tt_size_mb=tt_size_mb)
        assert result.value == pytest.approx(tree_value(root, KIND[root]), abs=1e-12), root
        cutoffs += result.stats.extra["chance_cutoffs"]
        if pruning == "none":
            reference = expectiminimax(state, TREE_DEPTH, evaluator)
            assert (result.action, result.principal_variation) == (reference.action, reference.principal_variation)
    assert (cutoffs > 0) == (pruning == "star1")


# --- the result ---------------------------------------------------------------------------------------


def test_the_line_follows_the_best_decisions_and_the_likeliest_outcomes():
    game = rlgames.load_game("pig", winscore=10, diceoutcomes=6, horizon=12)
    state = game.state_at(3, 8, 4, 0, decisions=6)
    result = search(state, depth=6, pruning="none")
    assert result.principal_variation[0] == result.action
    assert result.policy.sum() == 1 and result.policy[result.action] == 1
    line = state
    for action in result.principal_variation:
        if line.is_chance_node():
            assert action == 0  # equally likely faces: the first one, a 1
        line = line.apply(action)  # raises on an illegal move
    assert line.is_terminal() or not line.is_chance_node()


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_a_filter_wider_than_the_root_changes_nothing(depth, pruning):
    evaluator = LeadEvaluator()
    for state in REFERENCE_STATES[:20]:
        plain = search(state, evaluator, depth=depth, pruning=pruning)
        wide = search(state, evaluator, depth=depth, pruning=pruning, root_filter=100)
        assert wide.value == pytest.approx(plain.value, abs=1e-12) and wide.action == plain.action, state


def _child_value(state, action, depth, evaluator) -> float:
    """Tic-tac-toe: the value of ``action`` for the side to move, searched ``depth`` plies in all."""
    child = state.apply(action)
    if child.is_terminal():
        return child.returns()[state.current_player()]
    if depth == 1:
        return -evaluator.value(child)
    return -search(child, evaluator, depth=depth - 1, pruning="none").value


@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("depth", [2, 4])
def test_the_filter_searches_deeper_only_the_best_moves_at_depth_one(width, depth):
    """The filtered value is the best deeper value among the ``width`` root moves of best depth-1 value
    (ties kept in the order of the legal actions), whatever the budget that deepens to ``depth``."""
    evaluator = OpenLinesEvaluator()
    for moves in ("", "b2", "a1 b2", "a1 b2 c3", "b2 a1 c1 a3"):
        state = TTT.state_from_moves(moves)
        legal = state.legal_actions()
        shallow = [_child_value(state, a, 1, evaluator) for a in legal]
        kept = [legal[i] for i in sorted(range(len(legal)), key=lambda i: -shallow[i])[:width]]
        expected = max(_child_value(state, a, depth, evaluator) for a in kept)
        result = search(state, evaluator, depth=depth, root_filter=width)
        assert result.value == pytest.approx(expected, abs=1e-12), moves
        assert result.action in kept and _child_value(state, result.action, depth, evaluator) == pytest.approx(expected)
        deepened = search(state, evaluator, depth=depth, max_nodes=10**9, root_filter=width)
        assert (deepened.value, deepened.action, deepened.stats.depth) == (result.value, result.action, depth)


def test_rejects_chance_and_terminal_roots_and_bad_configs():
    state = PIG20.new_initial_state().apply(0)
    assert state.current_player() == CHANCE
    with pytest.raises(ValueError):
        search(state)
    with pytest.raises(ValueError):
        expectiminimax(state, 2, ZeroEvaluator())
    over = TTT.state_from_moves("a1 b1 a2 b2 a3")
    assert over.current_player() == TERMINAL
    with pytest.raises(ValueError):
        search(over)
    for bad in ({"depth": 0}, {"pruning": "star2"}, {"tt_size_mb": -1}, {"root_filter": 0}):
        with pytest.raises(ValueError):
            ExpectiminimaxConfig(**bad)
    with pytest.raises(ValueError, match="compiled kernel"):
        Expectiminimax(PythonOnlyEvaluator(), ExpectiminimaxConfig(root_filter=4))
