"""Go's learned rollout policy (AlphaGo's p_pi): shape classes, the candidates and their local flags, the
compiled draw held to the reference softmax, the playout, the weights file, the trainer, and the agent."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.games.go import playout
from rlgames.games.go.rollout_policy import (
    CAPTURE,
    ESCAPE,
    NUM_SHAPES,
    POLICY,
    RESPONSE,
    SHAPE_CLASS,
    RolloutWeights,
    code_gammas,
    make_learned_playout,
    mask_gammas,
    move_weights,
    new_gammas,
    play_kept,
    refresh_all,
    sample_move,
)
import torch

from journal_checks import random_game, write_journal
from rlgames.jit.rng import new_rng_state
from rlgames.train import rollout as trainer

GO9 = rlgames.load_game("go", board_size=9)
CELLS = 8
MIRROR = [2, 1, 0, 4, 3, 7, 6, 5]
"""The cells of a 3x3 code (NW N NE W E SW S SE) mirrored left to right."""
TURN = [2, 4, 7, 1, 6, 0, 3, 5]
"""The cell each cell moves to when the block turns a quarter clockwise."""


def permuted(code: int, moves_to: list[int]) -> int:
    return sum(((code >> (2 * i)) & 3) << (2 * moves_to[i]) for i in range(CELLS))


def test_a_shape_is_one_class_whichever_way_it_faces():
    rng = np.random.default_rng(0)
    for code in map(int, rng.integers(4**8, size=300)):
        assert SHAPE_CLASS[permuted(code, TURN)] == SHAPE_CLASS[code]
        assert SHAPE_CLASS[permuted(code, MIRROR)] == SHAPE_CLASS[code]
    own_west, enemy_west = 1 << 6, 2 << 6
    assert SHAPE_CLASS[own_west] != SHAPE_CLASS[enemy_west]  # the colours are not folded together
    assert 4**8 / 8 < NUM_SHAPES < 4**8 / 7  # a few shapes are their own turn or mirror


def flags_at(moves: str) -> dict[str, int]:
    """The local flags of every candidate after ``moves``, by point name."""
    state = GO9.state_from_moves(moves)
    last = state.string_to_action(moves.split()[-1])
    actions, _, flags = POLICY.candidates(state, last)
    return {state.action_to_string(int(a)): int(f) for a, f in zip(actions, flags)}


def test_the_local_flags_name_the_response_the_escape_and_the_capture():
    escape = flags_at("C5 D5 E5 pass D4")  # black's D4 leaves white's D5 in atari, its liberty D6
    assert escape["D6"] == ESCAPE
    assert {p for p, f in escape.items() if f & RESPONSE} == {"C3", "D3", "E3", "C4", "E4"}
    assert sum(f != 0 for f in escape.values()) == 6
    capture = flags_at("C4 pass E4 pass D3 D4")  # white's D4 stands in atari: black captures at D5
    assert capture["D5"] == CAPTURE | RESPONSE
    state = GO9.state_from_moves("C4 pass")
    assert not POLICY.candidates(state, GO9.num_actions - 1)[2].any()  # after a pass: no local point


def test_the_candidates_are_the_light_policys_moves():
    state = GO9.state_from_moves("E5 D5 D4 E4 F4 C5 E3")
    actions, shapes, _ = POLICY.candidates(state, state.string_to_action("E3"))
    board = playout.new_board()
    playout.load(board, state.compact)
    n = 9
    playable = [a for a in range(n * n) if playout.is_playable(board, (a // n + 1) * (n + 2) + a % n + 1, 2)]
    empty = [a for a in range(n * n) if state.board_grid()[::-1].ravel()[a] == 0]
    assert sorted(actions.tolist()) == [a for a in empty if a in playable] and len(actions) == 81 - 7
    assert len(set(shapes.tolist())) > 5


def random_position(seed: int, plies: int):
    rng = np.random.default_rng(seed)
    state, last = GO9.new_initial_state(), None
    for _ in range(plies):
        legal = state.legal_actions()[:-1]  # no pass
        last = int(legal[rng.integers(len(legal))])
        state = state.apply(last)
    return state, last


@pytest.mark.parametrize("seed, plies", [(0, 0), (1, 25), (2, 60)])
def test_the_compiled_draw_follows_the_reference_softmax(seed, plies):
    """The draw that the playout makes (shape weights kept per point, local points apart, unplayable points
    set aside) against the probabilities of `move_weights`, which scores every candidate from scratch."""
    state, last = random_position(seed, plies)
    rng = np.random.default_rng(seed)
    shape_gamma, local_gamma = np.exp(rng.normal(0.0, 1.0, NUM_SHAPES)), np.exp(np.array([1.0, 2.0, 3.0]))
    board = playout.new_board()
    playout.load(board, state.compact)
    colour = state.current_player() + 1
    last_point = playout.NO_POINT if last is None else (last // 9 + 1) * 11 + last % 9 + 1
    points, weights = np.empty(81, dtype=np.int64), np.empty(81)
    count = move_weights(board, colour, last_point, shape_gamma, local_gamma, points, weights)
    expected = dict(zip(points[:count].tolist(), (weights[:count] / weights[:count].sum()).tolist()))
    gammas, marks = new_gammas(), np.full(playout.MAX_PADDED, -1, dtype=np.int64)
    refresh_all(board, gammas, np.empty(playout.MAX_PADDED, dtype=np.int64), code_gammas(shape_gamma))
    draws, generator = 40_000, new_rng_state(seed)
    drawn = np.zeros(playout.MAX_PADDED, dtype=np.int64)
    for stamp in range(draws):
        drawn[sample_move(board, gammas, colour, last_point, generator, mask_gammas(local_gamma), marks, stamp)] += 1
    assert set(np.flatnonzero(drawn).tolist()) <= set(expected)
    for p, probability in expected.items():
        assert abs(drawn[p] / draws - probability) < 5 * np.sqrt(probability * (1 - probability) / draws) + 1e-3


def test_the_codes_and_weights_kept_move_by_move_equal_those_from_scratch():
    """`play_kept` through a random game with captures (the playout's bookkeeping) against `refresh_all`
    from scratch after every move: the 3x3 code of every point, and the shape weights and their sums."""
    rng = np.random.default_rng(4)
    tables = code_gammas(np.exp(rng.normal(0.0, 1.0, NUM_SHAPES)))
    board, fresh = playout.new_board(), playout.new_board()
    playout.load(board, GO9.new_initial_state().compact)
    gammas, codes = new_gammas(), np.empty(playout.MAX_PADDED, dtype=np.int64)
    refresh_all(board, gammas, codes, tables)
    interior = [(r + 1) * 11 + c + 1 for r in range(9) for c in range(9)]
    colour, captures = playout.BLACK, 0
    for _ in range(300):
        empties = [int(p) for p in board[playout._EMPTIES, : board[playout._META, playout._EMPTY_COUNT]]]
        playable = [p for p in empties if playout.is_playable(board, p, colour)]
        if not playable:
            break
        before = len(empties)
        play_kept(board, gammas, codes, int(rng.choice(playable)), colour, tables)
        captures += board[playout._META, playout._EMPTY_COUNT] - (before - 1)
        fresh[:] = board
        expected_gammas, expected_codes = new_gammas(), np.empty(playout.MAX_PADDED, dtype=np.int64)
        refresh_all(fresh, expected_gammas, expected_codes, tables)
        assert codes[interior].tolist() == expected_codes[interior].tolist()
        np.testing.assert_allclose(gammas, expected_gammas, rtol=1e-9, atol=1e-9)
        colour = 3 - colour
    assert captures > 10


def write_weights(path, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    RolloutWeights(shape=rng.normal(0.0, 0.5, NUM_SHAPES), local=np.array([0.5, 1.0, 2.0])).save(path)
    return str(path)


def test_learned_playouts_play_legal_moves_and_score_as_the_rules(tmp_path):
    kernel = make_learned_playout(write_weights(tmp_path / "w.npz"))
    start = GO9.new_initial_state().apply(40)
    finished = 0
    for seed in range(10):
        moves = np.zeros(400, dtype=np.int64)
        end, plies = kernel(start.compact, new_rng_state(seed), np.empty(1, np.int64), np.empty(1), moves)
        state, played = start, 0
        for code in moves[:plies]:
            if state.is_terminal():
                break  # superko, which playouts leave out
            assert state.current_player() == code & 1 and code >> 1 in state.legal_actions()
            state, played = state.apply(int(code >> 1)), played + 1
        if played == plies:
            finished += 1
            assert state.is_terminal() and state.returns()[0] == end[1]
    assert finished >= 5


def test_the_weights_file_reads_back_and_a_foreign_file_is_refused(tmp_path):
    path = write_weights(tmp_path / "w.npz", seed=3)
    weights = RolloutWeights.load(path)
    assert weights.shape.shape == (NUM_SHAPES,) and weights.local.tolist() == [0.5, 1.0, 2.0]
    np.savez(tmp_path / "other.npz", shape=np.zeros(3))
    with pytest.raises(ValueError, match="not a go rollout policy"):
        RolloutWeights.load(tmp_path / "other.npz")
    with pytest.raises(ValueError, match="cannot read"):
        RolloutWeights.load(tmp_path / "missing.npz")


def test_mcts_plays_a_learned_rollout_policy_by_its_file(tmp_path):
    path = write_weights(tmp_path / "w.npz")
    agent = rlgames.load_agent(f"mcts(simulations=200, rollout={path}, rave=true)", GO9)
    assert agent.act(GO9.new_initial_state()) in GO9.new_initial_state().legal_actions()
    with pytest.raises(ValueError, match="no such file"):
        rlgames.load_agent(f"mcts(rollout={tmp_path / 'none.npz'})", GO9)
    with pytest.raises(ValueError, match="unknown rollout"):
        rlgames.load_agent("mcts(rollout=weights.npz)", rlgames.load_game("connect_four"))


def test_the_trainer_fits_the_moves_of_its_games(tmp_path, capsys):
    out = tmp_path / "go5.npz"
    assert trainer.main(["go", "-p", "board_size=5", "--preset", "smoke", "--out", str(out)]) == 0
    weights = RolloutWeights.load(out)
    assert np.abs(weights.shape).max() > 0  # fitted, not the zeros it starts from
    report = capsys.readouterr().out
    assert "cross-entropy" in report and "top-1" in report
    assert trainer.main(["connect_four", "--preset", "smoke", "--out", str(tmp_path / "c4.npz")]) == 2
    assert "no learnable rollout policy" in capsys.readouterr().err


def test_the_fit_prefers_the_moves_played():
    """Two positions whose played move has a shape of its own: the fit puts those shapes above the others."""
    moves = trainer.Moves(
        shapes=np.array([0, 1, 2, 0, 1, 3]),
        flags=np.zeros(6, dtype=np.int64),
        position=np.array([0, 0, 0, 1, 1, 1]),
        chosen=np.array([2, 5]),
        game_ids=np.array([0, 1]),
    )
    shape, local = trainer.fit(moves, 4, 3, l2=1e-3)
    assert shape[2] > shape[0] and shape[3] > shape[1] and not local.any()
    fitted = float(trainer.cross_entropy(moves, torch.as_tensor(shape), torch.as_tensor(local)))
    assert fitted < trainer.uniform_cross_entropy(moves) == pytest.approx(np.log(3))


def test_the_trainer_fits_the_moves_of_recorded_matches(tmp_path, capsys):
    go5 = rlgames.load_game("go", board_size=5)
    journal = write_journal(tmp_path / "games.jsonl", "go", {"board_size": 5}, [random_game(go5, s) for s in range(6)])
    out = tmp_path / "go5.npz"
    assert trainer.main(["go", "-p", "board_size=5", "--journal", journal, "--out", str(out)]) == 0
    assert np.abs(RolloutWeights.load(out).shape).max() > 0
    assert f"fitted to 6 games of {journal}" in capsys.readouterr().out
    games, openings = trainer.journal_games(go5, [journal])
    assert openings == [2] * 6 and games[0] == random_game(go5, 0)[0]
    scaled = tmp_path / "scaled.npz"
    assert (
        trainer.main(["go", "-p", "board_size=5", "--journal", journal, "--set", "local_scale=2", "--out", str(scaled)])
        == 0
    )
    assert "times 2" in capsys.readouterr().out
    fitted, doubled = RolloutWeights.load(out), RolloutWeights.load(scaled)
    np.testing.assert_allclose(doubled.local, 2 * fitted.local)
    assert doubled.shape.tolist() == fitted.shape.tolist() and np.abs(fitted.local).max() > 0


def test_the_trainer_refuses_a_journal_of_another_game_or_no_journal_in_one_line(tmp_path, capsys):
    nine = write_journal(tmp_path / "nine.jsonl", "go", {"board_size": 9}, [([40, 41, 42], 1.0)] * 3)
    assert trainer.main(["go", "-p", "board_size=5", "--journal", nine, "--out", str(tmp_path / "w.npz")]) == 2
    assert "holds games of go {'board_size': 9}" in capsys.readouterr().err
    (tmp_path / "text.jsonl").write_text("not json\n")
    assert trainer.main(["go", "--journal", str(tmp_path / "text.jsonl"), "--out", str(tmp_path / "w.npz")]) == 2
    error = capsys.readouterr().err
    assert "is not a match journal" in error and len(error.strip().splitlines()) == 1
    assert not (tmp_path / "w.npz").exists()
