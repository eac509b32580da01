"""Exact solvers: Pons' benchmark scores for connect four, brute-force references for the small games, the
connect-four solver against the generic one, and the ``solve`` verb of the CLI."""

from __future__ import annotations

import functools
import random

import pytest

import rlgames
from rlgames import State
from rlgames.cli import main
from rlgames.games.connect_four.data import load_pons_set
from rlgames.games.connect_four.solver import ConnectFourSolveResult, score_to_plies
from rlgames.solvers import ExhaustiveSolver, SolveBudgetError, solve


def pons_positions(name: str, limit: int | None = None) -> list[tuple[str, int]]:
    return [(p.moves, p.score) for p in load_pons_set(name)][:limit]


def check_pons_file(name: str, limit: int | None = None) -> None:
    game = rlgames.load_game("connect_four")
    wrong = []
    for moves, score in pons_positions(name, limit):
        result = solve(game.state_from_moves(moves))
        if result.score != score or result.value != (score > 0) - (score < 0):
            wrong.append((moves, score, result.score))
    assert not wrong, f"{len(wrong)} wrong scores in {name}, e.g. {wrong[:3]}"


# --- connect four: Pons' scores ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1"])
def test_pons_scores(name):
    check_pons_file(name)  # about 0.01, 0.05 and 0.4 ms a position: every line by default


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_pons_scores_harder_files(name):
    check_pons_file(name)  # about 4 ms and 110 ms a position


@pytest.mark.parametrize(("moves", "score", "plies"), [("4455", 18, 3), ("44455554221", -15, 2)])
def test_pons_examples(moves, score, plies):
    result = solve(rlgames.load_game("connect_four").state_from_moves(moves))
    assert (result.score, result.plies_to_end, result.value) == (score, plies, 1 if score > 0 else -1)


def test_plies_to_end_and_score_are_inverse():
    for played in range(42):
        for score in range(-18, 19):
            plies = score_to_plies(score, played)
            if not 1 <= plies <= 42 - played:
                continue  # no such game
            result = ConnectFourSolveResult((score > 0) - (score < 0), plies, 0, 0.0, tuple, tuple, played)
            assert result.score == score, (played, score, plies)


def test_connect_four_action_sets_agree_with_child_scores():
    game = rlgames.load_game("connect_four")
    for moves, score in pons_positions("Test_L2_R1", 40):
        state = game.state_from_moves(moves)
        result = solve(state)
        move_scores = {a: move_score(state.apply(a), score_to_win_now(state)) for a in state.legal_actions()}
        assert max(move_scores.values()) == score
        assert result.best_actions == tuple(a for a, s in move_scores.items() if s == score)
        assert result.value_preserving_actions == tuple(
            a for a, s in move_scores.items() if (s > 0) - (s < 0) == result.value
        )


def score_to_win_now(state: State) -> int:
    """Pons' score of a win with the side to move's next stone."""
    return (43 - state.compact[4]) // 2


def move_score(child: State, win_now: int) -> int:
    """The score of the move leading to ``child`` for the player who made it."""
    if child.is_terminal():
        return win_now if child.returns() != [0.0, 0.0] else 0
    return -solve(child).score


# --- the generic solver: tic-tac-toe -----------------------------------------------------------------
def test_tic_tac_toe_empty_board_is_a_draw_in_nine():
    result = solve(rlgames.load_game("tic_tac_toe").new_initial_state())
    assert (result.value, result.plies_to_end) == (0, 9)
    assert result.value_preserving_actions == tuple(range(9)) == result.best_actions


def test_tic_tac_toe_win_in_one():
    result = solve(rlgames.load_game("tic_tac_toe").state_from_moves("a1 a2 b1 b2"))
    assert (result.value, result.plies_to_end, result.best_actions) == (1, 1, (2,))
    assert result.value_preserving_actions == (2,)  # after c2 (a block), o blocks c1 and x has no win left


@functools.cache
def reference(state: State) -> tuple[int, int]:
    """Plain minimax over the `State` API: ``(value, plies to the end)`` for the side to move; faster
    wins, slower losses and longer draws are preferred."""
    outcomes = [child_outcome(state, a) for a in state.legal_actions()]
    return max(outcomes, key=lambda vp: (vp[0], -vp[1] if vp[0] > 0 else vp[1]))


def child_outcome(state: State, action: int) -> tuple[int, int]:
    """``(value, plies)`` of ``action`` for the side to move in ``state``."""
    player, child = state.current_player(), state.apply(action)
    if child.is_terminal():
        return int(child.returns()[player]), 1
    value, plies = reference(child)
    return (value if child.current_player() == player else -value), plies + 1


def all_positions(state: State) -> set[State]:
    """Every non-terminal position reachable from ``state``."""
    seen, frontier = set(), [state]
    while frontier:
        s = frontier.pop()
        if s in seen or s.is_terminal():
            continue
        seen.add(s)
        frontier.extend(s.apply(a) for a in s.legal_actions())
    return seen


def check_against_reference(result, state: State) -> None:
    value, plies = reference(state)
    assert (result.value, result.plies_to_end) == (value, plies), state
    outcomes = {a: child_outcome(state, a) for a in state.legal_actions()}
    assert result.best_actions == tuple(a for a, vp in outcomes.items() if vp == (value, plies)), state
    assert result.value_preserving_actions == tuple(a for a, vp in outcomes.items() if vp[0] == value), state


def test_exhaustive_agrees_with_minimax_on_every_tic_tac_toe_position():
    game = rlgames.load_game("tic_tac_toe")
    positions = sorted(all_positions(game.new_initial_state()), key=lambda s: s.compact)
    assert len(positions) == 4520
    random.Random(7).shuffle(positions)
    shared = ExhaustiveSolver(game)
    for state in positions:
        check_against_reference(shared.solve(state), state)
    for state in positions[:200]:  # each solved from an empty memo, which grows from 2 slots
        check_against_reference(ExhaustiveSolver(game, initial_slots=2).solve(state), state)
    assert shared.memo_size == 4520


# --- halving and nim ---------------------------------------------------------------------------------
def test_halving_from_five():
    result = solve(rlgames.load_game("halving", n=5).new_initial_state())
    assert (result.value, result.best_actions) == (1, (1,))


@functools.cache
def halving_reference(n: int) -> tuple[int, int]:
    """``(value, plies)`` for the side to move at ``n > 0``: moving to 0 loses at once."""
    outcomes = []
    for m in (n // 2, n - 1):
        if m == 0:
            outcomes.append((-1, 1))
        else:
            value, plies = halving_reference(m)
            outcomes.append((-value, plies + 1))
    return max(outcomes, key=lambda vp: (vp[0], -vp[1] if vp[0] > 0 else vp[1]))


@pytest.mark.parametrize("n", range(1, 31))
def test_halving_agrees_with_brute_force(n):
    result = solve(rlgames.load_game("halving", n=n).new_initial_state())
    assert (result.value, result.plies_to_end) == halving_reference(n)


def nim_position(game, heaps: list[int]) -> State:
    """The position with ``heaps`` left, reached from the start by taking the difference from each heap."""
    state = game.new_initial_state()
    for pile, (start, left) in enumerate(zip(game.heaps, heaps)):
        if left < start:
            state = state.apply((start - left - 1) * len(heaps) + pile)
    return state


@pytest.mark.parametrize("misere", [False, True])
def test_nim_values_follow_the_nim_sum(misere):
    game = rlgames.load_game("nim", heaps=(7, 7, 7, 7), misere=misere)
    rng = random.Random(3)
    for _ in range(300):
        heaps = [rng.randint(0, 7) for _ in range(4)]
        if not any(heaps):
            continue
        nim_sum = heaps[0] ^ heaps[1] ^ heaps[2] ^ heaps[3]
        if misere and max(heaps) <= 1:
            expected = 1 if sum(heaps) % 2 == 0 else -1  # leave an odd number of single objects
        else:
            expected = 1 if nim_sum else -1
        assert solve(nim_position(game, heaps)).value == expected, heaps


# --- connect four: the specialised solver against the generic one --------------------------------------
def random_late_position(game, rng: random.Random, plies: int) -> State:
    while True:
        state = game.new_initial_state()
        while not state.is_terminal() and state.compact[4] < plies:
            state = state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


def test_connect_four_solver_agrees_with_exhaustive_on_late_positions():
    game = rlgames.load_game("connect_four")
    generic = ExhaustiveSolver(game)
    rng = random.Random(11)
    for i in range(150):
        state = random_late_position(game, rng, 34 + i % 8)
        fast, slow = solve(state), generic.solve(state)
        assert (fast.value, fast.plies_to_end) == (slow.value, slow.plies_to_end), state
        assert fast.best_actions == slow.best_actions, state
        assert fast.value_preserving_actions == slow.value_preserving_actions, state


# --- errors and the CLI ------------------------------------------------------------------------------
def test_solve_refuses_terminal_states_and_chance():
    game = rlgames.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match="game is over"):
        solve(game.state_from_moves("a1 a2 b1 b2 c1"))
    with pytest.raises(ValueError, match="chance"):
        solve(rlgames.load_game("pig").new_initial_state())


def test_cli_solve_connect_four(capsys):
    moves, score = pons_positions("Test_L3_R1", 1)[0]
    assert main(["solve", "connect_four", "--moves", moves]) == 0
    out = capsys.readouterr().out
    outcome = "win (+1)" if score > 0 else "loss (-1)" if score < 0 else "draw (+0)"
    assert f"value: {outcome} for the side to move" in out
    assert f"score (Pons): {score:+d}" in out


def test_cli_solve_tic_tac_toe(capsys):
    assert main(["solve", "tic_tac_toe", "--moves", "a1 a2 b1 b2"]) == 0
    out = capsys.readouterr().out
    assert "value: win (+1)" in out and "plies to the end: 1" in out and "best moves: c1\n" in out
    assert main(["solve", "pig"]) == 2


def test_budgets_stop_the_solvers_and_leave_them_exact():
    """Past its time or memory the solver raises SolveBudgetError; what it stored stays true."""
    othello = rlgames.load_game("othello")
    with pytest.raises(SolveBudgetError, match="othello: not solved within the memo's 1 MB"):
        ExhaustiveSolver(othello, memory_mb=1).solve(othello.new_initial_state())
    with pytest.raises(SolveBudgetError, match="othello: not solved within 0.5 s"):
        ExhaustiveSolver(othello).solve(othello.new_initial_state(), time_limit=0.5)
    c4 = rlgames.load_game("connect_four")
    with pytest.raises(SolveBudgetError, match="connect_four: not solved within 0.2 s"):
        solve(c4.new_initial_state(), time_limit=0.2)
    for moves, score in pons_positions("Test_L2_R1", 20):  # the table the stopped search wrote is still exact
        assert solve(c4.state_from_moves(moves), time_limit=60).score == score


def test_every_solve_result_has_a_score():
    assert solve(rlgames.load_game("tic_tac_toe").new_initial_state()).score is None
    assert solve(rlgames.load_game("connect_four").state_from_moves("44455554221")).score == -15
