"""What the journal's tests share: a journal left as a stopped match leaves it, and a count of the games
really played."""

from __future__ import annotations

from rlgames.arena import tournament


def stopped_after(journal, games: int, *, cut: bool = False) -> None:
    """Leaves the journal as a match stopped after ``games`` games would: the header and their lines, and
    with ``cut`` the next line half written."""
    lines = journal.read_text().splitlines(keepends=True)
    tail = lines[games + 1][: len(lines[games + 1]) // 2] if cut else ""
    journal.write_text("".join(lines[: games + 1]) + tail)


def count_played(monkeypatch) -> list[int]:
    """The indices of the games really played from now on (the local, one-worker path)."""
    played: list[int] = []
    real = tournament.play_game

    def spy(game, agents, scheduled):
        played.append(scheduled.index)
        return real(game, agents, scheduled)

    monkeypatch.setattr(tournament, "play_game", spy)
    return played
