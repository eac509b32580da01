"""The manifest's figures as the documents show them, and the generated regions that hold them.

A document holds a generated region between two HTML comments, invisible once rendered:

    <!-- generated: answer-table -->
    ...
    <!-- end generated -->

`sync` renders every region of every file in `DOCUMENTS` from the manifest and rewrites it (or, with
``check``, reports the files whose regions drifted from the manifest). A region's name says what it
holds: ``answer-table`` (the README's answer for every game), ``checkpoint-table`` (every shipped
network), ``compare-table FILE`` (one network's matches against the hand-crafted evaluator), ``matches FILE ID...``
(some of its matches),
``figure FILE ID`` (one measurement, inline in a sentence), ``reference-table FILE`` (one network's matches
against third-party references, with the learned side's Elo through them). ``docs/records.md``, the page each figure
links to, is generated whole.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from rlgames.arena import report
from rlgames.arena.scores import PairResult
from rlgames.arena.stats import EloDifference, ScoreEstimate, through_references
from rlgames.records.manifest import Accuracy, Checkpoint, Manifest, Match, Measurement, ReferenceMatches

RECORDS_PAGE = "docs/records.md"
"""The page of every record, relative to the checkout."""
DOCUMENTS = (
    "README.md",
    "checkpoints/README.md",
    "docs/guide/the-answer.md",
    "docs/guide/backgammon.md",
    "docs/guide/arena-and-compare.md",
    "docs/guide/go.md",
)
"""The files that hold generated regions, relative to the checkout."""
REGION = re.compile(r"(<!-- generated: (?P<name>[^>]*?) -->)(?P<body>.*?)(<!-- end generated -->)", re.S)


def match_figures(match: Match) -> ScoreEstimate:
    """The figures of a match by the arena's statistics (`rlgames.arena.stats`): the pentanomial model
    where the record counts its pairs, the trinomial otherwise."""
    return PairResult((0, 1), match.wins, match.draws, match.losses, pairs=match.pairs).estimate()


def reference_figures(m: ReferenceMatches) -> tuple[ScoreEstimate, ScoreEstimate]:
    """The learned and the hand-crafted side's figures against the reference, as `match_figures`."""
    return (
        PairResult((0, 1), *m.learned, pairs=m.learned_pairs).estimate(),
        PairResult((0, 1), *m.hand_crafted, pairs=m.hand_crafted_pairs).estimate(),
    )


def through(records: tuple[ReferenceMatches, ...]) -> EloDifference:
    """The learned side's Elo over the hand-crafted side through these references."""
    return through_references([reference_figures(m) for m in records])


def anchor(checkpoint: Checkpoint, measurement: Measurement) -> str:
    """The id of a measurement's record on the records page."""
    return re.sub(r"[^a-z0-9]+", "-", checkpoint.file.removesuffix(".pt").lower()) + "-" + measurement.id


def percent(value: float) -> str:
    return f"{value:.1%}"


def score_text(match: Match) -> str:
    """``"61.5% [57.0%, 66.0%]"``, as the arena's reports write it."""
    figures = match_figures(match)
    return report.score_text(figures.score, *figures.interval)


def points_text(match: Match) -> str:
    """``"+0.52 [+0.47, +0.57]"``: points per game and their interval, as the arena's reports write them
    (within the largest return the games reached); ``"-"`` where the record keeps no points."""
    if not match.points:
        return "-"
    pair = PairResult((0, 1), match.wins, match.draws, match.losses, points=match.points, pair_points=match.pair_points)
    return report.points_text(pair.points_per_game, *pair.points_interval())


def elo_text(match: Match) -> str:
    """``"+81 [+46, +116]"``, as the arena's reports write it."""
    figures = match_figures(match)
    return report.elo_text(figures.elo, *figures.elo_interval)


def figure_text(measurement: Measurement) -> str:
    """A measurement in a few words, as a sentence or a table cell quotes it."""
    if isinstance(measurement, Match):
        return score_text(measurement)
    if isinstance(measurement, Accuracy):
        return percent(measurement.share)
    if isinstance(measurement, ReferenceMatches):
        return report.difference_text(through((measurement,)))
    if measurement.reference is not None:
        return f"{number(measurement.value)} against {number(measurement.reference)}"
    return number(measurement.value)


def number(value: float) -> str:
    """A measured value as the docs write it: ``2.78M``, ``915k``, ``0.0144``."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3g}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.3g}k"
    return f"{value:.3g}"


def describe(measurement: Measurement) -> str:
    """A measurement in a sentence: what was measured and what it gave."""
    if isinstance(measurement, Match):
        m = measurement
        text = (
            f"`{m.player}` against `{m.opponent}`, {m.games:,} games: {m.wins} W, {m.draws} D, {m.losses} L, "
            f"{score_text(m)}, Elo {elo_text(m)}"
        )
        if m.points:
            text += f"; {points_text(m)} points per game"
        if report.big_wins_text(m.points):
            text += f", games per 100 {report.big_wins_text(m.points)}"
        return text
    if isinstance(measurement, ReferenceMatches):
        r = measurement
        learned, hand_crafted = reference_figures(r)
        return (
            f"`{r.learned_spec}` and `{r.hand_crafted_spec}` each against `{r.reference}`, {r.games:,} games each: "
            f"the learned side {'-'.join(map(str, r.learned))} (W-D-L), "
            f"{report.score_text(learned.score, *learned.interval)}, the hand-crafted side "
            f"{'-'.join(map(str, r.hand_crafted))}, {report.score_text(hand_crafted.score, *hand_crafted.interval)}; "
            f"through this reference the learned side is {figure_text(r)} over the hand-crafted side"
        )
    if isinstance(measurement, Accuracy):
        a = measurement
        share = percent(a.share)
        return f"`{a.agent}` keeps the exact value on {a.correct:,} of {a.positions:,} positions ({share}), {a.on}"
    text = f"{measurement.what}: {number(measurement.value)}"
    if measurement.reference is not None:
        ratio = measurement.value / measurement.reference
        text += f" against {number(measurement.reference)} for {measurement.reference_name} ({ratio:.2f} of it"
        text += ")" if measurement.higher_is_better else "; lower is better)"
    return text


def link(document: str, checkpoint: Checkpoint, measurement: Measurement, text: str) -> str:
    """``[text](records page#anchor)``, the page's path relative to ``document``."""
    page = os.path.relpath(RECORDS_PAGE, os.path.dirname(document) or ".")
    return f"[{text}]({page}#{anchor(checkpoint, measurement)})"


def depth_cell(document: str, checkpoint: Checkpoint) -> str:
    """The equal-depth matches: ``"67% / 70% / 70% at depths 2 / 4 / 6"``, each score a link; one match
    alone is shown with its interval, as is a network that MCTS plays at equal simulations instead."""
    matches = checkpoint.matches("equal depth") or checkpoint.matches("equal simulations")
    if len(matches) == 1:
        return f"{link(document, checkpoint, matches[0], score_text(matches[0]))} at {matches[0].budget}"
    scores = " / ".join(link(document, checkpoint, m, percent(match_figures(m).score)) for m in matches)
    return f"{scores} at depths {' / '.join(str(m.depth) for m in matches)}"


def played_by_earlier_network(checkpoint: Checkpoint, m: Measurement) -> bool:
    """Whether ``m`` was measured with a network other than the shipped file (`Provenance.network`)."""
    return m.provenance.network not in ("", checkpoint.sha256)


def through_cell(document: str, checkpoint: Checkpoint) -> str:
    """The learned side's Elo over the hand-crafted side through the references, per budget: ``"+15 [-59,
    +92] Elo at 0.1 s/move (2 references)"``, linked to the record of the first reference that measures it."""
    cells = []
    for budget, records in checkpoint.references().items():
        count = f"{len(records)} reference{'s' if len(records) > 1 else ''}"
        if any(played_by_earlier_network(checkpoint, m) for m in records):
            count += ", measured with an earlier network"
        shown = next((m for m in records if not math.isnan(through((m,)).elo)), records[0])
        text = report.difference_text(through(records))
        cells.append(f"{link(document, checkpoint, shown, text)} at {budget} ({count})")
    return "; ".join(cells) or "not measured"


def answer_table(manifest: Manifest, document: str) -> str:
    """The README's table: for each game, the learned side's score at equal time and at equal depth head to
    head, and its Elo over the hand-crafted side through third-party references."""
    rows = [
        "| game | learned evaluator | at equal time | at equal depth (MCTS: simulations) | through references |",
        "|---|---|---|---|---|",
    ]
    for checkpoint in manifest.checkpoints:
        if not checkpoint.answers:
            continue
        timed = checkpoint.matches("equal time")
        time_cell = (
            " ".join(f"{link(document, checkpoint, m, score_text(m))} at {m.budget}" for m in timed) or "not measured"
        )
        rows.append(
            f"| {checkpoint.game.replace('_', ' ')} | `{checkpoint.file}`: {checkpoint.inputs} | {time_cell} "
            f"| {depth_cell(document, checkpoint)} | {through_cell(document, checkpoint)} |"
        )
    return "\n".join(rows)


def duration(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} min"


def checkpoint_table(manifest: Manifest, document: str) -> str:
    """Every shipped network: what it is, how it was trained, and what was measured of it."""
    rows = ["| file | game | network | trained | measured |", "|---|---|---|---|---|"]
    for c in manifest.checkpoints:
        measured = "; ".join(link(document, c, m, f"{short_label(m)} {cell_text(m)}") for m in c.measurements)
        rows.append(
            f"| `{c.file}` | `{c.game}` | {c.network} | `{c.training.command}`: {c.training.summary}; "
            f"{duration(c.training.seconds)} on {c.training.hardware} | {measured} |"
        )
    return "\n".join(rows)


def cell_text(measurement: Measurement) -> str:
    """`figure_text`, with the wins, draws and losses of a match against an outside opponent."""
    if isinstance(measurement, Match) and measurement.question == "other":
        m = measurement
        return f"{m.wins} W, {m.draws} D, {m.losses} L, {score_text(m)}"
    return figure_text(measurement)


def short_label(measurement: Measurement) -> str:
    """A few words naming a measurement in a list."""
    if isinstance(measurement, Match):
        if measurement.question == "other":
            return f"against `{measurement.opponent}`:"
        return f"{measurement.budget}:"
    if isinstance(measurement, Accuracy):
        return f"`{measurement.agent}` on {measurement.on}:"
    if isinstance(measurement, ReferenceMatches):
        return f"{measurement.budget} through `{measurement.reference}`:"
    return f"{measurement.what}:"


def compare_table(checkpoint: Checkpoint, document: str) -> str:
    """One network's matches against the hand-crafted evaluator, as `rlgames compare` reports them."""
    rows = ["| budget | games | W-D-L | score (95%) | Elo vs hand-crafted (95%) |", "|---|---|---|---|---|"]
    for m in (
        checkpoint.matches("equal depth") + checkpoint.matches("equal simulations") + checkpoint.matches("equal time")
    ):
        rows.append(
            f"| {link(document, checkpoint, m, m.budget)} | {m.games:,} | {m.wins}-{m.draws}-{m.losses} "
            f"| {score_text(m)} | {elo_text(m)} |"
        )
    return "\n".join(rows)


def reference_table(checkpoint: Checkpoint, document: str) -> str:
    """One network's matches against references, both sides' scores beside each other, each budget closed
    by the learned side's Elo over the hand-crafted side through all of them."""
    rows = [
        "| budget | reference | games each | learned (95%) | hand-crafted (95%) | learned over hand-crafted (95%) |",
        "|---|---|---|---|---|---|",
    ]
    for budget, records in checkpoint.references().items():
        for m in records:
            learned, hand_crafted = reference_figures(m)
            rows.append(
                f"| {budget} | {link(document, checkpoint, m, f'`{m.reference}`')} | {m.games:,} "
                f"| {report.score_text(learned.score, *learned.interval)} "
                f"| {report.score_text(hand_crafted.score, *hand_crafted.interval)} | {figure_text(m)} |"
            )
        if len(records) > 1:
            rows.append(f"| {budget} | all references | | | | **{report.difference_text(through(records))}** |")
    return "\n".join(rows)


def match_table(checkpoint: Checkpoint, ids: list[str], document: str) -> str:
    """Some of a network's matches, each side's spec in full, as the arena's pair table reports them."""
    matches = []
    for id in ids:
        m = checkpoint.measurement(id)
        if not isinstance(m, Match):
            raise ValueError(f"{document}: {checkpoint.file} {id} is not a match")
        matches.append(m)
    columns = ["pair", "games", "W-D-L", "score (95%)", "Elo of the first (95%)"]
    with_points = any(m.points for m in matches)
    if with_points:  # games worth more than a point: backgammon's gammons
        columns += ["points/game (95%)", "per 100 games, by 2 or more points"]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for m in matches:
        pair = link(document, checkpoint, m, f"`{m.player}` vs `{m.opponent}`")
        row = f"| {pair} | {m.games:,} | {m.wins}-{m.draws}-{m.losses} | {score_text(m)} | {elo_text(m)} |"
        if with_points:
            row += f" {points_text(m)} | {report.big_wins_text(m.points) or '-'} |"
        rows.append(row)
    return "\n".join(rows)


def records_page(manifest: Manifest) -> str:
    """`docs/records.md`: every record, each under its anchor."""
    lines = [
        "# Records",
        "",
        "Every figure the documentation shows about a shipped network, written once in "
        "`checkpoints/manifest.json` and rendered here and in the tables by `python -m rlgames.records` "
        "(a test fails when a table drifts from the manifest). Scores, intervals and Elo are computed from "
        "the counts by the arena's statistics.",
        "",
    ]
    for c in manifest.checkpoints:
        t = c.training
        lines += [
            f"## {c.file}",
            "",
            f"{c.network}. Plays `{c.game}`; reads {c.inputs}. SHA-256 `{c.sha256}`.",
            "",
            f"Trained at commit `{t.commit}` in {duration(t.seconds)} on {t.hardware}: {t.summary}.",
            "",
            "```bash",
            t.command,
            "```",
            "",
        ]
        if t.research:
            lines += [f"How it was chosen: [{t.research}]({os.path.relpath(t.research, 'docs')}).", ""]
        for m in c.measurements:
            lines += record_lines(c, m)
    return "\n".join(lines)


def record_lines(checkpoint: Checkpoint, m: Measurement) -> list[str]:
    """One measurement's record: its anchor, what it gave, and where it came from."""
    p = m.provenance
    lines = [
        f'<a id="{anchor(checkpoint, m)}"></a>',
        "",
        f"### {short_label(m).rstrip(':')}",
        "",
        describe(m) + ".",
        "",
    ]
    if isinstance(m, (Match, ReferenceMatches)) and m.openings:
        lines += [f"{m.openings:,} distinct openings, each played with colours swapped.", ""]
    if isinstance(m, Match):
        lines += [match_figures(m).method, ""]
    if isinstance(m, ReferenceMatches):
        lines += [reference_figures(m)[0].method + " " + THROUGH_METHOD, ""]
    if p.note:
        lines += [p.note[0].upper() + p.note[1:] + ".", ""]
    if played_by_earlier_network(checkpoint, m):
        lines += [f"Measured with an earlier network than the shipped file (sha256 `{p.network}`).", ""]
    lines += [f"Recorded at commit `{p.commit}` on {p.date}, by:", "", "```bash", p.command, "```", ""]
    if p.research:
        lines += [f"Around it: [{p.research}]({os.path.relpath(p.research, 'docs')}).", ""]
    return lines


THROUGH_METHOD = (
    "Through a reference, the learned side's Elo over the hand-crafted side is its Elo against the reference "
    "less the hand-crafted side's; through several, the inverse-variance weighted mean "
    "(`rlgames.arena.stats.through_references`)."
)


def render(name: str, manifest: Manifest, document: str) -> str:
    """The body of the region called ``name`` in ``document``."""
    kind, *args = name.split()
    if kind == "answer-table" and not args:
        return "\n" + answer_table(manifest, document) + "\n"
    if kind == "checkpoint-table" and not args:
        return "\n" + checkpoint_table(manifest, document) + "\n"
    if kind == "compare-table" and len(args) == 1:
        return "\n" + compare_table(manifest[args[0]], document) + "\n"
    if kind == "reference-table" and len(args) == 1:
        return "\n" + reference_table(manifest[args[0]], document) + "\n"
    if kind == "matches" and len(args) >= 2:
        return "\n" + match_table(manifest[args[0]], args[1:], document) + "\n"
    if kind == "figure" and len(args) == 2:
        checkpoint = manifest[args[0]]
        return figure_text(checkpoint.measurement(args[1]))
    raise ValueError(f"{document}: unknown generated region {name!r}")


def regenerate(text: str, manifest: Manifest, document: str) -> str:
    """``text`` with every generated region rendered afresh."""
    return REGION.sub(lambda match: match[1] + render(match["name"], manifest, document) + match[4], text)


def sync(root: str | Path, manifest: Manifest, *, check: bool = False) -> list[str]:
    """Renders the records page and every region of `DOCUMENTS` under ``root``; returns the files whose
    text differed from the manifest's, rewritten unless ``check``."""
    root = Path(root)
    drifted = []
    expected = {RECORDS_PAGE: records_page(manifest) + "\n"}
    for document in DOCUMENTS:
        expected[document] = regenerate((root / document).read_text(), manifest, document)
    for document, text in expected.items():
        path = root / document
        if not path.exists() or path.read_text() != text:
            drifted.append(document)
            if not check:
                path.write_text(text)
    return drifted
