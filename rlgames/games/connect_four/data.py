"""Labelled positions: Pascal Pons' Connect Four benchmark sets, and files in their format.

A file holds one ``<moves> <score>`` per line: the moves are 1-based columns from the empty board, the
score the exact value for the side to move (positive: it wins, ``22 - k`` where ``k`` counts the
winner's stones at the end; 0: a draw; negative: it loses). rlgames ships no data and downloads none:
the sets are looked up in ``$RLGAMES_PONS_DIR``, or in a ``shared/data/connect4`` folder beside or inside
the source checkout (as the project's machines lay it out).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PONS_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")
"""The six benchmark files: L = stage (3 end, 2 middle, 1 beginning), R = difficulty (1 easy ... 3 hard)."""


@dataclass(frozen=True)
class LabelledPosition:
    """A position given by its moves in Pons' notation, and its exact score for the side to move."""

    moves: str
    score: int

    @property
    def value(self) -> int:
        """The game-theoretic value for the side to move: -1, 0 or 1."""
        return (self.score > 0) - (self.score < 0)


def read_pons_file(path: str | Path) -> list[LabelledPosition]:
    """The positions of a file in Pons' format; raises `ValueError` naming the first bad line."""
    positions = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2 or not fields[0].isdigit() or not fields[1].lstrip("-").isdigit():
            raise ValueError(f"{path}, line {number}: expected '<moves> <score>', got {line!r}")
        positions.append(LabelledPosition(fields[0], int(fields[1])))
    return positions


def pons_data_dir() -> Path:
    """The folder holding Pons' sets; raises `FileNotFoundError` listing where it looked."""
    checkout = Path(__file__).resolve().parents[3]
    candidates = [Path(os.environ["RLGAMES_PONS_DIR"])] if "RLGAMES_PONS_DIR" in os.environ else []
    candidates += [
        checkout.parent / "shared/data/connect4",
        checkout / "shared/data/connect4",
        Path.cwd() / "shared/data/connect4",
        Path.cwd().parent / "shared/data/connect4",
    ]
    for candidate in candidates:
        if (candidate / PONS_SETS[0]).is_file():
            return candidate
    raise FileNotFoundError(
        "Pons' Connect Four sets not found; set RLGAMES_PONS_DIR. Looked in: " + ", ".join(map(str, candidates))
    )


def load_pons_set(name: str) -> list[LabelledPosition]:
    """One of `PONS_SETS` by name, e.g. ``load_pons_set("Test_L2_R1")``."""
    if name not in PONS_SETS:
        raise ValueError(f"unknown Pons set {name!r}; the sets are {', '.join(PONS_SETS)}")
    return read_pons_file(pons_data_dir() / name)
