"""Position files, `rlgames analyse` and `rlgames accuracy` against the exact solver and Pons' labels."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from tug import CASH, LEFT, RIGHT, Tug

import rlgames
from rlgames.analysis import Accuracy, Judged, analyse, measure_accuracy, value_sign
from rlgames.arena.positions import (
    PositionLine,
    moves_to_text,
    parse_position_line,
    read_position_file,
)
from rlgames.arena.whole_games import play_whole_games
from rlgames.cli import main
from rlgames.games.connect_four.data import load_pons_set
from rlgames.search.result import SearchResult, SearchStats
from rlgames.solvers import solve

C4 = rlgames.load_game("connect_four")
TTT = rlgames.load_game("tic_tac_toe")


@pytest.fixture(scope="module")
def pons_file(tmp_path_factory):
    """The first 40 positions of Pons' Test_L3_R1, with their scores."""
    try:
        positions = load_pons_set("Test_L3_R1")[:40]
    except FileNotFoundError as error:
        pytest.skip(str(error))
    path = tmp_path_factory.mktemp("pons") / "Test_L3_R1_head"
    path.write_text("".join(f"{p.moves} {p.score}\n" for p in positions))
    return path


def test_position_lines_in_each_notation():
    assert parse_position_line(C4, "4453 -2") == ((3, 3, 4, 2), -2)
    assert parse_position_line(C4, "4453") == ((3, 3, 4, 2), None)
    assert parse_position_line(TTT, "b2 a1, c3") == ((4, 0, 8), None)
    assert moves_to_text(C4, (3, 3, 4, 2)) == "4453" and moves_to_text(TTT, (4, 0)) == "b2 a1"
    with pytest.raises(ValueError, match="Pons"):
        parse_position_line(C4, "4 4 5")
    with pytest.raises(ValueError, match="cannot read move"):
        parse_position_line(TTT, "b2 z9")


def test_bad_line_is_named(tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("4453 1\n4x 0\n")
    with pytest.raises(ValueError, match="line 2"):
        read_position_file(path, C4)


def test_analysis_records_of_the_solver_on_pons_positions(pons_file):
    positions = read_position_file(pons_file, C4)[:10]
    records = list(analyse(C4, rlgames.load_agent("solver", C4), positions))
    assert len(records) == 10
    for position, record in zip(positions, records):
        state = C4.state_from_actions(position.actions)
        assert record["position"] == position.text.split()[0]
        assert record["action"] in solve(state).value_preserving_actions
        assert record["move"] == str(record["action"] + 1)
        assert value_sign(record["value"]) == (position.score > 0) - (position.score < 0)
        assert record["nodes"] >= 1 and set(record) >= {"depth", "time_s", "principal_variation", "to_move"}


@pytest.mark.parametrize("truth", ["labels", "solver"])
def test_solver_is_perfect_and_random_is_not(pons_file, truth):
    positions = read_position_file(pons_file, C4)
    perfect = measure_accuracy(C4, rlgames.load_agent("solver", C4), positions, truth=truth)
    assert (perfect.truth, perfect.positions) == (truth, 40)
    assert perfect.optimal_move_rate == perfect.value_sign_rate == 1.0
    random = measure_accuracy(C4, rlgames.load_agent("random(seed=0)", C4), positions, truth=truth)
    assert random.optimal_move_rate < 1.0 and random.value_sign_rate < 1.0


def test_labels_and_solver_agree_on_which_moves_keep_the_value(pons_file):
    positions = read_position_file(pons_file, C4)
    by_truth = [
        measure_accuracy(C4, rlgames.load_agent("random(seed=3)", C4), positions, truth=truth)
        for truth in ("labels", "solver")
    ]
    assert by_truth[0].optimal_moves == by_truth[1].optimal_moves
    assert by_truth[0].value_signs == by_truth[1].value_signs


def test_accuracy_without_labels_uses_the_solver(tmp_path):
    path = tmp_path / "ttt.txt"
    path.write_text("a1 b2 c3\nb2\n")
    positions = read_position_file(path, TTT)
    accuracy = measure_accuracy(TTT, rlgames.load_agent("solver", TTT), positions)
    assert (accuracy.truth, accuracy.optimal_moves, accuracy.value_signs) == ("solver", 2, 2)
    with pytest.raises(ValueError, match="labels"):
        measure_accuracy(TTT, rlgames.load_agent("solver", TTT), positions, truth="labels")
    with pytest.raises(ValueError, match="no player is to move"):
        measure_accuracy(TTT, rlgames.load_agent("solver", TTT), [PositionLine(1, "x", (0, 3, 1, 4, 2))])


def test_cli_analyse_and_accuracy(pons_file, tmp_path, capsys):
    out = tmp_path / "analysis.jsonl"
    assert (
        main(
            [
                "analyse",
                "connect_four",
                "--agent",
                "solver",
                "--positions",
                str(pons_file),
                "--limit",
                "5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5] and all("move" in r for r in records)
    assert main(["accuracy", "connect_four", "--agent", "solver", "--positions", str(pons_file)]) == 0
    printed = capsys.readouterr().out
    assert "truth: labels" in printed and "optimal moves 40/40 = 100.0%" in printed
    assert (
        main(
            [
                "accuracy",
                "connect_four",
                "--agent",
                "random",
                "--positions",
                str(pons_file),
                "--limit",
                "20",
                "--truth",
                "solver",
            ]
        )
        == 0
    )
    assert "optimal moves 20/20" not in capsys.readouterr().out


def test_progress_bars_count_the_positions(pons_file, capsys):
    assert (
        main(
            [
                "accuracy",
                "connect_four",
                "--agent",
                "solver",
                "--positions",
                str(pons_file),
                "--limit",
                "4",
                "--progress",
            ]
        )
        == 0
    )
    bar = capsys.readouterr().err
    assert "0/4" in bar and "4/4" in bar and "position/s" in bar and bar.endswith("\n")
    assert (
        main(
            [
                "accuracy",
                "connect_four",
                "--agent",
                "solver",
                "--positions",
                str(pons_file),
                "--limit",
                "4",
                "--no-progress",
            ]
        )
        == 0
    )
    assert capsys.readouterr().err == ""


class Plays:
    """An agent that always plays ``action`` and values the position at ``value``."""

    def __init__(self, action: int, value: float) -> None:
        self.action, self.value = action, value

    def search(self, state):
        return SearchResult(self.action, self.value, np.zeros(3), (self.action,), SearchStats(nodes=1, depth=1))

    def act(self, state):
        return self.action

    def seed(self, seed):
        pass


@pytest.mark.parametrize("action", [RIGHT, CASH])
def test_a_labelled_win_is_kept_by_a_move_that_wins_any_number_of_points(action):
    """Marker at 2, player 0 to move, labelled a win: stepping into the goal wins 2 points, cashing in
    1; both keep the win (the label is a sign, and so is the mover's result)."""
    position = PositionLine(1, "1 1", (RIGHT, RIGHT), score=1)
    accuracy = measure_accuracy(Tug(), Plays(action, 0.9), [position], truth="labels")
    assert (accuracy.positions, accuracy.optimal_moves, accuracy.value_signs) == (1, 1, 1)
    lost = PositionLine(1, "1 1", (RIGHT, RIGHT), score=-1)  # a wrong label: the move does not keep it
    assert measure_accuracy(Tug(), Plays(action, 0.9), [lost], truth="labels").optimal_moves == 0


def test_a_solver_value_worth_two_points_is_a_win(monkeypatch):
    """The solvers give a return (2 for a 2-point win): accuracy compares its sign. Tug's rules look at
    earlier positions, which the solvers refuse, so a stub stands in for them: player 0 wins 2 points."""
    import rlgames.analysis as analysis

    monkeypatch.setattr(
        analysis,
        "solve",
        lambda state: SimpleNamespace(
            value=2 if state.current_player() == 0 else -2, value_preserving_actions=(RIGHT,)
        ),
    )
    position = PositionLine(1, "1 1", (RIGHT, RIGHT))  # marker at 2, player 0 to move
    solver = measure_accuracy(Tug(), Plays(RIGHT, 0.9), [position], truth="solver")
    assert (solver.optimal_moves, solver.value_signs) == (1, 1)
    labelled = PositionLine(1, "1 1", (RIGHT, RIGHT), score=1)
    threefold = Tug(rule="threefold")  # stepping back repeats a position once: the game goes on
    stepping_back = measure_accuracy(threefold, Plays(LEFT, 0.9), [labelled], truth="labels")  # player 1 loses 2
    assert (stepping_back.optimal_moves, stepping_back.value_signs) == (1, 1)


# --- labelled files, stages and whole games (issue 43) -------------------------------------------------


def _labelled(tmp_path, game, count, *extra):
    path = tmp_path / f"{game}.jsonl"
    argv = ["positions", game, "--out", str(path), "--count", str(count), *extra]
    assert main(argv) == 0
    return path


def test_labelled_positions_carry_the_solvers_truth(tmp_path):
    path = _labelled(tmp_path, "connect_four", 12, "--plies", "24-34", "--seed", "3")
    positions = read_position_file(path, C4)
    assert len(positions) == 12 and len({p.text for p in positions}) == 12
    for position in positions:
        state = C4.state_from_actions(position.actions)
        solution = solve(state)
        assert 24 <= len(position.actions) <= 34
        assert position.value == int(np.sign(solution.value)) and position.score == solution.score
        assert position.keeps == solution.value_preserving_actions


def test_accuracy_from_labels_equals_accuracy_from_the_solver(tmp_path):
    positions = read_position_file(_labelled(tmp_path, "tic_tac_toe", 40, "--plies", "0-7"), TTT)
    labels, solver = (
        measure_accuracy(TTT, rlgames.load_agent("random(seed=2)", TTT), positions, truth=truth)
        for truth in ("labels", "solver")
    )
    assert labels.truth == "labels" and labels.judged == solver.judged
    assert 0 < labels.optimal_moves < 40


@pytest.mark.parametrize("results", ["won,drawn,lost", "won,drawn"])
def test_an_interrupted_file_is_continued_as_if_it_had_not_stopped(tmp_path, monkeypatch, results):
    argv = ["positions", "tic_tac_toe", "--count", "30", "--seed", "5", "--results", results, "--out"]
    assert main([*argv, str(tmp_path / "whole.jsonl")]) == 0
    import rlgames.arena.sampling as sampling

    label, calls = sampling.label, []

    def stops_at_the_tenth(game, actions):
        calls.append(actions)
        if len(calls) == 10:
            raise KeyboardInterrupt
        return label(game, actions)

    monkeypatch.setattr(sampling, "label", stops_at_the_tenth)
    with pytest.raises(KeyboardInterrupt):
        main([*argv, str(tmp_path / "part.jsonl")])
    assert len((tmp_path / "part.jsonl").read_text().splitlines()) < 10
    monkeypatch.setattr(sampling, "label", label)
    assert main([*argv, str(tmp_path / "part.jsonl")]) == 0
    assert (tmp_path / "part.jsonl").read_text() == (tmp_path / "whole.jsonl").read_text()


def test_positions_come_latest_first_within_a_batch(tmp_path):
    plies = [p["plies"] for p in map(json.loads, _labelled(tmp_path, "tic_tac_toe", 25).read_text().splitlines())]
    assert plies == sorted(plies, reverse=True) and plies[0] > plies[-1]


def test_positions_keep_only_the_results_asked_for(tmp_path):
    positions = read_position_file(_labelled(tmp_path, "tic_tac_toe", 20, "--results", "won,drawn"), TTT)
    assert {p.value for p in positions} == {0, 1}


def test_positions_stop_when_the_stages_hold_no_more(tmp_path, capsys):
    path = _labelled(tmp_path, "tic_tac_toe", 20, "--plies", "0-1")  # the empty board and 9 first moves
    assert len(read_position_file(path, TTT)) == 10
    assert "10 labelled positions (the stages hold no more)" in capsys.readouterr().out


def test_accuracy_by_stage_and_decisive():
    judged = (Judged(2, 1, True, True), Judged(9, 0, False, True), Judged(12, -1, True, False))
    judged += (Judged(30, 1, False, False),)
    accuracy = Accuracy("labels", judged)
    assert (accuracy.optimal_moves, accuracy.value_signs, accuracy.optimal_move_rate) == (2, 2, 0.5)
    assert [(label, part.positions, part.optimal_moves) for label, part in accuracy.by_stage()] == [
        ("plies 0-7", 1, 1),
        ("plies 8-15", 2, 1),
        ("plies 24+", 1, 0),
    ]
    assert accuracy.decisive().judged == (judged[0], judged[2], judged[3])
    assert accuracy.drawn().judged == (judged[1],)


def test_cli_accuracy_prints_stages_and_decisive(tmp_path, capsys):
    path = _labelled(tmp_path, "tic_tac_toe", 30)
    capsys.readouterr()
    assert main(["accuracy", "tic_tac_toe", "--agent", "solver", "--positions", str(path), "--stages", "3,6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("all:") and "optimal moves 30/30 = 100.0%" in lines[1]
    assert lines[2].startswith("decisive:") and lines[3].startswith("drawn:")
    assert [line.split(":")[0] for line in lines[4:]] == [
        "plies 0-2",
        "plies 3-5",
        "plies 6+",
    ]


def test_whole_games_against_the_solver(tmp_path):
    positions = read_position_file(_labelled(tmp_path, "tic_tac_toe", 30, "--plies", "1-5"), TTT)
    perfect = play_whole_games(TTT, rlgames.load_agent("solver", TTT), positions)
    assert perfect.kept == len(perfect.games) == 30 - perfect.lost_left_out and perfect.lost_left_out > 0
    random = play_whole_games(TTT, rlgames.load_agent("random", TTT), positions, seed=1)
    assert random.kept < len(random.games)
    kept_positions = [p for p in positions if p.value >= 0]
    for position, played in zip(kept_positions, random.games, strict=True):  # each game ends as it reports
        end = TTT.state_from_actions(position.actions + played.actions)
        mover = TTT.state_from_actions(position.actions).current_player()
        assert end.is_terminal() and played.result == np.sign(end.returns()[mover])
        assert (played.plies, played.value) == (len(position.actions), position.value)
    assert play_whole_games(TTT, rlgames.load_agent("random", TTT), positions, seed=1) == random  # seeded


def test_a_won_position_thrown_away_is_not_kept():
    """x (player 0) to move with two in a row (a1 b1, o on a2 b2): c1 wins, c3 lets o win at c2."""
    position = PositionLine(1, "a1 a2 b1 b2", (0, 3, 1, 4), value=1, keeps=(2,))
    assert play_whole_games(TTT, rlgames.load_agent("solver", TTT), [position]).kept == 1
    thrown = play_whole_games(TTT, Plays(8, 0.0), [position])
    (game,) = thrown.games
    assert (game.value, game.result, game.kept, game.actions[:2]) == (1, -1, False, (8, 5))


def test_cli_whole_games(tmp_path, capsys):
    path = _labelled(tmp_path, "tic_tac_toe", 20, "--results", "won,drawn", "--plies", "2-6")
    capsys.readouterr()
    assert main(["accuracy", "tic_tac_toe", "--agent", "solver", "--positions", str(path), "--whole-games"]) == 0
    out = capsys.readouterr().out
    assert "all:    kept the result in 20/20 = 100.0% of the games" in out and "won:" in out and "drawn:" in out
