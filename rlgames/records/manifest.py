"""The checkpoints' manifest, `checkpoints/manifest.json`: one structured record per shipped network and
per measurement of it.

Every figure the project shows about a shipped network (the README's answer table, the checkpoint
table, the guide's tables, the records page) is rendered from these records by `rlgames.records.tables`,
so that each is written once. A record holds what was counted (wins, draws, losses; positions and the
correct ones; a measured value beside its reference) and how it was counted (the command, the commit
that recorded it, the date, the research entry that tells the story); the score, its interval and the
Elo are derived from the counts when shown, by the arena's statistics.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Union

SCHEMA = 2
"""The manifest's format version."""
QUESTIONS = ("equal time", "equal depth", "equal simulations", "other")
"""What a match measures: the learned side at the hand-crafted side's time, depth or MCTS simulations, or
anything else."""


class ManifestError(ValueError):
    """A manifest that does not follow the schema: the message names the record and the field."""


@dataclass(frozen=True)
class Provenance:
    """Where a measurement came from."""

    command: str
    """The command that measured it, run from the checkout."""
    commit: str
    """The commit that recorded the figure (its code measured it)."""
    date: str
    """The day it was recorded, ISO 8601."""
    research: str = ""
    """The research entry that tells what was tried around it (a docs path with its anchor), if any."""
    note: str = ""
    """What a reader needs to read the figure right (the machine's load for timed games...)."""
    network: str = ""
    """The sha256 of the checkpoint that played, where it is an earlier network than the shipped file (a
    record not yet measured again since the file was replaced); empty: the shipped file."""


@dataclass(frozen=True)
class Match:
    """Games between two agents, counted from ``player``'s side."""

    id: str
    """Unique within its checkpoint: the anchor of its record."""
    question: str
    """One of `QUESTIONS`."""
    budget: str
    """What each side may spend on a move, as a reader says it: ``"0.1 s/move"``, ``"depth 4"``, ``"1 ply"``."""
    player: str
    """The measured side's agent spec."""
    opponent: str
    """The other side's agent spec."""
    wins: int
    """Games ``player`` won."""
    draws: int
    """Games drawn."""
    losses: int
    """Games ``player`` lost."""
    openings: int
    """Distinct openings, each played with colours swapped (0: every game from the start)."""
    provenance: Provenance
    """The command, commit and date."""
    depth: int | None = None
    """The depth (or plies) both sides searched, for an equal-depth match."""
    pairs: tuple[int, ...] = ()
    """How many openings ``player`` scored 0, 1/2, 1, 3/2 and 2 points in over their two games, where
    recorded (the pentanomial model's counts); empty where only the games' results were kept."""
    points: tuple[tuple[int, int], ...] = ()
    """Where a game may be worth more than 1 point (backgammon's gammons), how many games ``player`` ended
    with each return, as ``(points, games)`` pairs; empty elsewhere."""
    pair_points: tuple[tuple[int, int], ...] = ()
    """How many openings ``player`` ended with each total of points over their two games, as ``(total,
    openings)`` pairs, where recorded (the points' interval over pairs, as the arena's)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class Accuracy:
    """How often an agent's move keeps the exact value of a position."""

    id: str
    """Unique within its checkpoint: the anchor of its record."""
    agent: str
    """The agent spec."""
    positions: int
    """Positions asked."""
    correct: int
    """Positions whose move kept the value."""
    on: str
    """Which positions, as a reader says it: ``"Pons' Test_L2_R1"``."""
    provenance: Provenance
    """The command, commit and date."""

    @property
    def share(self) -> float:
        return self.correct / self.positions


@dataclass(frozen=True)
class Metric:
    """A measured value, beside the reference it is read against where there is one."""

    id: str
    """Unique within its checkpoint: the anchor of its record."""
    what: str
    """What was measured, as a reader says it."""
    value: float
    """The network's figure."""
    provenance: Provenance
    """The command, commit and date."""
    reference: float | None = None
    """The same figure for the reference (the hand-crafted evaluator), if any."""
    reference_name: str = ""
    """What the reference is."""
    higher_is_better: bool = True
    """Which way is better, for the reader."""


@dataclass(frozen=True)
class ReferenceMatches:
    """Both sides of a comparison against one third party (a reference) at one budget, from the same
    openings: the learned side's Elo over the hand-crafted side through it (`rlgames.compare --reference`)."""

    id: str
    """Unique within its checkpoint: the anchor of its record."""
    budget: str
    """What each side (and the reference, unless its spec sets its own) may spend on a move: ``"0.1 s/move"``."""
    reference: str
    """The reference's spec as played."""
    learned_spec: str
    """The learned side's agent spec."""
    hand_crafted_spec: str
    """The hand-crafted side's agent spec."""
    learned: tuple[int, int, int]
    """The learned side's wins, draws and losses against the reference."""
    hand_crafted: tuple[int, int, int]
    """The hand-crafted side's wins, draws and losses against the reference."""
    openings: int
    """Distinct openings, each played with colours swapped (the same for both sides)."""
    provenance: Provenance
    """The command, commit and date."""
    learned_pairs: tuple[int, ...] = ()
    """The learned side's pentanomial counts (as `Match.pairs`), where recorded."""
    hand_crafted_pairs: tuple[int, ...] = ()
    """The hand-crafted side's pentanomial counts, where recorded."""

    @property
    def games(self) -> int:
        return sum(self.learned)


Measurement = Union[Match, Accuracy, Metric, ReferenceMatches]
KINDS: dict[str, type] = {"match": Match, "accuracy": Accuracy, "metric": Metric, "reference": ReferenceMatches}


@dataclass(frozen=True)
class Training:
    """How a shipped network was made."""

    command: str
    """The command (or commands) that trained it."""
    summary: str
    """What it learnt from, in a sentence."""
    seconds: int
    """Wall-clock time of the training, seconds."""
    hardware: str
    """Where it ran."""
    commit: str
    """The commit it was trained at."""
    research: str = ""
    """The research entry that tells how it was chosen."""


@dataclass(frozen=True)
class Checkpoint:
    """One shipped network and what was measured of it."""

    file: str
    """The file in `checkpoints/`."""
    game: str
    """The registered game it plays."""
    network: str
    """Its architecture, in a line."""
    inputs: str
    """What it reads, in a few words (the answer table's)."""
    sha256: str
    """The seal of the file (`rlgames.models.checkpoint`)."""
    training: Training
    """How it was made."""
    measurements: tuple[Measurement, ...]
    """What was measured of it."""
    answers: bool = False
    """Whether it is the network that answers its game's question in the README."""

    def measurement(self, id: str) -> Measurement:
        """The measurement of that id (`KeyError` if none)."""
        for measurement in self.measurements:
            if measurement.id == id:
                return measurement
        raise KeyError(f"{self.file} has no measurement {id!r}")

    def references(self) -> dict[str, tuple[ReferenceMatches, ...]]:
        """Its matches against references, by budget, in the manifest's order."""
        found: dict[str, list[ReferenceMatches]] = {}
        for m in self.measurements:
            if isinstance(m, ReferenceMatches):
                found.setdefault(m.budget, []).append(m)
        return {budget: tuple(rows) for budget, rows in found.items()}

    def matches(self, question: str) -> tuple[Match, ...]:
        """Its matches answering ``question`` (one of `QUESTIONS`), equal depth ones by depth."""
        found = [m for m in self.measurements if isinstance(m, Match) and m.question == question]
        return tuple(sorted(found, key=lambda m: m.depth or 0))


@dataclass(frozen=True)
class Manifest:
    """Every shipped network, in the manifest's order."""

    checkpoints: tuple[Checkpoint, ...] = field(default=())

    def __getitem__(self, file: str) -> Checkpoint:
        for checkpoint in self.checkpoints:
            if checkpoint.file == file:
                return checkpoint
        raise KeyError(f"the manifest lists no {file!r}")

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(checkpoint.file for checkpoint in self.checkpoints)


def default_path() -> Path:
    """`checkpoints/manifest.json` of the checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "checkpoints" / "manifest.json"


def load_manifest(path: str | Path | None = None) -> Manifest:
    """Reads and checks a manifest (`default_path` when none is given); `ManifestError` names what is wrong."""
    path = Path(path) if path is not None else default_path()
    data = json.loads(path.read_text())
    if data.get("schema") != SCHEMA:
        raise ManifestError(f"{path}: schema {data.get('schema')!r}, expected {SCHEMA}")
    return Manifest(tuple(_checkpoint(file, record) for file, record in data["checkpoints"].items()))


def _checkpoint(file: str, record: dict[str, Any]) -> Checkpoint:
    record = dict(record)
    measurements = tuple(_measurement(file, m) for m in record.pop("measurements", []))
    ids = [m.id for m in measurements]
    if len(set(ids)) != len(ids):
        raise ManifestError(f"{file}: two measurements share an id")
    training = _build(Training, record.pop("training", None), f"{file} training")
    return _build(Checkpoint, dict(record, file=file, training=training, measurements=measurements), file)


def _measurement(file: str, record: dict[str, Any]) -> Measurement:
    record = dict(record)
    where = f"{file} measurement {record.get('id', '?')!r}"
    kind = KINDS.get(record.pop("kind", None))
    if kind is None:
        raise ManifestError(f"{where}: kind must be one of {', '.join(KINDS)}")
    provenance = _build(Provenance, {k: record.pop(k) for k in _names(Provenance) if k in record}, where)
    measurement = _build(kind, dict(record, provenance=provenance), where)
    if isinstance(measurement, Match) and measurement.question not in QUESTIONS:
        raise ManifestError(f"{where}: question must be one of {', '.join(QUESTIONS)}")
    if isinstance(measurement, Match) and (measurement.question == "equal depth") != (measurement.depth is not None):
        raise ManifestError(f"{where}: an equal-depth match, and only one, gives its depth")
    if (
        isinstance(measurement, Match)
        and measurement.pairs
        and (len(measurement.pairs) != 5 or 2 * sum(measurement.pairs) != measurement.games)
    ):
        raise ManifestError(f"{where}: pairs must be five counts of pairs covering every game")
    if isinstance(measurement, Match) and (measurement.points or measurement.pair_points):
        measurement = _with_points(measurement, where)
    if isinstance(measurement, ReferenceMatches):
        sides = (measurement.learned, measurement.hand_crafted)
        if any(len(side) != 3 for side in sides) or sum(sides[0]) != sum(sides[1]):
            raise ManifestError(f"{where}: learned and hand_crafted are wins, draws, losses over the same games")
        for pairs, side in ((measurement.learned_pairs, sides[0]), (measurement.hand_crafted_pairs, sides[1])):
            if pairs and (len(pairs) != 5 or 2 * sum(pairs) != sum(side)):
                raise ManifestError(f"{where}: pairs must be five counts of pairs covering every game")
    if isinstance(measurement, Accuracy) and not 0 <= measurement.correct <= measurement.positions:
        raise ManifestError(f"{where}: correct must be between 0 and positions")
    return measurement


def _with_points(match: Match, where: str) -> Match:
    """``match`` with its points as tuples, checked against its games and its wins and losses."""
    points = tuple((int(v), int(n)) for v, n in match.points)
    pair_points = tuple((int(v), int(n)) for v, n in match.pair_points)
    by_sign = [sum(n for v, n in points if (v > 0) - (v < 0) == sign) for sign in (1, 0, -1)]
    if by_sign != [match.wins, match.draws, match.losses] or (
        pair_points and 2 * sum(n for _, n in pair_points) != match.games
    ):
        raise ManifestError(f"{where}: points must count every game as its wins, draws and losses do")
    return replace(match, points=points, pair_points=pair_points)


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _build(cls: type, record: dict[str, Any] | None, where: str) -> Any:
    """``cls(**record)``, refusing a missing or unknown field in one line."""
    if not isinstance(record, dict):
        raise ManifestError(f"{where}: expected an object")
    unknown = set(record) - set(_names(cls))
    if unknown:
        raise ManifestError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    try:
        return cls(**record)
    except TypeError as error:
        raise ManifestError(f"{where}: {error}") from None
