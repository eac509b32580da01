"""Go's light playouts: the mutable board against the rules' kernels move by move, and the published
statistics of the light policy from the empty 9x9 board."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.agents import load_agent
from rlgames.games.go import playout
from rlgames.games.go.game import GoState
from rlgames.games.go.patterns import PATTERN_TABLE
from rlgames.jit.rng import new_rng_state
from rlgames.playout import run_random_playouts

BLACK_WINS = {7.5: 0.4213, 0.0: 0.5245}
"""Black's share of 1,000,000 light playouts from the empty 9x9 board, by komi (the computer-go mailing
list's 2008 reference bot), about 111 moves each."""


def own_eye(grid: np.ndarray, point: int, colour: int) -> bool:
    """The readable definition: every on-board neighbour is ``colour``'s (1 black, 2 white), and fewer
    enemy stones on the diagonals than one on the edge, two elsewhere. ``grid``: the board with row 0 at
    the bottom, as points count rows."""
    n = grid.shape[0]
    row, col = divmod(point, n)

    def on_board(r: int, c: int) -> bool:
        return 0 <= r < n and 0 <= c < n

    sides = [(row + dr, col + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if on_board(row + dr, col + dc)]
    if any(grid[r, c] != colour for r, c in sides):
        return False
    corners = [(row + dr, col + dc) for dr in (1, -1) for dc in (1, -1)]
    edge = any(not on_board(r, c) for r, c in corners)
    enemies = sum(1 for r, c in corners if on_board(r, c) and grid[r, c] == 3 - colour)
    return enemies < (1 if edge else 2)


def padded(point: int, n: int) -> int:
    return (point // n + 1) * (n + 2) + point % n + 1


@pytest.mark.parametrize("params, games", [({"board_size": 9}, 30), ({"board_size": 5, "komi": 0.5}, 60)])
def test_the_fast_board_follows_the_rules_move_by_move(params, games):
    """The points the playout may play are the legal ones (by the rules' kernels) that fill no own eye,
    and after every move the two boards hold the same stones."""
    game = rlgames.load_game("go", **params)
    n = game.board_size
    rng = np.random.default_rng(3)
    board = playout.new_board()
    for _ in range(games):
        state = game.new_initial_state()
        playout.load(board, state.compact)
        while not state.is_terminal():
            colour = state.current_player() + 1
            legal = set(state.legal_actions())
            grid = state.board_grid()[::-1]  # row 0 at the bottom, as points count rows
            expected = [p for p in range(n * n) if p in legal and not own_eye(grid, p, colour)]
            cells = grid.ravel()
            playable = [p for p in range(n * n) if cells[p] == 0]
            playable = [p for p in playable if playout.is_playable(board, padded(p, n), colour)]
            assert playable == expected, str(state)
            action = int(rng.choice(expected)) if expected else n * n
            state = state.apply(action)
            if action == n * n:
                playout.load(board, state.compact)  # a pass clears the ko, as loading the position does
            else:
                playout.play(board, padded(action, n), colour)
            stones = [board[0, padded(p, n)] for p in range(n * n)]
            assert stones == state.board_grid()[::-1].ravel().tolist()


def chain_liberties(grid: np.ndarray, point: int) -> set[int]:
    """The readable reference: the distinct liberties of the chain on ``point``, by a flood fill."""
    n = grid.shape[0]
    colour, seen, stack, liberties = grid.flat[point], {point}, [point], set()
    while stack:
        row, col = divmod(stack.pop(), n)
        for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
            if 0 <= r < n and 0 <= c < n:
                q = r * n + c
                if grid.flat[q] == 0:
                    liberties.add(q)
                elif grid.flat[q] == colour and q not in seen:
                    seen.add(q)
                    stack.append(q)
    return liberties


@pytest.mark.parametrize("board_size, games", [(9, 8), (5, 20)])
def test_a_chain_in_atari_gives_its_one_liberty_and_no_other_does(board_size, games):
    """`lone_liberty`, which the pattern and learned policies ask of the pseudo-liberty counts, against the
    chain's liberties by a flood fill, for every stone of every position of random games."""
    game = rlgames.load_game("go", board_size=board_size)
    n, rng, board, in_atari = board_size, np.random.default_rng(7), playout.new_board(), 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            playout.load(board, state.compact)
            grid = state.board_grid()[::-1]
            for point in np.flatnonzero(grid.ravel()):
                liberties = chain_liberties(grid, int(point))
                expected = padded(liberties.pop(), n) if len(liberties) == 1 else playout.NO_POINT
                in_atari += expected != playout.NO_POINT
                head = board[playout._HEAD, padded(int(point), n)]
                assert playout.lone_liberty(board, head) == expected, (str(state), int(point))
            state = state.apply(int(rng.choice(state.legal_actions())))
    assert in_atari > 100  # the games reach many chains in atari, not only free ones


@pytest.mark.parametrize("komi", sorted(BLACK_WINS))
def test_light_playouts_reproduce_the_published_statistics(komi):
    """20,000 playouts: black's share within 0.015 (over four standard errors) and the length within 2
    moves; the benchmark (`benchmarks/bench_go_playouts.py`) reproduces both within 0.003 over 1,000,000."""
    game = rlgames.load_game("go", board_size=9, komi=komi, max_game_length=10_000)
    stats = playout.light_playouts(game.new_initial_state(), 20_000, seed=1)
    assert abs(stats.black_wins.mean() - BLACK_WINS[komi]) < 0.015
    assert abs(stats.lengths.mean() - 111) < 2
    assert np.all(stats.margins != 0) and np.all((stats.margins > 0) == (stats.black_wins == 1))


@pytest.mark.slow
def test_light_playouts_reproduce_the_published_statistics_closely():
    game = rlgames.load_game("go", board_size=9, komi=7.5, max_game_length=10_000)
    stats = playout.light_playouts(game.new_initial_state(), 300_000, seed=2)
    assert abs(stats.black_wins.mean() - BLACK_WINS[7.5]) < 0.004  # over four standard errors


def test_random_rollouts_of_go_are_light_playouts():
    """The generic random playouts (MCTS without an evaluator, the rollout evaluator) play the game's own
    ``playout`` kernel: about 111 moves from the empty 9x9 board, where uniformly random moves, passes
    among them, run to the length limit."""
    game = rlgames.load_game("go", board_size=9)
    assert game.kernels.provides("playout")
    stats = run_random_playouts(game, 2_000, seed=0)
    assert abs(stats.lengths.mean() - 111) < 3 and set(stats.returns.tolist()) <= {-1, 1}


def test_playouts_start_from_a_position_and_keep_its_limit():
    game = rlgames.load_game("go", board_size=9, max_game_length=20)
    state = game.state_from_moves("E5 C3 G7")
    stats = playout.light_playouts(state, 200, seed=4)
    assert np.all(stats.lengths == 17)  # the game's 20 actions, 3 of them already played
    with pytest.raises(ValueError, match="not over"):
        playout.light_playouts(game.state_from_moves("pass pass"), 1, seed=0)


def block(rows: str) -> int:
    """The code of a 3x3 block written as a shape is (``X`` the side to move, ``O``, ``.``, ``#``)."""
    codes = {".": 0, "X": 1, "O": 2, "#": 3}
    around = [rows[i] for i in (0, 1, 2, 3, 5, 6, 7, 8)]
    return sum(codes[c] << (2 * i) for i, c in enumerate(around))


def test_the_shapes_match_in_every_orientation_and_both_colours():
    from rlgames.games.go.patterns import build_table

    assert PATTERN_TABLE[block("XOX......")] and PATTERN_TABLE[block("......XOX")]  # a hane, turned over
    assert PATTERN_TABLE[block("X..O..X..")]  # the same hane turned a quarter
    assert PATTERN_TABLE[block("OXO......")]  # and for the other colour
    assert PATTERN_TABLE[block("XOO......")]  # thin hane for the side to move
    assert not PATTERN_TABLE[block("OXX......")]  # but not for the opponent
    assert not PATTERN_TABLE[block(".........")] and not PATTERN_TABLE[block("XXX...OOO")]
    edge = build_table((("X.?O.?###", False),))  # an edge shape alone: "#" is off the board, "?" on it
    assert edge[block("X..O..###")] and edge[block("X.XO.O###")] and not edge[block("X..O.....")]
    assert PATTERN_TABLE[block("X..O..###")]
    with pytest.raises(ValueError, match="empty middle"):
        build_table((("XOXOXOXOX", False),))


def test_pattern_moves_escape_an_atari_first():
    game = rlgames.load_game("go", board_size=5)
    c3, b3, c4, d3, c2 = (game.new_initial_state().string_to_action(m) for m in ("C3", "B3", "C4", "D3", "C2"))
    state = GoState(game, game.compact_from_stones([c3], [b3, c4, d3], player=0))
    board = playout.new_board()
    playout.load(board, state.compact)
    rng = new_rng_state(0)
    move = playout.pattern_move(board, playout.BLACK, padded(d3, 5), rng, PATTERN_TABLE)
    assert move == padded(c2, 5)  # black's C3 has one liberty left, C2, which has room


def test_mcts_plays_the_pattern_playouts_by_name():
    game = rlgames.load_game("go", board_size=5)
    agent = load_agent("mcts(simulations=200, rollout=patterns, seed=1)", game)
    state = game.new_initial_state()
    assert agent.search(state).action in state.legal_actions()
    with pytest.raises(ValueError, match="accepted in go: random, policy, light, patterns"):
        load_agent("mcts(rollout=heavy)", game)
    with pytest.raises(ValueError, match="give one of eval= or rollout=, not both"):
        load_agent("mcts(rollout=patterns, eval=heuristic)", game)
