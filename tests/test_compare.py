"""`rlgames compare`: learned against hand-crafted alpha-beta at equal depth and time, its report, its
one-sentence finding, the openings it picks, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import math

import pytest

import rlgames
from rlgames.models.checkpoint import save_checkpoint
from rlgames.models.networks import build_network
from rlgames.arena.compare import CompareConfig, CompareResult, ReferenceRow, Row, reference_spec, summary
from rlgames.arena.stats import ScoreEstimate, trinomial
from rlgames.arena.openings import plies_for
from rlgames.arena.journal import JOURNAL
from rlgames.cli import main
from journal_checks import count_played, stopped_after


@pytest.fixture(scope="module")
def nnue_checkpoint(tmp_path_factory):
    game = rlgames.load_game("tic_tac_toe")
    path = tmp_path_factory.mktemp("nnue") / "ttt.nnue.pt"
    save_checkpoint(path, network=build_network(game, "nnue", seed=0, accumulator=8, hidden=4), game=game)
    return path


def test_compare_writes_the_report_and_says_what_it_found(nnue_checkpoint, tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        main(
            [
                "compare",
                "tic_tac_toe",
                "--learned",
                str(nnue_checkpoint),
                "--depths",
                "1,9",
                "--time",
                "0.005",
                "--games",
                "4",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert printed.count("learned scored") == 3 and "In tic_tac_toe, at equal time (0.005 s/move)" in printed
    record = json.loads((out / "compare.json").read_text())
    assert [row["label"] for row in record["rows"]] == ["depth 1", "depth 9", "0.005 s/move"]
    assert all(row["games"] == 4 for row in record["rows"])
    # at depth 9 both sides search every opening to the end and play perfectly: each opening's result is
    # decided by the colours, so swapping them gives the learned side exactly half
    assert record["rows"][1]["score"] == 0.5
    assert record["opening_plies"] == 1  # the fewest plies giving 2 distinct openings
    for name in ("report.md", "compare.png", "depth-1/games.csv", "depth-9/results.json", "time-0.005/games.csv"):
        assert (out / name).is_file(), name
    assert record["summary"] in (out / "report.md").read_text()


def test_both_sides_search_alike_and_chance_games_by_expectiminimax():
    chess = CompareConfig("connect_four", "c4.nnue.pt", search=("null=2",))
    assert chess.depths == (2, 4, 6)
    assert chess.specs("time=0.1") == (
        "alphabeta(time=0.1, null=2, model=c4.nnue.pt)",
        "alphabeta(time=0.1, null=2, eval=heuristic)",
    )
    backgammon = CompareConfig("backgammon", "bg.pt", search=("filter=8",))
    assert backgammon.depths == (1, 2)
    assert [budget for _, budget in backgammon.budgets()] == ["depth=1", "depth=2", "time=0.1"]
    assert backgammon.specs("depth=2") == (
        "expectiminimax(plies=2, filter=8, model=bg.pt)",
        "expectiminimax(plies=2, filter=8, eval=heuristic)",
    )
    assert backgammon.specs("time=0.1")[1] == "expectiminimax(plies=3, time=0.1, filter=8, eval=heuristic)"


@pytest.mark.parametrize(  # a network is a search compiled of its own: win/loss, a report without points, is slow
    "scoring", [pytest.param("winloss_scoring", marks=pytest.mark.slow), "full_scoring"]
)
def test_a_backgammon_comparison_runs(tmp_path, capsys, scoring):
    """At win/loss and at full scoring, where the report gives the points a game too."""
    game = rlgames.load_game("backgammon", scoring_type=scoring)
    learned = tmp_path / "bg.nnue.pt"
    network = build_network(game, "nnue", seed=0, accumulator=8, hidden=4, outcomes=0 if scoring[0] == "w" else 3)
    save_checkpoint(learned, network=network, game=game)
    out = tmp_path / "report"
    assert (
        main(
            [
                "compare",
                "backgammon",
                "-p",
                f"scoring_type={scoring}",
                "--learned",
                str(learned),
                "--depths",
                "1",
                "--no-time",
                "--games",
                "4",
                "--opening-plies",
                "2",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    record = json.loads((out / "compare.json").read_text())
    (row,) = record["rows"]
    assert row["specs"][0].startswith("expectiminimax(plies=1, ") and row["wins"] + row["losses"] == 4
    printed = capsys.readouterr().out
    assert "In backgammon, at equal depth" in printed
    assert ("points a game" in printed) == (scoring == "full_scoring") == (row["points"] is not None)
    if row["points"] is not None:
        assert -3 <= row["points"][1] <= row["points"][0] <= row["points"][2] <= 3


def rows(*scores: tuple[str, float, float, float]) -> tuple[Row, ...]:
    return tuple(
        Row(label, ("a", "b"), 0, 0, 0, ScoreEstimate(score, low, high, "trinomial", 100, 100, 0.4), (0.1, 0.1))
        for label, score, low, high in scores
    )


def test_the_finding_follows_the_intervals():
    config = CompareConfig("connect_four", "checkpoints/c4.nnue.pt")
    found = summary(
        CompareResult(
            config,
            3,
            rows(("depth 2", 0.7, 0.62, 0.78), ("depth 4", 0.66, 0.58, 0.74), ("0.1 s/move", 0.45, 0.38, 0.52)),
        )
    )
    assert found == (
        "In connect_four, at equal time (0.1 s/move) learned evaluation (c4.nnue.pt) is not clearly "
        "different from hand-crafted: it scored 45.0% [38.0%, 52.0%] over 0 games; at equal depth "
        "it is stronger than hand-crafted (70% at depth 2, 66% at depth 4)."
    )
    weaker = summary(CompareResult(config, 3, rows(("0.1 s/move", 0.3, 0.2, 0.4))))
    assert "is weaker than hand-crafted" in weaker
    mixed = summary(CompareResult(config, 3, rows(("depth 2", 0.7, 0.6, 0.8), ("depth 4", 0.5, 0.4, 0.6))))
    assert mixed.endswith("at equal depth learned evaluation (c4.nnue.pt) scored 70% at depth 2, 50% at depth 4.")


@pytest.mark.parametrize(
    "game, count, plies",
    [("tic_tac_toe", 200, 3), ("tic_tac_toe", 72, 2), ("connect_four", 200, 3), ("othello", 200, 4)],
)
def test_openings_take_the_fewest_plies_that_give_enough_lines(game, count, plies):
    assert plies_for(rlgames.load_game(game), count) == plies


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--learned", "missing.pt"], "no such file"),
        (["--learned", "{ckpt}", "--depths", "0"], "depths must be at least 1"),
        (["--learned", "{ckpt}", "--depths", "", "--no-time"], "nothing to compare"),
        (["--learned", "{corrupt}"], "corrupt.pt"),
        (["--learned", "{ckpt}", "--search", "filter"], "expected KEY=VALUE"),
        (["--learned", "{ckpt}", "--search", "nosuch=1"], "nosuch"),
    ],
)
def test_bad_input_is_one_line(nnue_checkpoint, tmp_path, capsys, argv, message):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    argv = [arg.format(ckpt=nnue_checkpoint, corrupt=corrupt) for arg in argv]
    assert exit_status(["compare", "tic_tac_toe", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def exit_status(argv: list[str]) -> int:
    """The command's exit status, whether argparse exits or `main` returns it."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def test_compare_with_an_sprt_stops_each_budget_once_it_decides(nnue_checkpoint, tmp_path, capsys):
    """At depth 9 both sides play tic-tac-toe perfectly: every pair of games scores exactly one point, so
    the test accepts H0 (no advantage) as soon as it may, after --sprt-min-games games, not the 100 asked."""
    out = tmp_path / "sprt"
    args = ["compare", "tic_tac_toe", "--learned", str(nnue_checkpoint), "--depths", "9", "--no-time"]
    args += ["--games", "100", "--sprt", "0,50", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    (row,) = json.loads((out / "compare.json").read_text())["rows"]
    assert row["games"] == 20 and row["model"] == "pentanomial" and row["score"] == 0.5
    assert row["sprt"]["units"] == 10 and row["sprt"]["llr"] <= math.log(0.05 / 0.95)  # the lower bound
    assert "after 10 pairs, H0 accepted" in printed
    assert "GSPRT over the pairs" in (out / "report.md").read_text()


def test_a_bad_sprt_is_refused_in_one_line(nnue_checkpoint, capsys):
    args = ["compare", "tic_tac_toe", "--learned", str(nnue_checkpoint), "--depths", "1", "--no-time"]
    assert main([*args, "--sprt", "10,0"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    with pytest.raises(SystemExit) as exit:
        main([*args, "--sprt", "ten"])
    assert exit.value.code == 2


def test_references_measure_the_learned_side_through_third_parties(nnue_checkpoint, tmp_path, capsys):
    out = tmp_path / "references"
    args = ["compare", "tic_tac_toe", "--learned", str(nnue_checkpoint), "--depths", "1", "--time", "0.005"]
    args += ["--games", "4", "--reference", "random", "--reference", "alphabeta(depth=9)", "--out", str(out)]
    assert main([*args, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / "compare.json").read_text())
    played = [(row["budget"], row["reference"]) for row in record["references"]]
    # each reference takes the budget its spec lacks: random has none to take, the depth-9 one keeps its own
    assert played == [
        ("depth 1", "random"),
        ("depth 1", "alphabeta(depth=9)"),
        ("0.005 s/move", "random"),
        ("0.005 s/move", "alphabeta(depth=9)"),
    ]
    for row in record["references"]:
        for side in ("learned", "hand_crafted"):
            assert row[side]["wins"] + row[side]["draws"] + row[side]["losses"] == 4
    # perfect play never loses a game: against it each side scores at most one half
    assert all(row[side]["score"] <= 0.5 for row in record["references"][1::2] for side in ("learned", "hand_crafted"))
    assert set(record["through_references"]) == {"depth 1", "0.005 s/move"}
    assert "through the references" in record["summary"] and "through it" in printed
    assert "## Through references" in (out / "report.md").read_text()
    for name in ("depth-1-reference-2-learned", "time-0.005-reference-1-hand-crafted"):
        assert (out / name / "games.csv").is_file(), name


def test_a_reference_takes_the_budget_it_lacks():
    chess, backgammon = CompareConfig("chess", "c.pt"), CompareConfig("backgammon", "bg.pt")
    assert reference_spec("mcts", chess.reference_budget("time=0.1")) == "mcts(time=0.1)"
    assert reference_spec("mcts", chess.reference_budget("depth=4")) == "mcts"  # MCTS has no depth
    assert reference_spec("mcts(simulations=400)", chess.reference_budget("time=0.1")) == "mcts(simulations=400)"
    assert reference_spec("alphabeta(eval=material)", chess.reference_budget("depth=4")) == (
        "alphabeta(eval=material, depth=4)"
    )
    assert reference_spec("expectiminimax", backgammon.reference_budget("depth=2")) == "expectiminimax(plies=2)"
    assert reference_spec("uci:stockfish", chess.reference_budget("time=0.1")) == "uci:stockfish uci-go:movetime=100"
    assert reference_spec("uci:stockfish", chess.reference_budget("depth=4")) == "uci:stockfish uci-go:depth=4"
    assert reference_spec("uci:sf uci-go:nodes=9", chess.reference_budget("depth=4")) == "uci:sf uci-go:nodes=9"


def test_the_finding_says_whether_the_gain_holds_through_the_references():
    config = CompareConfig("chess", "checkpoints/chess.nnue.pt", depths=(), references=("uci:a", "uci:b"))
    head_to_head = rows(("0.1 s/move", 0.63, 0.57, 0.69))

    def reference(label: str, learned: tuple[int, int, int], hand_crafted: tuple[int, int, int]) -> ReferenceRow:
        scored = [Row(label, ("x", "r"), *wdl, trinomial(*wdl), (0.1, 0.1)) for wdl in (learned, hand_crafted)]
        return ReferenceRow(label, "uci:a", *scored)

    holds = CompareResult(config, 3, head_to_head, references=(reference("0.1 s/move", (70, 0, 30), (40, 0, 60)),))
    assert "and the gain holds through the references (+218 [+112, +323] Elo)" in summary(holds)
    fades = CompareResult(
        config,
        3,
        head_to_head,
        references=(
            reference("0.1 s/move", (61, 0, 39), (55, 1, 44)),
            reference("0.1 s/move", (25, 0, 75), (26, 1, 73)),
        ),
    )
    assert "but the gain does not clearly hold through the references (+16 [-59, +92] Elo)" in summary(fades)


def test_mcts_compares_priors_and_values_against_rollouts_at_equal_simulations():
    config = CompareConfig("connect_four", "c4.pt", algorithm="mcts", search=("uct_c=1.5",))
    assert config.depths == () and config.simulations == (100, 400)
    assert config.budgets() == [
        ("100 simulations", "simulations=100"),
        ("400 simulations", "simulations=400"),
        ("0.1 s/move", "time=0.1"),
    ]
    learned, hand_crafted = config.specs("simulations=400")
    assert learned == "mcts(simulations=400, uct_c=1.5, model=c4.pt)"
    assert hand_crafted == "mcts(simulations=400, uct_c=1.5)"
    own = CompareConfig("go", "go9.pt", algorithm="mcts", learned_search=("rollout=p.npz",))
    assert own.specs("time=0.1") == ("mcts(time=0.1, model=go9.pt, rollout=p.npz)", "mcts(time=0.1)")
    assert reference_spec("alphabeta", config.reference_budget("simulations=400")) == "alphabeta"  # no simulations
    assert reference_spec("uci:sf", config.reference_budget("simulations=400")) == "uci:sf uci-go:nodes=400"
    for wrong, message in (
        ({"algorithm": "mcts", "depths": (2,)}, "MCTS has no depth"),
        ({"simulations": (100,)}, "simulations are MCTS's budget"),
        ({"algorithm": "minimax"}, "unknown search 'minimax'"),
        ({"algorithm": "mcts", "simulations": (0,)}, "at least 1"),
        ({"algorithm": "mcts", "simulations": (), "seconds": None}, "nothing to compare"),
    ):
        with pytest.raises(ValueError, match=message):
            CompareConfig("connect_four", "c4.pt", **wrong)


def test_compare_by_mcts_writes_its_report(tmp_path, capsys):
    game = rlgames.load_game("tic_tac_toe")
    checkpoint = tmp_path / "ttt.pt"
    save_checkpoint(checkpoint, network=build_network(game, "mlp", seed=0), game=game)
    out = tmp_path / "report"
    argv = ["compare", "tic_tac_toe", "--learned", str(checkpoint), "--search", "mcts", "--simulations", "8,32"]
    assert main([*argv, "--no-time", "--games", "4", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "mcts(simulations=8, model=" in printed and "against mcts(simulations=8)" in printed
    assert "at equal simulations" in printed
    record = json.loads((out / "compare.json").read_text())
    assert [row["label"] for row in record["rows"]] == ["8 simulations", "32 simulations"]
    assert (out / "simulations-32" / "games.csv").is_file()


def test_a_go_comparison_plays_the_checkpoints_board_unless_told(tmp_path, capsys):
    go9 = rlgames.load_game("go", board_size=9)  # go9.pt's board (a search compiled for each board size)
    checkpoint = tmp_path / "go9.pt"
    save_checkpoint(checkpoint, network=build_network(go9, blocks=1, channels=8, seed=0), game=go9)
    argv = ["compare", "go", "--learned", str(checkpoint), "--search", "mcts", "--simulations", "4", "--no-time"]
    # c, a knob read at run time: the network's search is the one test_checkpoints compiles for go9.pt, the
    # hand-crafted side's test_rave's
    assert main([*argv, "--learned-search", "c=2", "--games", "2", "--out", str(tmp_path / "r")]) == 0
    record = json.loads((tmp_path / "r" / "compare.json").read_text())
    assert record["config"]["game_params"] == [["board_size", 9]]  # not go's default 19x19
    assert record["rows"][0]["specs"] == [
        f"mcts(simulations=4, model={checkpoint}, c=2)",
        "mcts(simulations=4)",
    ]
    capsys.readouterr()
    assert main([*argv, "-p", "board_size=7", "--games", "2", "--out", str(tmp_path / "s")]) == 2
    assert "trained for go with params {'board_size': 9" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--search", "mcts", "--search", "alphabeta"], "names two searches"),
        (["--search", "mcts", "--depths", "2"], "MCTS has no depth"),
        (["--simulations", "100"], "simulations are MCTS's budget"),
        (["--search", "mcts", "--simulations", "x"], "expected simulations such as 100,400"),
    ],
)
def test_bad_mcts_input_is_one_line(nnue_checkpoint, tmp_path, capsys, argv, message):
    argv = ["compare", "tic_tac_toe", "--learned", str(nnue_checkpoint), *argv, "--out", str(tmp_path / "o")]
    assert exit_status(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_stopped_compare_resumes_its_matches(tmp_path, monkeypatch, capsys, nnue_checkpoint):
    out = tmp_path / "compare"
    argv = ["compare", "tic_tac_toe", "--learned", str(nnue_checkpoint), "--depths", "1,2", "--no-time"]
    argv += ["--games", "4", "--reference", "random", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    whole = json.loads((out / "compare.json").read_text())
    journals = sorted(path.parent.name for path in out.glob(f"*/{JOURNAL}"))
    assert journals == sorted(
        f"depth-{depth}{suffix}"
        for depth in (1, 2)
        for suffix in ("", "-reference-1-learned", "-reference-1-hand-crafted")
    )
    (out / "depth-2" / JOURNAL).unlink()  # stopped in the second budget's head-to-head match
    stopped_after(out / "depth-2-reference-1-learned" / JOURNAL, 0)
    (out / "depth-2-reference-1-hand-crafted" / JOURNAL).unlink()
    assert main(argv) == 2
    assert "resume it (--resume)" in capsys.readouterr().err
    played = count_played(monkeypatch)
    assert main([*argv, "--resume"]) == 0
    assert len(played) == 3 * 4  # the second budget's three matches, and nothing of the first
    resumed = json.loads((out / "compare.json").read_text())
    assert untimed(resumed) == untimed(whole)


def untimed(record: dict) -> list:
    """A compare.json's games and scores, without the measured times per move."""
    rows = [(row["budget"] if "budget" in row else row["label"], row["wins"], row["draws"], row["losses"], row["score"])
            for row in record["rows"]]  # fmt: skip
    references = [(row["budget"], row[side]["wins"], row[side]["losses"], row[side]["score"])
                  for row in record["references"] for side in ("learned", "hand_crafted")]  # fmt: skip
    return [rows, references]
