"""benchmarks/eval_go_rollouts.py measures what it says: positions drawn after each recorded game's opening
with that game's black result, and a policy's mean playout result from them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import rlgames
from rlgames.agents.mcts import playout_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from eval_go_rollouts import main, playout_means, sample_positions  # noqa: E402
from journal_checks import random_game, write_journal  # noqa: E402


def test_positions_come_after_the_opening_with_the_games_black_result(tmp_path):
    go5 = rlgames.load_game("go", board_size=5)
    moves = [12, 6, 18, 8, 16]  # C3 B2 D4 D2 B4
    path = write_journal(tmp_path / "games.jsonl", "go", {"board_size": 5}, [(moves, 1.0), (moves[:3], -1.0)])
    positions = sample_positions(go5, [path], 20, np.random.default_rng(0))
    assert len(positions) == 40
    for state, black in positions[:20]:
        assert black == 1.0 and 2 <= state.move_number() < len(moves)
    assert {black for _, black in positions[20:]} == {-1.0}


def test_the_mean_playout_result_is_black_s_and_counts_every_playout():
    """Komi of -30.5 on 5x5 makes every playout a black win, and +30.5 a white one: means of exactly +-1."""
    for komi, expected in ((-30.5, 1.0), (30.5, -1.0)):
        game = rlgames.load_game("go", board_size=5, komi=komi)
        positions = [(game.state_from_moves("C3 B2"), 1.0), (game.state_from_moves("C3"), -1.0)]
        for policy in ("light", "patterns"):
            assert playout_means(playout_kernel(game, policy), positions, 8, seed=0).tolist() == [expected, expected]


def test_the_report_pairs_each_policy_with_the_first(tmp_path, capsys):
    go5 = rlgames.load_game("go", board_size=5)
    path = write_journal(tmp_path / "games.jsonl", "go", {"board_size": 5}, [random_game(go5, s) for s in range(4)])
    main([path, "--board-size", "5", "--per-game", "3", "--playouts", "4", "--json", str(tmp_path / "r.json")])
    rows = json.loads((tmp_path / "r.json").read_text())["policies"]
    assert [row["policy"] for row in rows] == ["light", "patterns"]
    assert rows[0]["difference"] == 0.0 and 0.0 <= rows[1]["squared_error"] <= 4.0
    assert "| patterns |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([])
