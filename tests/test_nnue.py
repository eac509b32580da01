"""The NNUE evaluator: its compiled value path equals the torch network, summed or updated move by
move, over each game's inputs (alpha-beta running it from a checkpoint: tests/test_checkpoints.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rlgames
from rlgames.models.evaluator import NNUEvaluator
from rlgames.models.networks import build_network
from rlgames.search import AlphaBeta, AlphaBetaConfig


def random_states(game: rlgames.Game, count: int, seed: int) -> list[rlgames.State]:
    rng, states = np.random.default_rng(seed), []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, 16)):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state)
    return states


@pytest.mark.parametrize(
    "name, psqt, inputs",
    [  # each game, feature set and PSQT setting once (each network a kernel compiled of its own); the product slow
        ("tic_tac_toe", 0, ()),
        ("connect_four", 0, ()),
        ("othello", 0, ()),
        pytest.param("chess", 0, (), marks=pytest.mark.slow),
        pytest.param("connect_four", 1, (), marks=pytest.mark.slow),
        pytest.param("chess", 1, ("pieces", "threats"), marks=pytest.mark.slow),
        ("chess", 1, ("pieces", "threats", "positional")),
    ],
)
def test_compiled_value_equals_the_torch_network(name: str, psqt: int, inputs: tuple[str, ...]) -> None:
    """The same values compiled and in torch, from the observation or the sparse features (connect
    four, othello, chess; chess's threat inputs too), with or without the PSQT unit. Othello's first
    layer is compiled in blocks (`BLOCK_BYTES`), and two of its patterns often share a row (an input of
    2 in torch)."""
    game = rlgames.load_game(name)
    network = build_network(game, "nnue", seed=1, accumulator=16, hidden=8, psqt=psqt, inputs=inputs)
    evaluator = NNUEvaluator(network, game)
    states = random_states(game, 40, seed=2)
    compiled = np.array([evaluator.kernel(state.compact) for state in states])
    torch_values, _ = evaluator.evaluate_batch(states)
    np.testing.assert_allclose(compiled, torch_values, atol=1e-5)
    assert np.ptp(compiled) > 0  # the positions are told apart


def _c4_line_patterns(state: rlgames.State, player: int) -> set[int]:
    """Connect four's line features from the printed board: every 4-cell line in (column, row)
    coordinates, each cell 2 for ``player``'s stone, 3 for the opponent's, 1 for the lowest empty
    cell of its column, 0 for an empty cell above it, read as a base-4 number."""
    grid = state.board_grid()[::-1]  # [row from the bottom, column]: 1 player 0's stone, 2 player 1's
    lowest = [next((r for r in range(6) if grid[r, c] == 0), 6) for c in range(7)]

    def cell(col: int, row: int) -> int:
        if grid[row, col]:
            return 2 if grid[row, col] == player + 1 else 3
        return int(lowest[col] == row)

    lines = [
        [(c + i * dc, r + i * dr) for i in range(4)]
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
        for c in range(7)
        for r in range(6)
        if 0 <= c + 3 * dc < 7 and 0 <= r + 3 * dr < 6
    ]
    assert len(lines) == 69
    return {256 * k + sum(cell(*xy) << 2 * i for i, xy in enumerate(line)) for k, line in enumerate(lines)}


def test_connect_four_features_are_line_patterns() -> None:
    """Connect four's NNUE inputs are the n-tuple network's: one of 256 patterns per line of four
    (a stone of either side, an empty cell playable now or not), checked against a reference built
    from the printed board, seen by either player."""
    from rlgames.games.connect_four.features import NUM_FEATURES, features

    game = rlgames.load_game("connect_four")
    assert game.feature_sets["lines"].inputs == NUM_FEATURES == 69 * 256
    active = np.zeros(NUM_FEATURES, dtype=np.int64)
    for state in random_states(game, 40, seed=9):
        for player in (0, 1):
            assert set(active[: features(state.compact, player, active)].tolist()) == _c4_line_patterns(state, player)


@pytest.mark.parametrize(
    "name, inputs",
    [  # chess's pieces alone and with threats slow: the three sets together update each of them
        ("tic_tac_toe", ()),
        ("connect_four", ()),
        ("othello", ()),
        pytest.param("chess", (), marks=pytest.mark.slow),
        pytest.param("chess", ("pieces", "threats"), marks=pytest.mark.slow),
        ("chess", ("pieces", "threats", "positional")),
    ],
)
def test_incremental_accumulators_follow_a_game_as_the_full_kernel_does(name: str, inputs: tuple[str, ...]) -> None:
    """Updated move by move from the root's (chess: from the pieces a move changes; connect four and
    othello: from the difference of two positions' active features, othello's rows active twice
    matched one to one; else from the observations' differences), and through a null move, the
    accumulators give the full kernel's values, from the side to move at every ply (chess's threat
    inputs added at each evaluation)."""
    game = rlgames.load_game(name)
    network = build_network(game, "nnue", seed=5, accumulator=16, hidden=8, psqt=int(name == "chess"), inputs=inputs)
    evaluator = NNUEvaluator(network, game, incremental=True)
    incremental = evaluator.incremental
    rng = np.random.default_rng(6)
    for _ in range(4):
        state = game.new_initial_state()
        accumulators = np.zeros((game.max_game_length + 2, 2, incremental.width), dtype=np.float32)
        incremental.refresh(state.compact, accumulators, 0)
        ply = 0
        while not state.is_terminal():
            assert incremental.value(state.compact, accumulators, ply) == pytest.approx(
                evaluator.kernel(state.compact), abs=1e-5
            )
            child = state.apply(int(rng.choice(state.legal_actions())))
            incremental.update(state.compact, child.compact, accumulators, ply)
            state, ply = child, ply + 1
        assert ply > 4
    if name == "chess":  # a null move changes no input, only the side to move (so the view)
        from rlgames.games.chess.rules import null_move

        state = game.state_from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        accumulators = np.zeros((2, 2, incremental.width), dtype=np.float32)
        incremental.refresh(state.compact, accumulators, 0)
        passed = null_move(state.compact)
        incremental.update(state.compact, passed, accumulators, 0)
        np.testing.assert_array_equal(accumulators[0], accumulators[1])
        assert incremental.value(passed, accumulators, 1) == pytest.approx(evaluator.kernel(passed), abs=1e-5)


def test_a_network_reading_threats_is_saved_and_loaded_and_refused_where_the_game_has_none(tmp_path) -> None:
    """A chess network reading the threat inputs keeps them through its checkpoint, by name (the loaded
    evaluator's compiled value is the saved one's); a network of a game without such a set, or whose sets
    are in the wrong order, is refused in one line."""
    from rlgames.models.checkpoint import load_network, save_checkpoint

    game = rlgames.load_game("chess")
    network = build_network(game, "nnue", seed=3, accumulator=8, hidden=4, inputs=("pieces", "threats"))
    assert network.config.observation_shape == (768 + 1280,)
    assert network.config.describe() == "nnue(accumulator=8, hidden=4, psqt=0, inputs=pieces+threats)"
    path = save_checkpoint(tmp_path / "threats.nnue.pt", network=network, game=game)
    loaded = NNUEvaluator(load_network(path, game=game)[0], game)
    state = game.state_from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert loaded.kernel(state.compact) == NNUEvaluator(network, game).kernel(state.compact)
    assert load_network(path, game=game)[0].config.args.inputs == ("pieces", "threats")
    with pytest.raises(ValueError, match="connect_four has no feature set 'threats'; its sets: lines"):
        build_network(rlgames.load_game("connect_four"), "nnue", inputs=("lines", "threats"))
    with pytest.raises(ValueError, match="first, then the sets it recomputes"):
        NNUEvaluator(
            build_network(game, "nnue", accumulator=8, hidden=4, inputs=("threats", "pieces")), game, incremental=True
        ).incremental


def test_a_checkpoint_saved_with_a_threats_level_reads_the_named_sets() -> None:
    """The shipped chess network was saved when a network's inputs were a level, ``threats=2``: it reads
    the game's first three sets, by name."""
    from rlgames.models.checkpoint import load_checkpoint

    info = load_checkpoint(Path(__file__).resolve().parents[1] / "checkpoints" / "chess.nnue.pt")
    assert info.network.args.inputs == ("pieces", "threats", "positional")
    assert info.network.observation_shape == (768 + 1280 + 448,)


def test_an_nnue_is_updated_move_by_move_by_default_where_the_game_lists_changes() -> None:
    chess, connect_four = rlgames.load_game("chess"), rlgames.load_game("connect_four")
    for game, updated in ((chess, True), (connect_four, False)):
        network = build_network(game, "nnue", accumulator=16, hidden=4)
        assert (NNUEvaluator(network, game).incremental is not None) == updated
        assert NNUEvaluator(network, game, incremental=True).incremental is not None
        assert NNUEvaluator(network, game, incremental=False).incremental is None


@pytest.mark.slow  # two searches to compile (50 s); the accumulators' kernels are checked above
def test_alphabeta_with_incremental_accumulators_finds_the_full_kernels_values() -> None:
    """The same search, the NNUE updated move by move or summed at every leaf: the same values (up to
    float32 rounding) and moves, the incremental one without a call to the full kernel."""
    game = rlgames.load_game("connect_four")
    network = build_network(game, "nnue", seed=7, accumulator=16, hidden=8)
    full, incremental = NNUEvaluator(network, game), NNUEvaluator(network, game, incremental=True)
    assert full.incremental is None and incremental.incremental is not None
    for moves in ("4453", "3344", "44444"):
        state = game.state_from_moves(moves)
        a = AlphaBeta(full, AlphaBetaConfig(depth=6)).search(state)
        b = AlphaBeta(incremental, AlphaBetaConfig(depth=6)).search(state)
        assert b.value == pytest.approx(a.value, abs=1e-5) and b.action == a.action
        assert b.stats.extra["evaluations"] > 0


def test_a_first_layer_over_a_megabyte_compiles_as_constants_that_numba_can_cache() -> None:
    """Othello's 55,744 rows (3.6 MB at width 16) are frozen in blocks of under 1 MB: numba would read a
    larger array by its address, a "dynamic global" that no on-disk cache can keep (every process
    would compile the search anew)."""
    from rlgames.evaluators.nnue import BLOCK_BYTES, _blocks

    game = rlgames.load_game("othello")
    network = build_network(game, "nnue", seed=3, accumulator=16, hidden=8)
    w1 = network.export()[0]
    blocks, shift = _blocks(w1)
    assert w1.nbytes > 3 * BLOCK_BYTES and all(block.nbytes <= BLOCK_BYTES for block in blocks)
    np.testing.assert_array_equal(np.concatenate(blocks), w1)
    assert all(len(block) == 1 << shift for block in blocks[:-1])
    kernel = NNUEvaluator(network, game).kernel
    kernel(game.new_initial_state().compact)
    assert [result.library.has_dynamic_globals for result in kernel.overloads.values()] == [False]
