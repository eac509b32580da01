"""The arena: openings, colour swapping, reproducibility (serial and parallel), SPRT, files and CLI."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from tug import CASH, LEFT, RIGHT, Tug

import rlgames
from rlgames.arena import (
    ArenaConfig,
    SprtConfig,
    log_to_tensorboard,
    openings,
    resolve_anchor,
    run_arena,
    write_results,
)
from rlgames.arena.elo import fit_elo
from rlgames.arena.match import GameRecord, ScheduledGame, play_game
from rlgames.arena.openings import file_openings, random_openings
from rlgames.arena.report import (
    console_report,
    markdown_report,
    pair_rows,
    ranking_rows,
    results_dict,
)
from rlgames.arena.scores import PairResult, pair_results, score_matrices
from rlgames.arena.tournament import ArenaResult
from rlgames.cli import main
from rlgames.game import Outcome
from rlgames.models.checkpoint import save_checkpoint
from rlgames.models.networks import build_network

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
    result = run_arena(
        ArenaConfig("tic_tac_toe", ("solver", "random"), games=10, seed=2, anchor=1, anchor_rating=1000.0)
    )
    write_results(result, tmp_path)
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["game"] == {"name": "tic_tac_toe", "params": {}, "utility": [-1, 1]} and data["seed"] == 2
    assert data["settings"]["games_per_pair"] == 10 and data["settings"]["anchor"] == "random"
    solver, random = data["players"]
    assert solver["spec"] == "solver" and random["elo"] == 1000.0
    assert solver["elo_lower"] < solver["elo"] < solver["elo_upper"] and solver["elo"] > 1000.0
    (pair,) = data["pairs"]
    assert pair["players"] == ["solver", "random"] and pair["wins"] + pair["draws"] + pair["losses"] == 10
    assert pair["score_lower"] <= pair["score"] <= pair["score_upper"]
    # wins worth one point: the points per game are the score rescaled, 2 * score - 1
    assert pair["points_per_game"] == pytest.approx(2 * pair["score"] - 1)
    assert solver["points_per_game"] == pytest.approx(2 * solver["score"] - 1) == -random["points_per_game"]
    counts = {"-1": pair["losses"], "0": pair["draws"], "1": pair["wins"]}
    assert pair["points"] == {points: games for points, games in counts.items() if games}
    assert data["terminations"] == pair["terminations"] == {"normal": 10}
    rows = read_games_csv(tmp_path)
    assert len(rows) == data["games_played"] == 10
    assert {row["result"] for row in rows} <= {"1-0", "0-1", "1/2-1/2"}
    assert all(row["termination"] == "normal" for row in rows)
    assert all(float(row["first_points"]) == 2 * float(row["first_score"]) - 1 for row in rows)
    report = (tmp_path / "report.md").read_text()
    assert "| 1 | solver |" in report and "| solver vs random |" in report and "points/game (95%)" in report
    assert "terminations:" not in report  # every game ended normally
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
    assert (
        main(
            [
                "arena",
                "connect_four",
                "random",
                "random(seed=1)",
                "--games",
                "4",
                "--seed",
                "3",
                "--openings",
                str(openings_file),
                "--out",
                str(out),
                "--anchor",
                "random(seed=1)",
                "--tensorboard",
                str(tmp_path / "tb"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "anchored at random(seed=1)" in printed and "95% interval" in printed and "W  D  L" in printed
    assert [row["opening"] for row in read_games_csv(out)] == ["4", "4", "44", "44"]
    files = {"results.json", "games.csv", "games.jsonl", "report.md", "elo.png", "scores.png"}
    assert {p.name for p in out.iterdir()} == files  # games.jsonl: the journal, written as the games ended
    assert any((tmp_path / "tb").iterdir())


def test_cli_arena_sprt_and_errors(capsys):
    assert main(["arena", "tic_tac_toe", "solver", "random", "--games", "200", "--sprt", "0,50"]) == 0
    assert "H1 accepted" in capsys.readouterr().out
    assert main(["arena", "tic_tac_toe", "random", "random(sed=1)", "--games", "2", "--workers", "2"]) == 2
    assert "no parameter 'sed'" in capsys.readouterr().err
    assert main(["arena", "tic_tac_toe", "random", "solver", "--games", "3"]) == 2
    assert "even" in capsys.readouterr().err


def test_cli_arena_plays_the_board_its_checkpoints_were_trained_on(tmp_path, capsys):
    go9 = rlgames.load_game("go", board_size=9)
    small, large = tmp_path / "go9.pt", tmp_path / "go7.pt"
    save_checkpoint(small, network=build_network(go9, blocks=1, channels=8, seed=0), game=go9)
    go7 = rlgames.load_game("go", board_size=7)
    save_checkpoint(large, network=build_network(go7, blocks=1, channels=8, seed=0), game=go7)
    argv = ["arena", "go", f"policy(model={small})", "random", "--games", "2", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "r")]) == 0
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["game"]["params"]["board_size"] == 9  # not go's default 19x19
    capsys.readouterr()
    assert main([*argv, "-p", "board_size=7"]) == 2  # -p wins, and loading says why it cannot
    assert "trained for go with params {'board_size': 9" in capsys.readouterr().err
    # two checkpoints of different boards: no guess, the first that does not fit go's default is named
    assert main(["arena", "go", f"policy(model={small})", f"policy(model={large})", "--games", "2"]) == 2
    assert "trained for go with params {'board_size': 9" in capsys.readouterr().err


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
    # in a game of chance each opening rolls its own dice: a repeated opening does not replay a game
    rolled = run_arena(
        ArenaConfig("pig", ("random", "random"), games=24, seed=0, opening_plies=1, game_params=(("winscore", 10),))
    )
    assert len({record.game.opening for record in rolled.records}) < 12
    assert len({record.actions for record in rolled.records}) > len({record.game.opening for record in rolled.records})
    assert "distinct openings" not in console_report(rolled)


# Two CLI processes compile their searches (test_parallel_and_serial_runs_give_the_same_results checks it in-process).
@pytest.mark.slow
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
        command = [
            sys.executable,
            "-m",
            "rlgames",
            "arena",
            "tic_tac_toe",
            *specs,
            "--games",
            "4",
            "--seed",
            "3",
            "--opening-plies",
            "1",
            "--workers",
            str(workers),
            "--no-progress",
            "--out",
            str(out),
        ]
        runs[out] = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    files = []
    for out, process in runs.items():
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, output.decode()
        files.append((out / "games.csv").read_bytes())
    serial = list(csv.DictReader(files[0].decode().splitlines()))
    assert len(serial) == 3 * 4 and len({row["result"] for row in serial}) > 1  # every pair, mixed results
    assert files[0] == files[1]  # games.csv holds no wall-clock times (results.json does)


# --- points per game, beside the score ---------------------------------------------------------------------
class Pull:
    """A scripted Tug player: always the same action."""

    def __init__(self, action: int) -> None:
        self.action = action

    def act(self, state) -> int:
        return self.action

    def seed(self, seed: int) -> None:
        pass


TUG = Tug()


@pytest.mark.parametrize(
    "moves, score, points, result, termination",
    [
        ((RIGHT, RIGHT), 1.0, 2.0, "1-0 (2 points)", "normal"),  # the marker reaches player 0's goal
        ((LEFT, LEFT), 0.0, -2.0, "0-1 (2 points)", "normal"),
        ((RIGHT, CASH), 1.0, 1.0, "1-0", "normal"),  # player 1 cashes in on player 0's side
        ((RIGHT, LEFT), 0.5, 0.0, "1/2-1/2", "repetition"),  # back to the start: a twofold repetition
    ],
)
def test_a_game_record_keeps_the_score_for_elo_and_the_points(moves, score, points, result, termination):
    scheduled = ScheduledGame(0, first=0, second=1, opening_index=0, opening=(), seed=0)
    record = play_game(TUG, [Pull(moves[0]), Pull(moves[1])], scheduled)
    assert (record.score, record.points, record.termination) == (score, points, termination)
    assert record.outcome.result == result and record.outcome.returns == (points, -points)


def tug_record(index: int, first: int, returns: float, termination: str = "normal") -> GameRecord:
    """Game ``index`` between players 0 and 1 (``first`` moves first) whose first player got ``returns``."""
    winner = None if returns == 0 else 0 if returns > 0 else 1
    scheduled = ScheduledGame(index, first, 1 - first, index // 2, (), seed=0)
    return GameRecord(scheduled, Outcome(winner, (returns, -returns), termination), actions=())


# Player 0's games: a 2-point win as first, a 2-point win as second, a repetition draw, a 1-point loss.
TUG_RECORDS = (
    tug_record(0, 0, 2.0),
    tug_record(1, 1, -2.0),
    tug_record(2, 0, 0.0, "repetition"),
    tug_record(3, 1, 1.0),
)
MEAN = 0.75  # player 0's points: 2, 2, 0, -1, mapped onto [0, 1] as (points + 2) / 4 for the estimator:
_UNIT = [1.0, 1.0, 0.5, 0.25]
_M = (sum(_UNIT) + 0.1) / 4.2  # a tenth of a pseudo-game at each end of the range
_SQUARES = sum((u - _M) ** 2 for u in _UNIT) + 0.1 * (_M**2 + (1 - _M) ** 2)
LOW = 4 * (_M - 3.182446 * np.sqrt(_SQUARES / 3.2 / 4.2)) - 2  # Student's t, 3 degrees of freedom


def test_pair_results_count_points_beside_wins_draws_and_losses():
    (pair,) = pair_results(TUG_RECORDS, 2)
    assert (pair.wins, pair.draws, pair.losses, pair.score) == (2, 1, 1, 0.625)  # a 2-point win scores 1
    assert pair.points == ((-1.0, 1), (0.0, 1), (2.0, 2)) and pair.points_per_game == 0.75
    assert pair.terminations == (("normal", 3), ("repetition", 1))
    # over its two game pairs (totals +4 and -1: Student's t with one degree of freedom spans the range) ...
    assert pair.pair_points == ((-1.0, 1), (4.0, 1)) and pair.points_interval(0.95) == (-2.0, 2.0)
    # ... and over the games where they are not all in pairs, within the largest return reached (2)
    unpaired = PairResult((0, 1), 2, 1, 1, points=pair.points)
    assert unpaired.points_interval(0.95) == (pytest.approx(LOW), 2.0)


def tug_result() -> ArenaResult:
    config = ArenaConfig("tug", ("p", "q"), games=4, opening_plies=0)
    pairs = pair_results(TUG_RECORDS, 2)
    elo = fit_elo(*score_matrices(pairs, 2), anchor=0, anchor_rating=0.0, prior_draws=1.0)
    return ArenaResult(config, ("p", "q"), TUG_RECORDS, pairs, elo, None, (-2, 2), TUG)


def test_the_report_shows_points_per_game_and_terminations(tmp_path):
    result = tug_result()
    header, rows = ranking_rows(result)
    column = header.index("points/game (95%)")
    by_name = {row[1]: row[column] for row in rows}
    assert by_name == {"p": f"+0.75 [{LOW:+.2f}, +2.00]", "q": f"-0.75 [-2.00, {-LOW:+.2f}]"}
    header, (row,) = pair_rows(result)
    assert row[header.index("points/game (95%)")] == "+0.75 [-2.00, +2.00]" and row[header.index("score")] == "62.5%"
    data = results_dict(result)
    assert data["game"]["utility"] == [-2, 2] and data["terminations"] == {"normal": 3, "repetition": 1}
    p, q = data["players"]
    assert (p["score"], p["points_per_game"], q["points_per_game"]) == (0.625, 0.75, -0.75)
    assert p["points_upper"] == 2.0 and p["points_lower"] == pytest.approx(LOW)
    (pair,) = data["pairs"]
    assert pair["points"] == {"-1": 1, "0": 1, "2": 2} and pair["terminations"] == {"normal": 3, "repetition": 1}
    assert pair["pair_points"] == {"-1": 1, "4": 1}  # the two openings' totals
    text = console_report(result)
    assert "terminations: 3 normal, 1 repetition" in text and "in [-2, 2]" in text
    assert "per 100 games:\np vs q: won by 2 in 50.0; lost none by 2 or more" in text  # 2 of 4 games won by 2
    markdown = markdown_report(result)
    assert "terminations: 3 normal, 1 repetition" in markdown and f"| +0.75 [{LOW:+.2f}, +2.00] |" in markdown
    write_results(result, tmp_path)
    rows = read_games_csv(tmp_path)
    assert [(r["result"], r["termination"], r["first_score"], r["first_points"]) for r in rows] == [
        ("1-0 (2 points)", "normal", "1.0", "2"),
        ("0-1 (2 points)", "normal", "0.0", "-2"),
        ("1/2-1/2", "repetition", "0.5", "0"),
        ("1-0", "normal", "1.0", "1"),
    ]


def test_an_arena_plays_a_game_instance_and_records_its_points(tmp_path):
    """Tug is not in the registry: the arena plays the instance, serially and in two workers alike."""
    runs = []
    for workers in (1, 2):
        config = ArenaConfig("tug", ("random", "random(seed=2)"), games=12, seed=1, workers=workers)
        result = run_arena(config, game=TUG)
        write_results(result, tmp_path / str(workers))
        runs.append((result, (tmp_path / str(workers) / "games.csv").read_bytes()))
    (serial, serial_csv), (parallel, parallel_csv) = runs
    assert serial.records == parallel.records and serial_csv == parallel_csv
    assert dict(serial.config.game_params) == TUG.params and TUG.params["rule"] == "twofold"
    assert serial.utility == (-2, 2)
    points = [r.points if r.game.first == 0 else -r.points for r in serial.records]  # player 0's
    assert {abs(p) for p in points} == {0.0, 1.0, 2.0}  # 2-point, 1-point and drawn games
    (pair,) = serial.pairs
    assert pair.points_per_game == pytest.approx(np.mean(points))
    assert {r.termination for r in serial.records} == {"normal", "repetition"}
    with pytest.raises(ValueError, match="config.game must be its name"):
        run_arena(ArenaConfig("tic_tac_toe", ("random", "random")), game=TUG)


def test_games_csv_holds_every_move_and_they_replay_to_the_result(tmp_path):
    from rlgames.arena import write_results

    game = rlgames.load_game("tic_tac_toe")
    result = run_arena(ArenaConfig("tic_tac_toe", ("random", "alphabeta(depth=2)"), games=6, seed=3))
    write_results(result, tmp_path)
    rows = list(csv.DictReader((tmp_path / "games.csv").open()))
    assert len(rows) == 6 and not (tmp_path / "games.pgn").exists()  # tic-tac-toe has no record format
    for row, record in zip(rows, result.records):
        end = game.state_from_moves(row["moves"])
        assert end.is_terminal() and end.outcome().result == row["result"]
        assert end.history() == game.state_from_actions(record.actions).history()
        assert int(row["plies"]) == len(record.actions)


def test_the_two_games_of_an_opening_roll_the_same_dice():
    """Duplicate play: in backgammon (no opening moves, the game starts with a roll) the games of one
    opening, colours swapped, start with the same roll, and the pairs' rolls differ."""
    result = run_arena(ArenaConfig("backgammon", ("random", "random"), games=8, seed=3, opening_plies=0))
    first_rolls = {}
    for record in result.records:
        first_rolls.setdefault(record.game.opening_index, set()).add(record.actions[0])
    assert all(len(rolls) == 1 for rolls in first_rolls.values())
    assert len({rolls.pop() for rolls in first_rolls.values()}) > 1


def test_the_arena_counts_points_times_the_cube():
    """With the cube, the same network's checker play with and without cube decisions plays the same
    games: each pair's games split one win each, and only the cube's stakes differ."""
    specs = ("expectiminimax(plies=1, eval=pubeval)", "expectiminimax(plies=1, eval=pubeval, passive=true)")
    params = (("cube", True), ("scoring_type", "full_scoring"))
    result = run_arena(ArenaConfig("backgammon", specs, games=12, seed=1, opening_plies=0, game_params=params))
    cubes = [
        rlgames.load_game("backgammon", **dict(params)).state_from_actions(r.actions).cube() for r in result.records
    ]
    returns = [r.outcome.returns[0] for r in result.records]
    assert all(ret % value == 0 for ret, (value, _) in zip(returns, cubes))
    assert max(value for value, _ in cubes) >= 2  # some double was taken
    (pair,) = pair_results(result.records, 2)
    assert pair.wins == pair.losses == 6
