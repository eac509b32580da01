"""`rlgames play`, driven through standard input as a person would type."""

from __future__ import annotations

import io

import numpy as np
from tug import CASH, LEFT, RIGHT, Tug

import rlgames
from rlgames.cli import main
from rlgames.game import Outcome
from rlgames.play import PlaySession, outcome_text
from rlgames.search.result import SearchResult, SearchStats

TTT = rlgames.load_game("tic_tac_toe")


class FirstLegal:
    """A predictable opponent: the lowest legal action."""

    def search(self, state):
        action = state.legal_actions()[0]
        return SearchResult(action, 0.0, np.zeros(TTT.num_actions), (action,), SearchStats(nodes=1, depth=1))

    def act(self, state):
        return self.search(state).action


def session(lines: list[str], seat: int = 0) -> tuple[rlgames.State | None, list[str]]:
    inputs, written = iter(lines), []

    def read(prompt: str) -> str:
        try:
            return next(inputs)
        except StopIteration:
            raise EOFError from None

    final = PlaySession(FirstLegal(), seat, read=read, write=written.append).run(TTT.new_initial_state())
    return final, written


def test_a_full_game_with_malformed_and_illegal_input_asked_again():
    # x: b2, c3 (after "zz" and the taken b2), c1, a3 winning on the diagonal; o: a1, b1, a2.
    final, written = session(["b2", "zz", "b2", "c3", "c1", "a3"])
    text = "\n".join(written)
    assert "cannot read move 'zz'" in text and "legal moves: b1, c1, a2, c2, a3, b3, c3" in text
    assert "move b2 (action 4) is illegal" in text
    assert final is not None and final.returns() == [1.0, -1.0]
    assert written[-1].endswith("\ngame over: player 0 wins, 1-0, normal. You win.")


def test_undo_takes_back_the_move_and_the_reply():
    final, written = session(["b2", "undo", "c2", "a3", "quit"])
    assert final is None  # quit
    boards = [w for w in written if w.startswith("\n  a b c")]
    assert boards[2] == boards[0]  # after undo: the empty board again
    replies = [w.split(" (")[0] for w in written if w.startswith("agent plays")]
    assert replies == ["agent plays a1", "agent plays a1", "agent plays b1"]  # to b2; after the undo to c2, a3
    assert "nothing to undo yet" in session(["undo", "quit"])[1]


def test_the_human_can_play_second_and_lose():
    final, written = session(["b2", "c2"], seat=1)  # x: a1, b1, c1 along the top row
    assert final.returns() == [1.0, -1.0] and written[-1].endswith("game over: player 0 wins, 1-0, normal. You lose.")


def test_cli_play_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("b2\nbogus\nquit\n"))
    assert main(["play", "tic_tac_toe", "--agent", "random(seed=1)", "--seat", "0"]) == 0
    out = capsys.readouterr().out
    assert "tic_tac_toe against random(seed=1)" in out and "You play player 0" in out
    assert "cannot read move 'bogus'" in out and "agent plays" in out


def test_cli_play_rejects_a_bad_spec(capsys):
    assert main(["play", "tic_tac_toe", "--agent", "alphabeta(depth=)"]) == 2
    assert "expected key=value, got 'depth='" in capsys.readouterr().err


class Always:
    """A Tug opponent that always plays ``action``."""

    def __init__(self, action: int) -> None:
        self.action = action

    def search(self, state):
        return SearchResult(self.action, 0.0, np.zeros(3), (self.action,), SearchStats(nodes=1, depth=1))


def tug_session(lines: list[str], reply: int, seat: int = 0) -> tuple[rlgames.State | None, list[str]]:
    inputs, written = iter(lines), []
    final = PlaySession(Always(reply), seat, read=lambda prompt: next(inputs), write=written.append).run(
        Tug().new_initial_state()
    )
    return final, written


def test_the_end_of_a_game_names_the_points_and_the_termination():
    final, written = tug_session(["1", "1"], reply=RIGHT)  # the marker walks into player 0's goal: 2 points
    assert final.returns() == [2.0, -2.0]
    assert written[-1].endswith("\ngame over: player 0 wins, 1-0 (2 points), normal. You win 2 points.")
    final, written = tug_session(["1"], reply=RIGHT, seat=1)  # player 0 (the agent) pulls right too
    assert written[-1].endswith("game over: player 0 wins, 1-0 (2 points), normal. You lose 2 points.")
    final, written = tug_session(["1"], reply=CASH)  # player 1 cashes in on player 0's side: 1 point
    assert written[-1].endswith("game over: player 0 wins, 1-0, normal. You win.")
    final, written = tug_session(["1"], reply=LEFT)  # back to the start: a twofold repetition
    assert final.outcome() == Outcome(None, (0.0, 0.0), "repetition")
    assert written[-1].endswith("game over: draw, 1/2-1/2, repetition. Draw.")


def test_outcome_text():
    text = outcome_text(Outcome(1, (-3.0, 3.0), "resignation"))
    assert text == "game over: player 1 wins, 0-1 (3 points), resignation"


def test_a_whole_backgammon_game_shows_the_dice_and_ends_in_points():
    """The human (seat 0) asks for the legal moves each turn and plays the first one listed."""
    game = rlgames.load_game("backgammon")
    written: list[str] = []

    def read(prompt: str) -> str:
        listed = written[-1] if written else ""
        if listed.startswith("legal moves: "):
            return listed.removeprefix("legal moves: ").split(", ")[0].split(";")[0]
        return "moves"

    agent = rlgames.load_agent("expectiminimax(plies=1)", game)
    final = PlaySession(agent, 0, read=read, write=written.append, rng=np.random.default_rng(1)).run(
        game.new_initial_state()
    )
    assert final is not None and final.is_terminal()
    assert any(line.startswith("chance: ") for line in written)
    boards = [line for line in written if "to move" in line and "dice" in line.lower()]
    assert boards, "the human's board shows the dice"
    assert written[-1].split("\n")[-1].startswith("game over: player ")


def test_a_person_doubles_takes_and_drops_in_backgammon_with_the_cube():
    """The human (seat 0) doubles at its first chance, takes every double, rolls otherwise, and plays the
    first legal move; the agent answers by Janowski's formula. The game ends in points times the cube."""
    game = rlgames.load_game("backgammon", cube=True, scoring_type="full_scoring")
    written: list[str] = []
    said: list[str] = []

    def read(prompt: str) -> str:
        listed = written[-1] if written else ""
        if listed.startswith("legal moves: "):
            word = listed.removeprefix("legal moves: ").split(", ")[0].split(";")[0]
        elif "to double or roll" in listed:
            word = "roll" if "double" in said else "double"
        elif "to take or drop" in listed:
            word = "take"
        else:
            word = "moves"
        said.append(word)
        return word

    agent = rlgames.load_agent("expectiminimax(plies=1, eval=pubeval)", game)
    final = PlaySession(agent, 0, read=read, write=written.append, rng=np.random.default_rng(5)).run(
        game.new_initial_state()
    )
    assert final is not None and final.is_terminal() and "double" in said
    assert any(line.startswith("agent plays Take") or line.startswith("agent plays Drop") for line in written)
    cube = final.cube()
    assert cube is not None and cube[0] >= 2 and final.returns()[0] % cube[0] == 0
    assert written[-1].split("\n")[-1].startswith("game over: player ")
