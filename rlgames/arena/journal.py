"""A match's journal: every finished game appended as a line of JSON, so that a stopped match resumes.

A long match (10,000 backgammon games, a compare's hour against a slow reference) should lose nothing
when it is stopped. ``run_arena(config, journal=PATH)`` writes the match's identity as the first line of
``PATH`` (the game and its parameters, the players' specs, the seed) and then each game's record as the
game finishes: its place in the schedule (index, colours, opening), the outcome, every action and both
players' move times. ``resume=True`` reads the journal back and plays only the games it lacks.

Each game is seeded from the match's seed and its index alone (`rlgames.arena.match`), so the resumed
match plays the games the uninterrupted one would have: a journal of an untimed match ends with the
uninterrupted run's games, its lines differing only in the measured move times. A journal written for
another match (other players, another seed, a game scheduled from another opening) is refused rather
than mixed in. More games than the journal holds may be asked for: its games are kept wherever the
schedule has them, the rest are played.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from rlgames.arena.match import GameRecord, MoveTimes, ScheduledGame
from rlgames.game import Outcome

JOURNAL = "games.jsonl"
"""The journal's name in a match's folder (``rlgames arena --out DIR``, each match of a compare)."""
KIND = "rlgames match journal"
"""The first line's ``journal`` field: what the file is."""


class JournalError(ValueError):
    """A journal that cannot be resumed here: another match's, or a folder that already holds one."""


def identity(game: str, params: Sequence[tuple[str, Any]], specs: Sequence[str], seed: int) -> dict[str, Any]:
    """What makes two matches the same match, as the journal's first line holds it (JSON's types)."""
    line = {"journal": KIND, "game": game, "params": dict(params), "specs": list(specs), "seed": seed}
    return json.loads(json.dumps(line, default=repr))


def record_line(record: GameRecord) -> str:
    """One game as a line of JSON (without the newline)."""
    scheduled, outcome = record.game, record.outcome
    return json.dumps(
        {
            "index": scheduled.index,
            "first": scheduled.first,
            "second": scheduled.second,
            "opening_index": scheduled.opening_index,
            "opening": list(scheduled.opening),
            "winner": outcome.winner,
            "returns": list(outcome.returns),
            "termination": outcome.termination,
            "actions": list(record.actions),
            "times": [[times.moves, times.total_s, times.max_s] for times in record.times],
        },
        separators=(",", ":"),
    )


def read_journal(path: str | Path, header: dict[str, Any], scheduled: Sequence[ScheduledGame]) -> list[GameRecord]:
    """The records of ``path`` that the match of ``header`` schedules (``scheduled``), in the journal's order.

    Raises `JournalError` for another match's journal or a game the schedule places differently; a last
    line cut short (the match stopped as it was written) is dropped."""
    lines = Path(path).read_text().splitlines()
    first = _parse(lines[0]) if lines else None
    if first != header:
        raise JournalError(f"{path} is the journal of another match ({_difference(first, header)}): not resumed")
    by_index = {game.index: game for game in scheduled}
    records = []
    for number, data in _game_lines(path, lines):
        game = by_index.get(data["index"])
        if game is None or (game.first, game.second, game.opening_index, game.opening) != (
            data["first"],
            data["second"],
            data["opening_index"],
            tuple(data["opening"]),
        ):
            raise JournalError(
                f"{path}, line {number}: game {data['index']} was played from another opening or seat than "
                f"this match schedules: not the same match"
            )
        outcome = Outcome(data["winner"], tuple(data["returns"]), data["termination"])
        first_times, second_times = (MoveTimes(int(m), float(t), float(x)) for m, t, x in data["times"])
        records.append(GameRecord(game, outcome, tuple(data["actions"]), (first_times, second_times)))
    return records


def read_games(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and every game's record (`record_line`'s fields) of the journal at ``path``, unchecked
    against any schedule: a match's games to read, e.g. their moves to fit a policy to. A file that is no
    journal, or a line that is no game's record, raises `JournalError` in one line; a last line cut short
    (the match stopped as it was written) is dropped."""
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise JournalError(f"cannot read the journal {path}: {error}") from None
    header = _parse(lines[0]) if lines else None
    if header is None or header.get("journal") != KIND:
        raise JournalError(f"{path} is not a match journal (the games.jsonl of rlgames arena --out DIR)")
    games = []
    for number, data in _game_lines(path, lines):
        if not {"opening", "actions"} <= data.keys():
            raise JournalError(f"{path}, line {number}: not a game's record")
        games.append(data)
    return header, games


def _game_lines(path: str | Path, lines: Sequence[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each game's line of a journal's ``lines`` after the header, parsed, with its line number; a last line
    cut short by a stop is dropped (that game is played again), any other line that is not JSON raises."""
    for number, line in enumerate(lines[1:], 2):
        data = _parse(line)
        if data is None:
            if number == len(lines):
                return
            raise JournalError(f"{path}, line {number}: not a game's record")
        yield number, data


class JournalWriter:
    """Writes a journal: the header and the records kept from before (replacing the file in one step, so
    a stop while it is written loses nothing), then each new record as it comes, flushed at once."""

    def __init__(self, path: str | Path, header: dict[str, Any], kept: Iterable[GameRecord] = ()) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        staged = self.path.with_name(self.path.name + ".partial")
        staged.write_text("".join(f"{line}\n" for line in [json.dumps(header), *map(record_line, kept)]))
        os.replace(staged, self.path)
        self._file: IO[str] = open(self.path, "a")

    def add(self, record: GameRecord) -> None:
        self._file.write(record_line(record) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def refuse_overwrite(path: str | Path) -> None:
    """Raises `JournalError` where ``path`` holds the games of a match already: a new match there would lose
    them. A journal without a game (a match that failed before its first game ended) is nothing to lose."""
    if _holds_games(Path(path)):
        raise JournalError(f"{path} holds the games of an earlier match: resume it (--resume) or choose another --out")


def _holds_games(path: Path) -> bool:
    if not path.exists():
        return False
    with open(path) as handle:
        return handle.readline() != "" and handle.readline() != ""


def _parse(line: str) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _difference(found: dict[str, Any] | None, wanted: dict[str, Any]) -> str:
    """What differs between a journal's first line and the match's identity, in a few words."""
    if found is None or found.get("journal") != KIND:
        return "not a match journal"
    keys = [key for key in wanted if found.get(key) != wanted[key]]
    return "; ".join(f"{key} {found.get(key)!r} there, {wanted[key]!r} here" for key in keys)
