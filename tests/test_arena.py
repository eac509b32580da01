"""The arena: openings, colour swapping, reproducibility (serial and parallel), SPRT, files and CLI."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import rlgames
from rlgames.arena import (ArenaConfig, SprtConfig, log_to_tensorboard, openings, resolve_anchor, run_arena,
                           write_results)
from rlgames.arena.openings import file_openings, random_openings
from rlgames.arena.report import console_report, markdown_report
from rlgames.cli import main

TTT = rlgames.load_game("tic_tac_toe")


def outcomes(result) -> list[tuple]:
    return [(r.game.first, r.game.second, r.game.opening, r.score, r.plies) for r in result.records]


def read_games_csv(folder: Path) -> list[dict[str, str]]:
    with open(folder / "games.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_random_openings_do_not_repeat_until_all_are_used():
    lines = random_openings(TTT, 100, 2, np.random.default_rng(0))
    assert len(set(lines[:72])) == 72  # 9 * 8 lines of two plies
    assert all(len(line) == 2 for line in lines) and len(set(lines)) == 72


def test_sampled_openings_are_distinct_and_unfinished(monkeypatch):
    monkeypatch.setattr(openings, "ENUMERATION_LIMIT", 10)
    lines = random_openings(rlgames.load_game("connect_four"), 30, 4, np.random.default_rng(1))
    assert len(set(lines)) == 30 and all(len(line) == 4 for line in lines)


def test_opening_file_is_read_in_the_games_notation(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# two openings\nb2 a1\n\na1, c3\n")
    assert file_openings(TTT, str(path), 3) == [(4, 0), (0, 8), (4, 0)]
    path.write_text("b2 b2\n")
    with pytest.raises(ValueError, match="line 1"):
        file_openings(TTT, str(path), 1)


def test_every_opening_is_played_with_both_colourings(tmp_path):
    result = run_arena(ArenaConfig("tic_tac_toe", ("random", "solver", "random(seed=2)"), games=6, seed=4))
    write_results(result, tmp_path)
    rows = read_games_csv(tmp_path)
    assert len(rows) == 3 * 6
    by_opening = defaultdict(list)
    for row in rows:
        by_opening[(frozenset((row["first"], row["second"])), row["opening_index"])].append(row)
    assert len(by_opening) == 3 * 3
    for games in by_opening.values():
        assert len(games) == 2
        assert (games[0]["first"], games[0]["second"]) == (games[1]["second"], games[1]["first"])
        assert games[0]["opening"] == games[1]["opening"] and len(games[0]["opening"].split()) == 2
    assert len({row["opening"] for row in rows if row["opening_index"] in "012"}) == 3  # no repeats


def test_same_seed_same_games_and_another_seed_other_games():
    config = ArenaConfig("tic_tac_toe", ("random", "random"), games=10, seed=7)
    first = run_arena(config)
    assert outcomes(first) == outcomes(run_arena(config))
    assert outcomes(first) != outcomes(run_arena(ArenaConfig("tic_tac_toe", ("random", "random"), games=10, seed=8)))


def test_games_are_seeded_by_their_index_alone():
    longer = run_arena(ArenaConfig("tic_tac_toe", ("random", "random"), games=12, seed=5, opening_plies=0))
    shorter = run_arena(ArenaConfig("tic_tac_toe", ("random", "random"), games=6, seed=5, opening_plies=0))
    assert outcomes(shorter) == outcomes(longer)[:6]  # a game does not depend on the games before it
    assert len({(r.score, r.plies) for r in longer.records}) > 1  # same opening and colours, other seeds


def test_chance_outcomes_come_from_the_seed():
    config = ArenaConfig("pig", ("random", "random"), games=4, seed=2)
    first = run_arena(config)
    assert outcomes(first) == outcomes(run_arena(config))
    assert outcomes(first) != outcomes(run_arena(ArenaConfig("pig", ("random", "random"), games=4, seed=3)))


def test_parallel_and_serial_runs_give_the_same_results():
    config = ArenaConfig("connect_four", ("random", "random(seed=5)"), games=8, seed=11)
    serial = run_arena(config)
    parallel = run_arena(ArenaConfig("connect_four", ("random", "random(seed=5)"), games=8, seed=11, workers=2))
    assert outcomes(serial) == outcomes(parallel)
    assert serial.elo == parallel.elo and serial.pairs == parallel.pairs


@pytest.mark.parametrize("specs, decision", [(("solver", "random"), "H1"), (("random", "solver"), "H0")])
def test_sprt_stops_a_lopsided_match(specs, decision):
    sprt = SprtConfig(0.0, 50.0, min_games=20)
    result = run_arena(ArenaConfig("tic_tac_toe", specs, games=400, seed=1, sprt=sprt))
    assert result.sprt is not None and result.sprt.decision == decision
    assert 20 <= len(result.records) < 400 and result.sprt.games == len(result.records)
    if decision == "H1":
        assert result.sprt.llr >= sprt.upper_bound > 0
    else:
        assert result.sprt.llr <= sprt.lower_bound < 0
    fewer = 2 * ((len(result.records) - 1) // 2)  # even, and short of the stop
    before = run_arena(ArenaConfig("tic_tac_toe", specs, games=fewer, seed=1, sprt=sprt))
    assert before.sprt.decision is None  # it stopped at the first game after which the test decided


def test_result_files_and_their_structure(tmp_path):
    result = run_arena(ArenaConfig("tic_tac_toe", ("solver", "random"), games=10, seed=2, anchor=1,
                                   anchor_rating=1000.0))
    write_results(result, tmp_path)
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["game"] == {"name": "tic_tac_toe", "params": {}} and data["seed"] == 2
    assert data["settings"]["games_per_pair"] == 10 and data["settings"]["anchor"] == "random"
    solver, random = data["players"]
    assert solver["spec"] == "solver" and random["elo"] == 1000.0
    assert solver["elo_lower"] < solver["elo"] < solver["elo_upper"] and solver["elo"] > 1000.0
    (pair,) = data["pairs"]
    assert pair["players"] == ["solver", "random"] and pair["wins"] + pair["draws"] + pair["losses"] == 10
    assert pair["score_lower"] <= pair["score"] <= pair["score_upper"]
    assert len(read_games_csv(tmp_path)) == data["games_played"] == 10
    report = (tmp_path / "report.md").read_text()
    assert "| 1 | solver |" in report and "| solver vs random |" in report
    for name in ("elo.png", "scores.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tensorboard_logs_the_elo_values(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = run_arena(ArenaConfig("tic_tac_toe", ("solver", "random(seed=1)"), games=4, seed=0))
    log_to_tensorboard(result, tmp_path, step=3)
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert "arena/elo/random_seed=1_" in events.Tags()["scalars"]
    (scalar,) = events.Scalars("arena/elo/random_seed=1_")
    assert scalar.step == 3 and scalar.value == pytest.approx(result.elo.ratings[1])


def test_anchor_and_settings_are_checked():
    assert resolve_anchor("1", ["random", "solver"]) == 1
    assert resolve_anchor("solver()", ["random", "solver"]) == 1
    assert resolve_anchor("random#2", ["random", "random"]) == 1
    with pytest.raises(ValueError, match="anchor 'mcts'"):
        resolve_anchor("mcts", ["random", "solver"])
    with pytest.raises(ValueError, match="even"):
        ArenaConfig("tic_tac_toe", ("random", "solver"), games=5)
    with pytest.raises(ValueError, match="exactly two"):
        ArenaConfig("tic_tac_toe", ("random", "solver", "random"), sprt=SprtConfig(0, 10))


def test_cli_arena_prints_the_ranking_and_writes_the_files(tmp_path, capsys):
    openings_file = tmp_path / "openings.txt"
    openings_file.write_text("4\n44 0\n")
    out = tmp_path / "out"
    assert main(["arena", "connect_four", "random", "random(seed=1)", "--games", "4", "--seed", "3",
                 "--openings", str(openings_file), "--out", str(out), "--anchor", "random(seed=1)",
                 "--tensorboard", str(tmp_path / "tb")]) == 0
    printed = capsys.readouterr().out
    assert "anchored at random(seed=1)" in printed and "95% interval" in printed and "W  D  L" in printed
    assert [row["opening"] for row in read_games_csv(out)] == ["4", "4", "44", "44"]
    assert {p.name for p in out.iterdir()} == {"results.json", "games.csv", "report.md", "elo.png", "scores.png"}
    assert any((tmp_path / "tb").iterdir())


def test_cli_arena_sprt_and_errors(capsys):
    assert main(["arena", "tic_tac_toe", "solver", "random", "--games", "200", "--sprt", "0,50"]) == 0
    assert "H1 accepted" in capsys.readouterr().out
    assert main(["arena", "tic_tac_toe", "random", "random(sed=1)", "--games", "2", "--workers", "2"]) == 2
    assert "no parameter 'sed'" in capsys.readouterr().err
    assert main(["arena", "tic_tac_toe", "random", "solver", "--games", "3"]) == 2
    assert "even" in capsys.readouterr().err


def test_cli_arena_help_documents_the_agent_specs(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["arena", "--help"])
    assert raised.value.code == 0
    text = capsys.readouterr().out
    assert "--opening-plies" in text and "accepted agent specs" in text and "alphabeta(depth=6, eval=heuristic)" in text


@pytest.mark.slow  # compiles the alpha-beta search (about 10 s)
def test_budgets_are_matched_through_the_specs():
    specs = ("alphabeta(depth=2)", "alphabeta(nodes=200)", "random")
    result = run_arena(ArenaConfig("tic_tac_toe", specs, games=4, seed=1))
    assert outcomes(result) == outcomes(run_arena(ArenaConfig("tic_tac_toe", specs, games=4, seed=1)))
    assert result.elo.ratings[2] < min(result.elo.ratings[:2])  # the searchers beat the random player


def test_the_report_warns_when_openings_repeat() -> None:
    """Tic-tac-toe has 9 one-ply openings: 12 per pair repeat some, 8 do not."""
    repeated = run_arena(ArenaConfig("tic_tac_toe", ("solver", "solver"), games=24, seed=0, opening_plies=1))
    assert "note: only 9 distinct openings of 1 plies for 12 openings per pair" in console_report(repeated)
    assert "only 9 distinct openings" in markdown_report(repeated)
    distinct = run_arena(ArenaConfig("tic_tac_toe", ("solver", "solver"), games=16, seed=0, opening_plies=1))
    assert "distinct openings" not in console_report(distinct) + markdown_report(distinct)


def test_cli_arena_games_csv_is_the_same_with_one_or_two_workers(tmp_path):
    """The arena's promise (README: "the same numbers on every run and with any --workers"), pinned for
    network agents too: ``python -m rlgames arena`` with one and with two worker processes writes the
    same games.csv, byte for byte. The two runs go side by side: most of their time is each process
    compiling the searches."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    model = root / "checkpoints" / "tic_tac_toe.pt"
    specs = [f"mcts(simulations=20, model={model})", f"alphabeta(depth=2, model={model})", "random"]
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"workers-{workers}"
        command = [sys.executable, "-m", "rlgames", "arena", "tic_tac_toe", *specs, "--games", "4", "--seed", "3",
                   "--opening-plies", "1", "--workers", str(workers), "--no-progress", "--out", str(out)]
        runs[out] = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    files = []
    for out, process in runs.items():
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, output.decode()
        files.append((out / "games.csv").read_bytes())
    serial = list(csv.DictReader(files[0].decode().splitlines()))
    assert len(serial) == 3 * 4 and len({row["result"] for row in serial}) > 1  # every pair, mixed results
    assert files[0] == files[1]  # games.csv holds no wall-clock times (results.json does)
