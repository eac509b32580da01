"""Learned against hand-crafted evaluation, at equal depth and at equal time: the question users bring.

`run_compare` plays alpha-beta with a learned evaluator (a checkpoint: an NNUE runs inside the compiled
search, another network through torch) against alpha-beta with the game's hand-crafted evaluator, once
per budget: each depth of ``depths`` (both sides search that deep) and ``seconds`` per move (both sides
get the same time). In a game with chance nodes (backgammon) both sides search by expectiminimax
instead, a depth counting plies, one player's roll and move (``expectiminimax(plies=N)``), and the
timed match deepens up to one ply past the deepest equal depth. Both sides search with the game's usual
settings (`rlgames.Game.search_defaults`: chess's quiescence), and ``search`` adds parameters to both
sides' specs (``filter=8`` in backgammon, ``quiescence=0`` in chess). Each budget is an arena match
(`rlgames.arena.tournament`): ``games`` games from
``games / 2`` distinct random openings, each played with both colourings, the same openings for every
budget. A budget's row holds the learned side's score with its 95% interval (the pentanomial model over
the game pairs, `rlgames.arena.stats`), its Elo relative to the hand-crafted side mapped from that
interval, and both sides' time per move, so that the report shows that the budgets held. With ``sprt``
each budget's match stops as soon as fishtest's GSPRT over the pairs decides (`rlgames.arena.sprt`).
`summary` says in one sentence what was found; `write_compare` writes report.md, compare.json,
compare.png and each match's own files.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlgames.arena.openings import plies_for
from rlgames.arena.report import elo_text, markdown_table, player_times, score_text, write_results
from rlgames.arena.sprt import SprtConfig, SprtResult
from rlgames.arena.stats import ScoreEstimate
from rlgames.arena.tournament import ArenaConfig, ArenaResult, run_arena
from rlgames.registry import load_game

LEARNED, HAND_CRAFTED = 0, 1
"""The players' indices in every match."""
DEPTHS, CHANCE_DEPTHS = (2, 4, 6), (1, 2)
"""The equal depths compared by default: alpha-beta's, and expectiminimax's plies in a game with chance."""


@dataclass(frozen=True)
class CompareConfig:
    """What to compare: ``learned`` is a checkpoint's path; ``depths`` the equal depths (None: 2, 4 and 6,
    or plies 1 and 2 in a game with chance nodes) and ``seconds`` the equal time per move (None: no
    timed match); ``search`` extra ``key=value`` parameters of both sides' specs; ``opening_plies`` None
    picks the fewest plies that give ``games / 2`` distinct openings (`rlgames.arena.openings.plies_for`);
    ``sprt`` stops each budget's match once its test decides (``games`` is then the most it plays)."""

    game: str
    learned: str
    depths: tuple[int, ...] | None = None
    seconds: float | None = 0.1
    games: int = 400
    seed: int = 0
    workers: int = 1
    opening_plies: int | None = None
    game_params: tuple[tuple[str, Any], ...] = ()
    search: tuple[str, ...] = ()
    sprt: SprtConfig | None = None

    def __post_init__(self) -> None:
        if self.depths is None:
            object.__setattr__(self, "depths", CHANCE_DEPTHS if self.chance else DEPTHS)
        if not self.depths and self.seconds is None:
            raise ValueError("nothing to compare: give at least one depth or a time per move")
        if any(depth < 1 for depth in self.equal_depths):
            raise ValueError(f"depths must be at least 1, got {self.depths}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"the time per move must be positive, got {self.seconds}")

    @property
    def equal_depths(self) -> tuple[int, ...]:
        """The equal depths, the default settled (``depths`` is never None past construction)."""
        return self.depths or ()

    @property
    def chance(self) -> bool:
        """Whether the game has chance nodes (then both sides search by expectiminimax)."""
        return _has_chance(self.game, self.game_params)

    def budgets(self) -> list[tuple[str, str]]:
        """``(label, alpha-beta budget)`` per match: ``("depth 4", "depth=4")``, ``("0.1 s/move", "time=0.1")``."""
        rows = [(f"depth {depth}", f"depth={depth}") for depth in self.equal_depths]
        if self.seconds is not None:
            rows.append((f"{self.seconds:g} s/move", f"time={self.seconds:g}"))
        return rows

    def specs(self, budget: str) -> tuple[str, str]:
        """The learned and the hand-crafted player's agent specs under ``budget``."""
        if self.chance:
            search = "expectiminimax"
            budget = budget.replace("depth=", "plies=")
            if budget.startswith("time="):
                budget = f"plies={max(self.equal_depths, default=1) + 1}, {budget}"
        else:
            search = "alphabeta"
        extra = "".join(f", {item}" for item in self.search)
        return (f"{search}({budget}{extra}, model={self.learned})", f"{search}({budget}{extra}, eval=heuristic)")


@functools.cache
def _has_chance(game: str, params: tuple[tuple[str, Any], ...]) -> bool:
    return load_game(game, **dict(params)).info.has_chance


@dataclass(frozen=True)
class Row:
    """One budget's match, from the learned side: wins, draws, losses, the score's estimate (score, Elo
    and normalised Elo with their 95% intervals), each side's mean time per move in seconds, and the
    SPRT's state where one ran."""

    label: str
    specs: tuple[str, str]
    wins: int
    draws: int
    losses: int
    estimate: ScoreEstimate
    seconds_per_move: tuple[float, float]
    sprt: SprtResult | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.estimate.score

    @property
    def score_interval(self) -> tuple[float, float]:
        return self.estimate.interval

    @property
    def elo(self) -> float:
        return self.estimate.elo

    @property
    def elo_interval(self) -> tuple[float, float]:
        return self.estimate.elo_interval

    @property
    def verdict(self) -> str:
        """``"stronger"``, ``"weaker"`` or ``"no clear difference"``: where the interval lies against 50%."""
        return self.estimate.verdict


@dataclass(frozen=True)
class CompareResult:
    config: CompareConfig
    opening_plies: int
    rows: tuple[Row, ...]
    matches: tuple[ArenaResult, ...] = dataclasses.field(default=(), compare=False, repr=False)


def run_compare(
    config: CompareConfig, *, progress: bool = False, echo: Callable[[str], None] = lambda line: None
) -> CompareResult:
    """Plays every budget's match in turn; ``echo`` gets a line as each starts and ends."""
    game = load_game(config.game, **dict(config.game_params))
    plies = config.opening_plies if config.opening_plies is not None else plies_for(game, config.games // 2)
    rows, matches = [], []
    for label, budget in config.budgets():
        specs = config.specs(budget)
        echo(f"{label}: {specs[0]} against {specs[1]}, {config.games} games")
        arena = ArenaConfig(
            config.game,
            specs,
            games=config.games,
            seed=config.seed,
            workers=config.workers,
            opening_plies=plies,
            game_params=config.game_params,
            anchor=HAND_CRAFTED,
            sprt=config.sprt,
        )
        match = run_arena(arena, progress=progress)
        matches.append(match)
        rows.append(row_of(label, match))
        echo(f"{label}: {row_text(rows[-1])}")
    return CompareResult(config, plies, tuple(rows), tuple(matches))


def row_of(label: str, match: ArenaResult) -> Row:
    """The learned side's figures in a finished match."""
    (pair,) = match.pairs
    learned, hand_crafted = (player_times(match, player) for player in (LEARNED, HAND_CRAFTED))
    learned_specs, hand_crafted_specs = match.config.specs
    return Row(
        label,
        (learned_specs, hand_crafted_specs),
        pair.wins,
        pair.draws,
        pair.losses,
        pair.estimate(),
        (learned.mean_s, hand_crafted.mean_s),
        match.sprt,
    )


def row_text(row: Row) -> str:
    low, high = row.score_interval
    text = (
        f"learned scored {score_text(row.score, low, high)} ({row.wins}W {row.draws}D {row.losses}L), "
        f"Elo {elo_text(row.elo, *row.elo_interval)}: {row.verdict}"
    )
    return text if row.sprt is None else f"{text}; {sprt_text(row.sprt)}"


def sprt_text(status: SprtResult) -> str:
    """``"SPRT(0, 10): LLR 2.96 in [-2.94, 2.94] after 120 pairs, H1 accepted"``."""
    config = status.config
    decision = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision"}[status.decision]
    return (
        f"SPRT({config.elo0:g}, {config.elo1:g}): LLR {status.llr:.2f} in [{config.lower_bound:.2f}, "
        f"{config.upper_bound:.2f}] after {status.units} {status.unit_name}, {decision}"
    )


PHRASES = {"stronger": "stronger than", "weaker": "weaker than", "no clear difference": "not clearly different from"}


def summary(result: CompareResult) -> str:
    """The finding in one sentence: equal time first (the question's harder half), then equal depth."""
    config = result.config
    learned = f"learned evaluation ({Path(config.learned).name})"
    timed = [row for row in result.rows if not row.label.startswith("depth")]
    deep = [row for row in result.rows if row.label.startswith("depth")]
    parts = []
    for row in timed:
        low, high = row.score_interval
        parts.append(
            f"at equal time ({row.label}) {learned} is {PHRASES[row.verdict]} hand-crafted: it scored "
            f"{score_text(row.score, low, high)} over {row.games} games"
        )
    if deep:
        scores = ", ".join(f"{row.score:.0%} at {row.label}" for row in deep)
        verdicts = {row.verdict for row in deep}
        subject = "it" if parts else learned
        if len(verdicts) == 1:
            parts.append(f"at equal depth {subject} is {PHRASES[verdicts.pop()]} hand-crafted ({scores})")
        else:
            parts.append(f"at equal depth {subject} scored {scores}")
    return f"In {config.game}, {'; '.join(parts)}."


HEADER = (
    "budget",
    "games",
    "W-D-L",
    "score (95%)",
    "Elo vs hand-crafted (95%)",
    "nElo",
    "s/move learned",
    "s/move hand-crafted",
    "verdict",
)


def table_rows(result: CompareResult) -> list[list[str]]:
    return [
        [
            row.label,
            str(row.games),
            f"{row.wins}-{row.draws}-{row.losses}",
            score_text(row.score, *row.score_interval),
            elo_text(row.elo, *row.elo_interval),
            "-" if math.isnan(row.estimate.nelo) else f"{row.estimate.nelo:+.0f}",
            f"{row.seconds_per_move[0]:.4f}",
            f"{row.seconds_per_move[1]:.4f}",
            row.verdict,
        ]
        for row in result.rows
    ]


def markdown(result: CompareResult) -> str:
    config = result.config
    learned, hand_crafted = result.rows[0].specs if result.rows else config.specs(config.budgets()[0][1])
    method = (
        f"`{learned}` against `{hand_crafted}` in {config.game} (the budget as each row says), "
        f"{config.games} games per budget from "
        f"{config.games // 2} random openings of {result.opening_plies} plies, each played with both "
        f"colourings, seed {config.seed}. Score: wins plus half the draws. "
        f"{result.rows[0].estimate.method if result.rows else ''} nElo: the score's distance from 50% in "
        f"standard deviations of a game (fishtest's normalised Elo). Each budget's games are in its own "
        f"folder (games.csv, results.json)."
    )
    sprts = [f"- {row.label}: {sprt_text(row.sprt)}" for row in result.rows if row.sprt is not None]
    return "\n".join(
        [
            f"# Learned against hand-crafted evaluation: {config.game}",
            "",
            summary(result),
            "",
            method,
            "",
            markdown_table(HEADER, table_rows(result)),
            "",
            *(
                [
                    f"Sequential test (fishtest's GSPRT over the pairs, alpha {config.sprt.alpha:g}, beta "
                    f"{config.sprt.beta:g}):",
                    "",
                    *sprts,
                    "",
                ]
                if config.sprt is not None
                else []
            ),
            "![score by budget](compare.png)",
            "",
        ]
    )


def as_dict(result: CompareResult) -> dict[str, Any]:
    rows = []
    for row in result.rows:
        record = dataclasses.asdict(row)
        record.update(
            games=row.games,
            verdict=row.verdict,
            score=row.score,
            score_interval=row.score_interval,
            elo=row.elo,
            elo_interval=row.elo_interval,
            nelo=row.estimate.nelo,
            model=row.estimate.model,
        )
        rows.append(record)
    return {
        "config": dataclasses.asdict(result.config),
        "opening_plies": result.opening_plies,
        "summary": summary(result),
        "rows": rows,
    }


def folder_name(label: str) -> str:
    """``"depth 4"`` -> ``depth-4``, ``"0.1 s/move"`` -> ``time-0.1``."""
    return label.replace(" ", "-") if label.startswith("depth") else f"time-{label.split()[0]}"


def write_compare(result: CompareResult, out: str | Path) -> Path:
    """Writes report.md, compare.json, compare.png, and each match's files in a subfolder; returns ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for row, match in zip(result.rows, result.matches):
        write_results(match, folder / folder_name(row.label))
    (folder / "compare.json").write_text(json.dumps(as_dict(result), indent=2) + "\n")
    (folder / "report.md").write_text(markdown(result))
    plot_compare(result, folder / "compare.png")
    return folder


def plot_compare(result: CompareResult, path: Path) -> None:
    """The learned side's score per budget with its 95% interval, and the 50% line of equal strength."""
    from matplotlib.figure import Figure  # matplotlib loads only when the plot is drawn

    scores = [100 * row.score for row in result.rows]
    errors = [
        [100 * (row.score - row.score_interval[0]) for row in result.rows],
        [100 * (row.score_interval[1] - row.score) for row in result.rows],
    ]
    figure = Figure(figsize=(1.6 + 1.1 * len(scores), 3.6), layout="constrained")
    axes = figure.add_subplot()
    axes.errorbar(range(len(scores)), scores, yerr=errors, fmt="o", capsize=5)
    axes.axhline(50, color="grey", linestyle="--", linewidth=1)
    axes.set_xticks(range(len(scores)), [row.label for row in result.rows])
    axes.set_xlim(-0.5, len(scores) - 0.5)
    axes.set_ylim(0, 100)
    axes.set_ylabel("learned side's score, % (95% interval)")
    axes.set_title(f"{result.config.game}: learned vs hand-crafted", fontsize="medium")
    axes.grid(axis="y", alpha=0.3)
    figure.savefig(path, dpi=100)
