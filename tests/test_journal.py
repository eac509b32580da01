"""A match's journal: games written as they end, a stopped match resumed to the uninterrupted one's games,
and another match's journal refused."""

from __future__ import annotations

import json

import pytest

from rlgames.arena import ArenaConfig, SprtConfig, run_arena
from rlgames.arena.journal import JOURNAL, JournalError
from rlgames.cli import main
from journal_checks import count_played, stopped_after

SPECS = ("alphabeta(depth=2)", "random")


def config(games: int = 12, specs: tuple[str, ...] = SPECS, **settings) -> ArenaConfig:
    return ArenaConfig("tic_tac_toe", specs, games=games, seed=3, **settings)


def test_the_journal_holds_the_match_and_every_game_as_it_ended(tmp_path):
    journal = tmp_path / JOURNAL
    result = run_arena(config(), journal=journal)
    header, *games = (json.loads(line) for line in journal.read_text().splitlines())
    assert header == {"journal": "rlgames match journal", "game": "tic_tac_toe", "params": {}, "specs": list(SPECS),
                      "seed": 3}  # fmt: skip
    assert [game["index"] for game in games] == list(range(12))
    for line, record in zip(games, result.records):
        assert line["actions"] == list(record.actions) and line["returns"] == list(record.outcome.returns)
        assert line["winner"] == record.outcome.winner and line["opening"] == list(record.game.opening)
        assert line["times"][0][0] == record.times[0].moves > 0


@pytest.mark.parametrize("cut", [False, True], ids=["between-games", "mid-line"])
def test_a_stopped_match_resumes_to_the_uninterrupted_games_playing_only_the_rest(tmp_path, monkeypatch, cut):
    whole = run_arena(config(), journal=tmp_path / "whole.jsonl")
    journal = tmp_path / JOURNAL
    run_arena(config(), journal=journal)
    stopped_after(journal, 5, cut=cut)
    played = count_played(monkeypatch)
    resumed = run_arena(config(), journal=journal, resume=True)
    assert played == list(range(5, 12))  # the half-written sixth game is played again
    assert resumed.records == whole.records and resumed.pairs == whole.pairs
    assert [record.times[0].moves for record in resumed.records] == [record.times[0].moves for record in whole.records]
    # the resumed journal is the uninterrupted one's but for the measured times
    assert [_untimed(line) for line in journal.read_text().splitlines()] == [
        _untimed(line) for line in (tmp_path / "whole.jsonl").read_text().splitlines()
    ]


def _untimed(line: str) -> dict:
    data = json.loads(line)
    data.pop("times", None)
    return data


def test_a_finished_journal_resumes_without_playing(tmp_path, monkeypatch):
    journal = tmp_path / JOURNAL
    whole = run_arena(config(), journal=journal)
    played = count_played(monkeypatch)
    assert run_arena(config(), journal=journal, resume=True).records == whole.records
    assert played == []


def test_more_games_than_the_journal_holds_keep_its_games(tmp_path, monkeypatch):
    journal = tmp_path / JOURNAL
    run_arena(config(games=6), journal=journal)
    played = count_played(monkeypatch)
    extended = run_arena(config(games=12), journal=journal, resume=True)
    assert played == list(range(6, 12))
    assert extended.records == run_arena(config(games=12)).records


def test_an_sprt_stops_at_the_same_game_when_resumed(tmp_path):
    sprt = SprtConfig(0.0, 200.0)
    lopsided = ("alphabeta(depth=9)", "random")
    whole = run_arena(config(games=200, specs=lopsided, sprt=sprt))
    journal = tmp_path / JOURNAL
    run_arena(config(games=200, specs=lopsided, sprt=sprt), journal=journal)
    stopped_after(journal, 4)
    resumed = run_arena(config(games=200, specs=lopsided, sprt=sprt), journal=journal, resume=True)
    assert resumed.sprt == whole.sprt and resumed.records == whole.records and len(whole.records) < 200


def test_another_matchs_journal_and_an_existing_one_are_refused(tmp_path):
    journal = tmp_path / JOURNAL
    run_arena(config(games=4), journal=journal)
    before = journal.read_text()
    with pytest.raises(JournalError, match="holds the games of an earlier match"):
        run_arena(config(games=4), journal=journal)
    with pytest.raises(JournalError, match=r"specs .*alphabeta\(depth=2\).* there, .*alphabeta\(depth=3\).* here"):
        run_arena(config(games=4, specs=("alphabeta(depth=3)", "random")), journal=journal, resume=True)
    with pytest.raises(JournalError, match="seed 3 there, 4 here"):
        run_arena(ArenaConfig("tic_tac_toe", SPECS, games=4, seed=4), journal=journal, resume=True)
    assert journal.read_text() == before  # nothing saved is lost
    other = tmp_path / "other.jsonl"
    other.write_text("opening,result\n")
    with pytest.raises(JournalError, match="not a match journal"):
        run_arena(config(games=4), journal=other, resume=True)


def test_a_match_that_failed_before_its_first_game_blocks_nothing(tmp_path):
    journal = tmp_path / JOURNAL
    with pytest.raises(ValueError, match="depth"):
        run_arena(config(games=4, specs=("alphabeta(depth=two)", "random")), journal=journal)
    assert len(journal.read_text().splitlines()) == 1  # the match's line, no game
    assert len(run_arena(config(games=4), journal=journal).records) == 4


def test_a_game_scheduled_elsewhere_is_refused(tmp_path):
    journal = tmp_path / JOURNAL
    run_arena(config(games=4), journal=journal)
    lines = journal.read_text().splitlines()
    game = json.loads(lines[2])
    game["opening"] = [4, 0]
    journal.write_text("\n".join([*lines[:2], json.dumps(game), *lines[3:]]) + "\n")
    with pytest.raises(JournalError, match="line 3: game 1 was played from another opening"):
        run_arena(config(games=4), journal=journal, resume=True)


def test_the_cli_arena_resumes_from_its_folder_and_refuses_in_one_line(tmp_path, capsys):
    out = tmp_path / "match"
    argv = ["arena", "tic_tac_toe", *SPECS, "--games", "6", "--seed", "3", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    whole = (out / "games.csv").read_text()
    stopped_after(out / JOURNAL, 2)
    assert main(argv) == 2  # an earlier match's games are never written over
    assert "holds the games of an earlier match: resume it (--resume)" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    assert (out / "games.csv").read_text() == whole
    argv_without_out = ["arena", "tic_tac_toe", *SPECS, "--games", "6", "--resume"]
    assert main(argv_without_out) == 2
    error = capsys.readouterr().err
    assert "give --out" in error and error.count("\n") == 1
