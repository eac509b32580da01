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

Head to head, a learned evaluation can beat the hand-crafted one it learnt from by exploiting that
teacher's blind spots without being stronger in general. With ``references`` (agent specs, external UCI
engines such as Stockfish at limited strength too) both sides also play each reference at every budget,
from the same openings, and the learned side's Elo over the hand-crafted side is measured through them
(`rlgames.arena.stats.through_references`); the finding then says whether the head-to-head gain holds.
`summary` says in one sentence what was found; `write_compare` writes report.md, compare.json,
compare.png and each match's own files.

With ``algorithm="mcts"`` both sides search by MCTS instead (the question for the games that MCTS plays
best, go above all): the learned side with the checkpoint's priors and values (PUCT), the hand-crafted
side with the game's rollouts (its ``playout`` kernel: go's light playouts), at each equal number of
``simulations`` and at equal time.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlgames.arena.openings import plies_for
from rlgames.arena.report import (
    big_wins_text,
    difference_text,
    elo_text,
    markdown_table,
    player_times,
    points_text,
    score_text,
    write_results,
)
from rlgames.arena.journal import JOURNAL, refuse_overwrite
from rlgames.arena.sprt import SprtConfig, SprtResult
from rlgames.agents.external import PROTOCOLS
from rlgames.agents.spec import AgentSpec, check_spec, parameters
from rlgames.arena.stats import EloDifference, ScoreEstimate, through_references
from rlgames.arena.tournament import ArenaConfig, ArenaResult, run_arena
from rlgames.parallel import LOCAL, Backend
from rlgames.registry import load_game

LEARNED, HAND_CRAFTED = 0, 1
"""The players' indices in every match."""
DEPTHS, CHANCE_DEPTHS = (2, 4, 6), (1, 2)
"""The equal depths compared by default: alpha-beta's, and expectiminimax's plies in a game with chance."""
SIMULATIONS = (100, 400)
"""The equal numbers of simulations compared by default when both sides search by MCTS."""
ALGORITHMS = ("alphabeta", "mcts")
"""The searches both sides may use: alpha-beta (expectiminimax in a game with chance nodes) or MCTS."""


@dataclass(frozen=True)
class CompareConfig:
    """What to compare: ``learned`` is a checkpoint's path; ``depths`` the equal depths (None: 2, 4 and 6,
    or plies 1 and 2 in a game with chance nodes) and ``seconds`` the equal time per move (None: no
    timed match); ``search`` extra ``key=value`` parameters of both sides' specs; ``opening_plies`` None
    picks the fewest plies that give ``games / 2`` distinct openings (`rlgames.arena.openings.plies_for`);
    ``sprt`` stops each budget's match once its test decides (``games`` is then the most it plays);
    ``references`` are agent specs (external engines too, ``uci:COMMAND``) that both sides also play at
    every budget, each taking the budget unless its spec sets its own (`reference_spec`); ``backend`` runs
    the ``workers`` as local processes or Ray actors (`rlgames.parallel.Backend`); ``algorithm`` is both
    sides' search, ``"alphabeta"`` or ``"mcts"``, and ``simulations`` MCTS's equal numbers of simulations
    (None: 100 and 400), in place of ``depths``; ``learned_search`` extra parameters of the learned side's
    spec alone (go: ``rollout=checkpoints/go9_rollout.npz``, AlphaGo's rollouts mixed with the network's
    values)."""

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
    references: tuple[str, ...] = ()
    backend: Backend = LOCAL
    algorithm: str = "alphabeta"
    simulations: tuple[int, ...] | None = None
    learned_search: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown search {self.algorithm!r}; compare plays {' or '.join(ALGORITHMS)}")
        if self.mcts:
            if self.depths:
                raise ValueError("MCTS has no depth: give its equal budgets as simulations")
            object.__setattr__(self, "depths", ())
            if self.simulations is None:
                object.__setattr__(self, "simulations", SIMULATIONS)
        elif self.simulations:
            raise ValueError("simulations are MCTS's budget: give alpha-beta's as depths, or search by MCTS")
        if self.depths is None:
            object.__setattr__(self, "depths", CHANCE_DEPTHS if self.chance else DEPTHS)
        if not self.equal_work and self.seconds is None:
            raise ValueError("nothing to compare: give at least one depth (or simulations) or a time per move")
        if any(depth < 1 for depth in self.equal_depths):
            raise ValueError(f"depths must be at least 1, got {self.depths}")
        if any(n < 1 for n in self.simulations or ()):
            raise ValueError(f"simulations must be at least 1, got {self.simulations}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"the time per move must be positive, got {self.seconds}")

    @property
    def equal_depths(self) -> tuple[int, ...]:
        """The equal depths, the default settled (``depths`` is never None past construction)."""
        return self.depths or ()

    @property
    def mcts(self) -> bool:
        """Whether both sides search by MCTS."""
        return self.algorithm == "mcts"

    @property
    def equal_work(self) -> list[tuple[str, str]]:
        """``(label, budget)`` of the matches at equal work: ``("depth 4", "depth=4")`` for alpha-beta,
        ``("400 simulations", "simulations=400")`` for MCTS."""
        if self.mcts:
            return [(f"{n} simulations", f"simulations={n}") for n in self.simulations or ()]
        return [(f"depth {depth}", f"depth={depth}") for depth in self.equal_depths]

    @property
    def chance(self) -> bool:
        """Whether the game has chance nodes (then both sides search by expectiminimax)."""
        return _has_chance(self.game, self.game_params)

    def budgets(self) -> list[tuple[str, str]]:
        """``(label, budget)`` per match: `equal_work`'s, then ``("0.1 s/move", "time=0.1")``."""
        rows = self.equal_work
        if self.seconds is not None:
            rows.append((f"{self.seconds:g} s/move", f"time={self.seconds:g}"))
        return rows

    def specs(self, budget: str) -> tuple[str, str]:
        """The learned and the hand-crafted player's agent specs under ``budget``."""
        extra = "".join(f", {item}" for item in self.search)
        own = "".join(f", {item}" for item in self.learned_search)
        if self.mcts:
            return (f"mcts({budget}{extra}, model={self.learned}{own})", f"mcts({budget}{extra})")
        if self.chance:
            search = "expectiminimax"
            budget = budget.replace("depth=", "plies=")
            if budget.startswith("time="):
                budget = f"plies={max(self.equal_depths, default=1) + 1}, {budget}"
        else:
            search = "alphabeta"
        return (
            f"{search}({budget}{extra}, model={self.learned}{own})",
            f"{search}({budget}{extra}, eval=heuristic)",
        )

    def reference_budget(self, budget: str) -> dict[str, float]:
        """What a reference without a budget of its own plays under ``budget``: ``{"depth": 4}`` (``plies``
        in a game with chance nodes), ``{"simulations": 400}`` or ``{"time": 0.1}``."""
        key, _, value = budget.partition("=")
        if key == "time":
            return {"time": float(value)}
        if key == "simulations":
            return {"simulations": int(value)}
        return {"plies" if self.chance else "depth": int(value)}


@functools.cache
def _has_chance(game: str, params: tuple[tuple[str, Any], ...]) -> bool:
    return load_game(game, **dict(params)).info.has_chance


BUDGET_KEYS = ("depth", "plies", "time", "nodes", "simulations")
"""The parameters that bound an agent's search: a reference whose spec gives one keeps its own budget."""


def reference_spec(reference: str, budget: dict[str, float]) -> str:
    """``reference`` under a budget (`CompareConfig.reference_budget`) unless its spec sets its own: an
    rlgames agent takes the budget's parameter where it has it (``mcts(simulations=400)`` keeps its
    simulations; ``mcts`` takes ``time=0.1`` but no depth), a UCI engine takes ``go depth N`` or
    ``go movetime MS`` unless it has ``uci-go:`` settings."""
    parsed = check_spec(reference)
    if parsed.name in PROTOCOLS:
        engine = parsed.params["engine"]
        if engine.go:
            return str(engine)
        ((key, value),) = budget.items()
        limit = {"time": ("movetime", round(1000 * value)), "simulations": ("nodes", int(value))}
        name, amount = limit.get(key, ("depth", int(value)))
        return str(engine.with_go(**{name: amount}))
    if any(key in parsed.params for key in BUDGET_KEYS):
        return str(parsed)
    accepted = parameters(parsed.name)
    added = {key: value for key, value in budget.items() if key in accepted}
    return str(AgentSpec(parsed.name, {**parsed.params, **added}))


@dataclass(frozen=True)
class Row:
    """One budget's match, from its first player's side (the learned side head to head, each side against
    a reference): wins, draws, losses, the score's estimate (score, Elo and normalised Elo with their 95%
    intervals), each player's mean time per move in seconds, and the SPRT's state where one ran."""

    label: str
    specs: tuple[str, str]
    wins: int
    draws: int
    losses: int
    estimate: ScoreEstimate
    seconds_per_move: tuple[float, float]
    sprt: SprtResult | None = None
    pairs: tuple[int, ...] = ()
    """How many openings the first player scored 0, 1/2, 1, 3/2 and 2 points in (the pentanomial counts)."""
    points: tuple[float, float, float] | None = None
    """Where a win may be worth more than 1 point (backgammon's gammons), the first player's points per
    game and their 95% interval; None elsewhere."""
    big_wins: str = ""
    """Where games were worth more than 1 point, those won and lost by 2 or more per 100 games
    (`rlgames.arena.report.big_wins_text`)."""

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
class ReferenceRow:
    """One budget's two matches against one reference: the learned side's and the hand-crafted side's
    (each a `Row` from that side), and the learned side's Elo over the hand-crafted through it."""

    label: str
    reference: str
    """The reference's spec as played (under the budget, `reference_spec`)."""
    learned: Row
    hand_crafted: Row

    @property
    def estimates(self) -> tuple[ScoreEstimate, ScoreEstimate]:
        """The learned and the hand-crafted side's scores against the reference."""
        return self.learned.estimate, self.hand_crafted.estimate

    @property
    def difference(self) -> EloDifference:
        return through_references([self.estimates])


@dataclass(frozen=True)
class CompareResult:
    config: CompareConfig
    opening_plies: int
    rows: tuple[Row, ...]
    matches: tuple[ArenaResult, ...] = dataclasses.field(default=(), compare=False, repr=False)
    references: tuple[ReferenceRow, ...] = ()
    """Every budget's matches against every reference (none without references)."""
    reference_matches: tuple[tuple[ArenaResult, ArenaResult], ...] = dataclasses.field(
        default=(), compare=False, repr=False
    )

    def through(self, label: str) -> EloDifference:
        """The learned side's Elo over the hand-crafted side through every reference at budget ``label``."""
        return through_references_of(self.references, label)


def run_compare(
    config: CompareConfig,
    *,
    progress: bool = False,
    echo: Callable[[str], None] = lambda line: None,
    out: str | Path | None = None,
    resume: bool = False,
) -> CompareResult:
    """Plays every budget's match in turn; ``echo`` gets a line as each starts and ends. With ``out`` each
    match keeps a journal in its folder there (`match_folders`; `rlgames.arena.journal`), and ``resume``
    takes the games of a stopped compare from them instead of playing them again; without ``resume``,
    journals already there are refused before any game is played."""
    game = load_game(config.game, **dict(config.game_params))
    plies = config.opening_plies if config.opening_plies is not None else plies_for(game, config.games // 2)
    rows, matches, references, reference_matches = [], [], [], []
    if out is not None and not resume:
        for folder in match_folders(config):
            refuse_overwrite(Path(out) / folder / JOURNAL)

    def play(specs: tuple[str, str], sprt: SprtConfig | None, folder: str) -> ArenaResult:
        arena = ArenaConfig(
            config.game,
            specs,
            games=config.games,
            seed=config.seed,
            workers=config.workers,
            opening_plies=plies,
            game_params=config.game_params,
            anchor=1,  # the hand-crafted side head to head, the reference in its matches
            sprt=sprt,
            backend=config.backend,
        )
        journal = None if out is None else Path(out) / folder / JOURNAL
        return run_arena(arena, progress=progress, journal=journal, resume=resume)

    for label, budget in config.budgets():
        specs = config.specs(budget)
        echo(f"{label}: {specs[0]} against {specs[1]}, {config.games} games")
        matches.append(play(specs, config.sprt, folder_name(label)))
        rows.append(row_of(label, matches[-1]))
        echo(f"{label}: {row_text(rows[-1])}")
        for number, reference in enumerate(config.references, 1):
            played = reference_spec(reference, config.reference_budget(budget))
            echo(f"{label}: both sides against the reference {played}, {config.games} games each")
            pair = (
                play((specs[LEARNED], played), None, reference_folder(label, number, "learned")),
                play((specs[HAND_CRAFTED], played), None, reference_folder(label, number, "hand-crafted")),
            )
            reference_matches.append(pair)
            references.append(ReferenceRow(label, played, row_of(label, pair[0]), row_of(label, pair[1])))
            echo(f"{label}: {reference_text(references[-1])}")
        if config.references:
            echo(f"{label}: {through_text(through_references_of(references, label), len(config.references))}")
    return CompareResult(config, plies, tuple(rows), tuple(matches), tuple(references), tuple(reference_matches))


def through_references_of(references: Sequence[ReferenceRow], label: str) -> EloDifference:
    """The learned side's Elo over the hand-crafted side through those of ``references`` at budget ``label``."""
    return through_references([row.estimates for row in references if row.label == label])


def row_of(label: str, match: ArenaResult) -> Row:
    """The first player's figures in a finished two-player match."""
    (pair,) = match.pairs
    first, second = (player_times(match, player) for player in (0, 1))
    first_spec, second_spec = match.config.specs
    points = (pair.points_per_game, *pair.points_interval()) if match.utility[1] > 1 else None
    return Row(
        label,
        (first_spec, second_spec),
        pair.wins,
        pair.draws,
        pair.losses,
        pair.estimate(),
        (first.mean_s, second.mean_s),
        match.sprt,
        tuple(pair.pairs),
        points,
        big_wins_text(pair.points),
    )


def row_text(row: Row) -> str:
    low, high = row.score_interval
    text = (
        f"learned scored {score_text(row.score, low, high)} ({row.wins}W {row.draws}D {row.losses}L), "
        f"Elo {elo_text(row.elo, *row.elo_interval)}: {row.verdict}"
    )
    if row.points is not None:
        text += f"; {points_text(*row.points)} points a game" + (
            f" ({row.big_wins} per 100 games)" if row.big_wins else ""
        )
    return text if row.sprt is None else f"{text}; {sprt_text(row.sprt)}"


def reference_text(row: ReferenceRow) -> str:
    """``"learned 61.5% [53.0%, 70.0%], hand-crafted 55.5% [...]: learned +45 Elo [-60, +150] through it"``."""
    learned, hand_crafted, difference = row.learned, row.hand_crafted, row.difference
    return (
        f"learned {score_text(learned.score, *learned.score_interval)}, hand-crafted "
        f"{score_text(hand_crafted.score, *hand_crafted.score_interval)}: learned "
        f"{difference_text(difference)} through it"
    )


def through_text(difference: EloDifference, references: int) -> str:
    """``"through 2 references learned is +15 Elo [-59, +92] against hand-crafted: no clear difference"``."""
    plural = "reference" if references == 1 else "references"
    return (
        f"through {references} {plural} learned is {difference_text(difference)} "
        f"against hand-crafted: {difference.verdict}"
    )


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
    timed = [row for row in result.rows if is_timed(row.label)]
    deep = [row for row in result.rows if not is_timed(row.label)]
    work = "simulations" if config.mcts else "depth"
    parts = []
    for row in timed:
        low, high = row.score_interval
        parts.append(
            f"at equal time ({row.label}) {learned} is {PHRASES[row.verdict]} hand-crafted: it scored "
            f"{score_text(row.score, low, high)}{points_clause(row)} over {row.games} games"
            f"{transfer_clause(result, row)}"
        )
    if deep:
        scores = ", ".join(f"{row.score:.0%}{points_clause(row)} at {row.label}" for row in deep)
        verdicts = {row.verdict for row in deep}
        subject = "it" if parts else learned
        if len(verdicts) == 1:
            parts.append(f"at equal {work} {subject} is {PHRASES[verdicts.pop()]} hand-crafted ({scores})")
        else:
            parts.append(f"at equal {work} {subject} scored {scores}")
        if result.references:
            through = ", ".join(f"{difference_text(result.through(row.label))} at {row.label}" for row in deep)
            parts[-1] += f"; through the references, {through}"
    return f"In {config.game}, {'; '.join(parts)}."


def points_clause(row: Row) -> str:
    """``" (+0.28 points a game)"`` where a win may be worth more than 1 point, else ""."""
    return "" if row.points is None else f" ({row.points[0]:+.2f} points a game)"


TRANSFER = {
    ("stronger", "stronger"): "and the gain holds through the references",
    ("stronger", "no clear difference"): "but the gain does not clearly hold through the references",
    ("stronger", "weaker"): "but through the references it is weaker",
    ("weaker", "weaker"): "and through the references too",
    ("weaker", "no clear difference"): "but through the references the loss is not clear",
    ("weaker", "stronger"): "but through the references it is stronger",
    ("no clear difference", "stronger"): "but through the references it is stronger",
    ("no clear difference", "weaker"): "but through the references it is weaker",
    ("no clear difference", "no clear difference"): "nor through the references",
}
"""How the head-to-head verdict and the through-reference verdict read together."""


def transfer_clause(result: CompareResult, row: Row) -> str:
    """Whether a budget's head-to-head finding holds through the references: ``", and the gain holds through
    the references (+60 Elo [+12, +108])"``; empty without references."""
    if not result.references:
        return ""
    through = result.through(row.label)
    return f", {TRANSFER[row.verdict, through.verdict]} ({difference_text(through)})"


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
    """`table_header`'s rows: one a budget."""
    with_points = any(row.points is not None for row in result.rows)
    return [
        [
            row.label,
            str(row.games),
            f"{row.wins}-{row.draws}-{row.losses}",
            score_text(row.score, *row.score_interval),
            elo_text(row.elo, *row.elo_interval),
            "-" if math.isnan(row.estimate.nelo) else f"{row.estimate.nelo:+.0f}",
            *([points_text(*row.points) if row.points else "-"] if with_points else []),
            f"{row.seconds_per_move[0]:.4f}",
            f"{row.seconds_per_move[1]:.4f}",
            row.verdict,
        ]
        for row in result.rows
    ]


def table_header(result: CompareResult) -> tuple[str, ...]:
    """`HEADER`, with the points per game where a win may be worth more than 1 point."""
    if not any(row.points is not None for row in result.rows):
        return HEADER
    return (*HEADER[:6], "points/game (95%)", *HEADER[6:])


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
            markdown_table(table_header(result), table_rows(result)),
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
            *references_section(result),
            "![score by budget](compare.png)",
            "",
        ]
    )


REFERENCE_HEADER = (
    "budget",
    "reference",
    "learned W-D-L",
    "learned score (95%)",
    "hand-crafted W-D-L",
    "hand-crafted score (95%)",
    "learned over hand-crafted (95%)",
)


def references_section(result: CompareResult) -> list[str]:
    """The report's table of both sides against each reference, each budget closed by the difference
    through all of them; empty without references."""
    if not result.references:
        return []
    rows = []
    for label, _ in result.config.budgets():
        for row in (row for row in result.references if row.label == label):
            learned, hand_crafted, difference = row.learned, row.hand_crafted, row.difference
            rows.append(
                [
                    label,
                    f"`{row.reference}`",
                    f"{learned.wins}-{learned.draws}-{learned.losses}",
                    score_text(learned.score, *learned.score_interval),
                    f"{hand_crafted.wins}-{hand_crafted.draws}-{hand_crafted.losses}",
                    score_text(hand_crafted.score, *hand_crafted.score_interval),
                    difference_text(difference),
                ]
            )
        through = result.through(label)
        rows.append([label, "**all references**", "", "", "", "", f"**{difference_text(through)}**"])
    return [
        "## Through references",
        "",
        "Both sides also played each reference, from the same openings with colours swapped. Through one "
        "reference the learned side's Elo over the hand-crafted side is its Elo against the reference less "
        "the hand-crafted side's; through all of them, the inverse-variance weighted mean of those "
        "differences (`rlgames.arena.stats.through_references`). A learned evaluation that beats its teacher "
        "by exploiting the teacher's blind spots gains head to head but not here.",
        "",
        markdown_table(REFERENCE_HEADER, rows),
        "",
    ]


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
        "references": [
            {
                "budget": row.label,
                "reference": row.reference,
                **{
                    side: {
                        "wins": played.wins,
                        "draws": played.draws,
                        "losses": played.losses,
                        "score": played.score,
                        "score_interval": played.score_interval,
                        "seconds_per_move": played.seconds_per_move,
                        "pairs": played.pairs,
                    }
                    for side, played in (("learned", row.learned), ("hand_crafted", row.hand_crafted))
                },
                "elo_difference": dataclasses.asdict(row.difference),
            }
            for row in result.references
        ],
        "through_references": {label: dataclasses.asdict(result.through(label)) for label, _ in result.config.budgets()}
        if result.references
        else {},
    }


def is_timed(label: str) -> bool:
    """Whether a budget's label is a time per move (``"0.1 s/move"``), not equal work (a depth, simulations)."""
    return label.endswith(" s/move")


def folder_name(label: str) -> str:
    """``"depth 4"`` -> ``depth-4``, ``"400 simulations"`` -> ``simulations-400``, ``"0.1 s/move"`` ->
    ``time-0.1``."""
    amount, _, unit = label.partition(" ")
    if is_timed(label):
        return f"time-{amount}"
    return f"{unit}-{amount}" if unit == "simulations" else label.replace(" ", "-")


def reference_folder(label: str, number: int, side: str) -> str:
    """The folder of a side's match against the ``number``-th reference at budget ``label``:
    ``depth-4-reference-1-learned``."""
    return f"{folder_name(label)}-reference-{number}-{side}"


def match_folders(config: CompareConfig) -> list[str]:
    """Every match's folder, in the order the matches are played."""
    folders = []
    for label, _ in config.budgets():
        folders.append(folder_name(label))
        for number in range(1, len(config.references) + 1):
            folders += [reference_folder(label, number, side) for side in ("learned", "hand-crafted")]
    return folders


def write_compare(result: CompareResult, out: str | Path) -> Path:
    """Writes report.md, compare.json, compare.png, and each match's files in a subfolder; returns ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for row, match in zip(result.rows, result.matches):
        write_results(match, folder / folder_name(row.label))
    for label, _ in result.config.budgets():
        played = [(row, pair) for row, pair in zip(result.references, result.reference_matches) if row.label == label]
        for number, (_, pair) in enumerate(played, 1):
            for side, match in zip(("learned", "hand-crafted"), pair):
                write_results(match, folder / reference_folder(label, number, side))
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
