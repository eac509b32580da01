"""Arena results as data and text: ``results.json``, ``games.csv``, ``report.md`` and the console tables.

`write_results` writes them all (with the plots of `rlgames.arena.plots`) into one folder.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable, Sequence

from rlgames.arena.match import MoveTimes
from rlgames.arena.positions import moves_to_text
from rlgames.arena.scores import merge_counts, points_interval, reached
from rlgames.arena.stats import EloDifference
from rlgames.arena.tournament import ArenaResult
from rlgames.game import Game
from rlgames.registry import load_game


def results_dict(result: ArenaResult) -> dict[str, Any]:
    """Everything ``results.json`` holds: the game, the settings and seed, the players and the pairs."""
    config, elo = result.config, result.elo
    players = []
    for i, name in enumerate(result.names):
        games, points = _player_totals(result, i)
        times = player_times(result, i)
        mean, low, high = player_points(result, i)
        players.append(
            {
                "name": name,
                "spec": config.specs[i],
                "elo": elo.ratings[i],
                "elo_lower": elo.lower[i],
                "elo_upper": elo.upper[i],
                "games": games,
                "score": points / games if games else None,
                "points_per_game": _number(mean),
                "points_lower": _number(low),
                "points_upper": _number(high),
                "moves": times.moves,
                "seconds_per_move": _number(times.mean_s),
                "max_seconds_per_move": times.max_s,
            }
        )
    pairs = []
    for pair in result.pairs:
        estimate = pair.estimate(elo.confidence)
        low, high = estimate.interval
        points_low, points_high = pair.points_interval(elo.confidence)
        pairs.append(
            {
                "players": [result.names[i] for i in pair.players],
                "wins": pair.wins,
                "draws": pair.draws,
                "losses": pair.losses,
                "games": pair.games,
                "score": pair.score,
                "score_lower": low,
                "score_upper": high,
                "model": estimate.model,
                "pentanomial": list(pair.pairs),
                "elo": _number(estimate.elo),
                "elo_lower": _number(estimate.elo_interval[0]),
                "elo_upper": _number(estimate.elo_interval[1]),
                "nelo": _number(estimate.nelo),
                "points_per_game": _number(pair.points_per_game),
                "points_lower": _number(points_low),
                "points_upper": _number(points_high),
                "points": {f"{points:g}": games for points, games in pair.points},
                "pair_points": {f"{total:g}": pairs for total, pairs in pair.pair_points},
                "terminations": dict(pair.terminations),
            }
        )
    settings = {
        "games_per_pair": config.games,
        "workers": config.workers,
        "opening_plies": config.opening_plies,
        "openings_file": config.openings_file,
        "anchor": result.names[config.anchor],
        "anchor_rating": config.anchor_rating,
        "prior_draws": config.prior_draws,
        "confidence": elo.confidence,
        "sprt": asdict(config.sprt) if config.sprt else None,
    }
    return {
        "game": {"name": config.game, "params": dict(config.game_params), "utility": list(result.utility)},
        "seed": config.seed,
        "settings": settings,
        "games_played": len(result.records),
        "terminations": result.terminations(),
        "players": players,
        "pairs": pairs,
        "sprt": _sprt_dict(result),
    }


def _number(value: float) -> float | None:
    """``value``, or None for NaN (JSON has no NaN)."""
    return None if math.isnan(value) else value


def _sprt_dict(result: ArenaResult) -> dict[str, Any] | None:
    status = result.sprt
    if status is None:
        return None
    return {
        "llr": status.llr,
        "lower_bound": status.config.lower_bound,
        "upper_bound": status.config.upper_bound,
        "decision": status.decision,
        "games": status.games,
    }


def _player_totals(result: ArenaResult, player: int) -> tuple[int, float]:
    games, points = 0, 0.0
    for pair in result.pairs:
        if player in pair.players:
            games += pair.games
            won = pair.wins if pair.players[0] == player else pair.losses
            points += won + 0.5 * pair.draws
    return games, points


def player_points(result: ArenaResult, player: int) -> tuple[float, float, float]:
    """``player``'s mean points per game over the tournament and its interval: ``(mean, lower, upper)``
    (`rlgames.arena.scores.points_interval`, within the largest return the games reached)."""
    tallies = []
    for pair in result.pairs:
        if player in pair.players:
            sign = 1.0 if pair.players[0] == player else -1.0
            tallies.append([(0.0 + sign * points, games) for points, games in pair.points])
    merged = merge_counts(*tallies)
    return points_interval(merged, result.elo.confidence, reached(merged))


def player_times(result: ArenaResult, player: int) -> MoveTimes:
    """Every move ``player`` made in the tournament, and the time it took (wall clock, per move)."""
    total = MoveTimes()
    for record in result.records:
        for seat, index in enumerate((record.game.first, record.game.second)):
            if index == player:
                times = record.times[seat]
                total = MoveTimes(
                    total.moves + times.moves, total.total_s + times.total_s, max(total.max_s, times.max_s)
                )
    return total


GAMES_CSV_COLUMNS = (
    "game",
    "first",
    "second",
    "opening_index",
    "opening",
    "result",
    "termination",
    "first_score",
    "first_points",
    "plies",
    "moves",
)
"""The columns of games.csv: ``result`` is the `Outcome`'s (``1-0``, ``0-1``, ``1/2-1/2``, ``1-0 (2
points)``), ``first_score`` the first player's score (1, 0.5, 0), ``first_points`` its return and
``moves`` the whole game (the opening's included) in the game's notation."""


def write_games_csv(result: ArenaResult, path: Path) -> None:
    """One row per game: players by colour (``first`` moves first), opening, result, how it ended, the
    first player's score and points, plies and moves. Nothing measured: the same games give the same bytes."""
    game = arena_game(result)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(GAMES_CSV_COLUMNS)
        for record in result.records:
            scheduled = record.game
            writer.writerow(
                [
                    scheduled.index,
                    result.names[scheduled.first],
                    result.names[scheduled.second],
                    scheduled.opening_index,
                    moves_to_text(game, scheduled.opening),
                    record.outcome.result,
                    record.termination,
                    record.score,
                    f"{record.points:g}",
                    record.plies,
                    moves_to_text(game, record.actions),
                ]
            )


def write_game_records(result: ArenaResult, path: Path) -> None:
    """Every game in the game's own record format (`rlgames.game.Game.export_record`: PGN for chess)."""
    game = arena_game(result)
    records = [
        game.export_record(
            record.actions,
            players=(result.names[record.game.first], result.names[record.game.second]),
            outcome=record.outcome,
            event=f"rlgames arena, seed {result.config.seed}",
            round=record.game.index + 1,
        )
        for record in result.records
    ]
    path.write_text("\n\n".join(text.strip() for text in records) + "\n")


def arena_game(result: ArenaResult) -> Game:
    return result.game or load_game(result.config.game, **dict(result.config.game_params))


def ranking_rows(result: ArenaResult) -> tuple[list[str], list[list[str]]]:
    """The players ranked by Elo: header and rows."""
    elo = result.elo
    header = [
        "rank",
        "player",
        "Elo",
        f"{elo.confidence:.0%} interval",
        "games",
        "score",
        f"points/game ({elo.confidence:.0%})",
        "s/move",
        "max s",
    ]
    rows = []
    for rank, i in enumerate(sorted(range(len(result.names)), key=lambda k: -elo.ratings[k]), start=1):
        games, points = _player_totals(result, i)
        times = player_times(result, i)
        mean = times.mean_s if times.moves else 0.0
        rows.append(
            [
                str(rank),
                result.names[i],
                f"{elo.ratings[i]:+.1f}",
                f"[{elo.lower[i]:+.1f}, {elo.upper[i]:+.1f}]",
                str(games),
                f"{points / games:.1%}",
                points_text(*player_points(result, i)),
                f"{mean:.3f}",
                f"{times.max_s:.3f}",
            ]
        )
    return header, rows


def points_text(mean: float, low: float, high: float) -> str:
    """Points per game and their interval, e.g. ``+0.50 [+0.12, +0.88]``; ``-`` without any."""
    return "-" if math.isnan(mean) else f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def pair_rows(result: ArenaResult) -> tuple[list[str], list[list[str]]]:
    """Every pair's wins, draws and losses (from the first-named player's side): header and rows."""
    confidence = result.elo.confidence
    header = [
        "pair",
        "W",
        "D",
        "L",
        "score",
        f"{confidence:.0%} interval",
        f"Elo ({confidence:.0%})",
        "nElo",
        f"points/game ({confidence:.0%})",
    ]
    rows = []
    for pair in result.pairs:
        estimate = pair.estimate(confidence)
        low, high = estimate.interval
        points = points_text(pair.points_per_game, *pair.points_interval(confidence))
        rows.append(
            [
                " vs ".join(result.names[i] for i in pair.players),
                str(pair.wins),
                str(pair.draws),
                str(pair.losses),
                f"{pair.score:.1%}",
                f"[{low:.1%}, {high:.1%}]",
                elo_text(estimate.elo, *estimate.elo_interval),
                "-" if math.isnan(estimate.nelo) else f"{estimate.nelo:+.0f}",
                points,
            ]
        )
    return header, rows


def score_text(score: float, low: float, high: float) -> str:
    """A score and its interval, e.g. ``61.5% [57.0%, 66.0%]``."""
    return f"{score:.1%} [{low:.1%}, {high:.1%}]"


def elo_text(elo: float, low: float, high: float) -> str:
    """An Elo difference and its interval, e.g. ``+81 [+46, +116]``; ``-`` without any."""
    return "-" if math.isnan(elo) else f"{elo:+.0f} [{low:+.0f}, {high:+.0f}]"


def difference_text(difference: EloDifference) -> str:
    """An Elo difference through references, ``+29 [-49, +106] Elo``, or why there is none: every reference
    swept a side or was swept by it (`rlgames.arena.stats.through_references`)."""
    if math.isnan(difference.elo):
        return "not measured (a side's score interval reaches 0% or 100%)"
    return f"{elo_text(difference.elo, difference.low, difference.high)} Elo"


def method_note(result: ArenaResult) -> str:
    """The sentence saying which model gave the pairs' intervals (one per model used)."""
    sentences = dict.fromkeys(pair.estimate(result.elo.confidence).method for pair in result.pairs)
    ranking = "The ranking's Elo is a maximum-likelihood fit over every pair (rlgames.arena.elo)."
    return " ".join([*sentences, ranking]) if len(result.names) > 2 else " ".join(sentences)


def terminations_note(result: ArenaResult) -> str:
    """How the games ended, e.g. ``terminations: 14 normal, 6 repetition``, where some game ended
    otherwise than normally; "" when all did."""
    counts = result.terminations()
    if set(counts) <= {"normal"}:
        return ""
    return "terminations: " + ", ".join(f"{count} {name}" for name, count in counts.items())


def points_note(result: ArenaResult) -> str:
    """What the points are, where a win may be worth more than one; "" in a game of wins worth 1."""
    low, high = result.utility
    if high == 1:
        return ""
    return (
        f"points: a player's return per game, in [{low:g}, {high:g}] (a win counts 1 in the score and "
        f"the Elo, whatever its points)"
    )


def big_wins_text(points: Iterable[tuple[float, int]]) -> str:
    """The games per 100 won and lost by each number of points beyond 1, from games counted by their
    points (backgammon's gammons, 2, and backgammons, 3), e.g. ``won by 2 in 8.1, by 3 in 0.9; lost by 2
    in 12.0``; "" where no game was worth more than 1 point."""
    counted = [(value, count) for value, count in points if count]
    games = sum(count for _, count in counted)
    if not any(abs(value) > 1 for value, _ in counted):
        return ""

    def rates(sign: int) -> str:
        found = sorted((abs(value), count) for value, count in counted if sign * value > 1)
        return ", ".join(f"by {value:g} in {_per_100(count, games)}" for value, count in found) or "none by 2 or more"

    return f"won {rates(1)}; lost {rates(-1)}"


def _per_100(count: int, games: int) -> str:
    """``count`` games per 100 of ``games``, to one decimal, or two significant digits below 0.1 (with the
    cube, a rare stake: one game in 10,000 is 0.01, not 0.0)."""
    rate = 100 * count / games
    return f"{rate:.1f}" if rate >= 0.095 else f"{rate:.2g}"


def big_wins_note(result: ArenaResult) -> str:
    """Per pair where some game was worth more than 1 point, `big_wins_text` from the first-named player's
    side, e.g. ``A vs B: won by 2 in 8.1, by 3 in 0.9; lost by 2 in 12.0, by 3 in 2.3``; "" where none was."""
    lines = [
        f"{' vs '.join(result.names[i] for i in pair.players)}: {text}"
        for pair in result.pairs
        if (text := big_wins_text(pair.points))
    ]
    if not lines:
        return ""
    return "games won and lost by 2 or more points, per 100 games:\n" + "\n".join(lines)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows])


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def sprt_summary(result: ArenaResult) -> str | None:
    """One line on the SPRT, or None without one."""
    status = result.sprt
    if status is None:
        return None
    config = status.config
    verdict = {
        "H1": f"H1 accepted (elo1={config.elo1:g})",
        "H0": f"H0 accepted (elo0={config.elo0:g})",
        None: "no decision",
    }[status.decision]
    return (
        f"SPRT({config.elo0:g}, {config.elo1:g}), alpha={config.alpha:g}, beta={config.beta:g}: LLR "
        f"{status.llr:.2f} in [{config.lower_bound:.2f}, {config.upper_bound:.2f}] after {status.games} games: "
        f"{verdict}"
    )


def console_report(result: ArenaResult) -> str:
    """The tables printed by ``rlgames arena``."""
    config = result.config
    title = (
        f"{config.game}: {len(result.records)} games, seed {config.seed}; Elo anchored at "
        f"{result.names[config.anchor]} = {config.anchor_rating:g}"
    )
    parts = [title, text_table(*ranking_rows(result)), "", text_table(*pair_rows(result))]
    notes = [
        note
        for note in (
            method_note(result),
            points_note(result),
            big_wins_note(result),
            terminations_note(result),
            repeated_openings_note(result),
            sprt_summary(result),
        )
        if note
    ]
    return "\n".join(parts + [line for note in notes for line in ("", note)])


def repeated_openings_note(result: ArenaResult) -> str:
    """A warning when openings repeat, or "": deterministic engines then replay the same games, which
    the intervals count as independent. Not in a game with chance nodes, where each opening rolls its
    own dice, the same for its two games (`rlgames.arena.match`)."""
    if arena_game(result).info.has_chance:
        return ""
    openings = {record.game.opening for record in result.records}
    played = len({record.game.opening_index for record in result.records})
    if len(openings) >= played:
        return ""
    source = "in the file" if result.config.openings_file else f"of {result.config.opening_plies} plies"
    return (
        f"note: only {len(openings)} distinct openings {source} for {played} openings per pair: they "
        f"repeat, so deterministic engines replay the same games and the intervals are too narrow; "
        f"use more --opening-plies"
    )


def markdown_report(result: ArenaResult) -> str:
    config = result.config
    opening = (
        f"openings from {config.openings_file}"
        if config.openings_file
        else f"random openings of {config.opening_plies} plies"
    )
    games = (
        f"{len(result.records)} games ({config.games} per pair at most, {opening}, each played with both "
        f"colourings), seed {config.seed}."
    )
    method = (
        f"Ranking: Bradley-Terry maximum likelihood with draws as half a win, {config.prior_draws:g} virtual "
        f"draws per pair, anchored at {result.names[config.anchor]} = {config.anchor_rating:g}; intervals "
        f"from the Fisher information, relative to the anchor. Pairs: {method_note(result)} Points per game: "
        f"a player's return, in the game's utility range [{result.utility[0]:g}, {result.utility[1]:g}], with "
        f"the same estimator over single games, within the largest return the games reached."
    )
    lines = [
        f"# Arena: {config.game}",
        "",
        games,
        "",
        method,
        "",
        "## Ranking",
        "",
        markdown_table(*ranking_rows(result)),
        "",
        "## Pairs",
        "",
        markdown_table(*pair_rows(result)),
        "",
    ]
    big_wins = big_wins_note(result)
    if big_wins:
        lines += [big_wins.replace("\n", "\n\n"), ""]
    terminations = terminations_note(result)
    if terminations:
        lines += [terminations, ""]
    repeated = repeated_openings_note(result)
    if repeated:
        lines += [repeated, ""]
    summary = sprt_summary(result)
    if summary:
        lines += ["## SPRT", "", summary, ""]
    lines += ["## Plots", "", "![Elo](elo.png)", "", "![Scores](scores.png)", ""]
    return "\n".join(lines)


def write_results(result: ArenaResult, out: str | Path) -> Path:
    """Writes results.json, games.csv, report.md, elo.png and scores.png into ``out``, and games.pgn (the
    game's `record_format`) for a game that has one; returns ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results_dict(result), indent=2) + "\n")
    write_games_csv(result, folder / "games.csv")
    record_format = arena_game(result).record_format
    if record_format is not None:
        write_game_records(result, folder / f"games.{record_format}")
    (folder / "report.md").write_text(markdown_report(result))
    from rlgames.arena.plots import (  # matplotlib loads only when plots are drawn
        plot_elo,
        plot_scores,
    )

    plot_elo(result, folder / "elo.png")
    plot_scores(result, folder / "scores.png")
    return folder
