"""Round-robin tournaments between agents given by spec strings.

Every pair of players meets ``games`` times (an even number): ``games / 2`` openings, the same for every
pair, each played twice with the colours swapped. Openings come from a file or are random lines of
``opening_plies`` plies drawn from the seed without repeats (`rlgames.arena.openings`). Each game is
re-seeded from the tournament's seed and its index (`rlgames.arena.match`), so a serial run
(``workers=1``) and a parallel one give the same games. Budgets are matched through the specs: equal
depth (``alphabeta(depth=4, model=FILE)`` against ``alphabeta(depth=4)``), equal nodes, or equal time
(``alphabeta(time=0.1, model=FILE)`` against ``alphabeta(time=0.1)``; each game record keeps every
player's time per move, so the report shows that the budgets held). Timed players are not reproducible.

In parallel, games run in a process pool (the "spawn" context) whose workers build the game and every
player's agent from the specs once. Results are taken in schedule order; with an SPRT (two players
only) the match stops at the first game after which the test decides, and the games after it are
dropped, so the stop is reproducible too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np
from tqdm import tqdm

from rlgames.agents.spec import load_agent, parse_spec
from rlgames.arena.elo import EloFit, fit_elo
from rlgames.arena.journal import JournalWriter, identity, read_journal, refuse_overwrite
from rlgames.arena.match import GameRecord, ScheduledGame, play_game
from rlgames.arena.openings import file_openings, random_openings
from rlgames.arena.positions import Line
from rlgames.arena.scores import PairResult, merge_counts, pair_results, score_matrices
from rlgames.arena.sprt import SprtConfig, SprtResult, sprt_pairs
from rlgames.game import Game
from rlgames.parallel import LOCAL, Backend, GameRecipe, game_recipe, map_ordered, rebuild_game
from rlgames.registry import load_game

OPENINGS_KEY = 1
"""Spawn key of the openings' seed sequence (games use `rlgames.arena.match.GAMES_KEY`)."""


@dataclass(frozen=True)
class ArenaConfig:
    """A tournament: the game (name and parameters), the players' specs and how to play them.

    ``games`` counts the games of each pair (even: each opening is played with both colourings);
    ``openings_file`` takes precedence over ``opening_plies``; ``anchor`` is the index of the player
    whose Elo is held at ``anchor_rating``; ``prior_draws`` is the Elo fit's prior (`rlgames.arena.elo`:
    one virtual draw per pair by default, so that a perfect score keeps a finite rating; 0 for the plain
    maximum likelihood); ``sprt`` stops a two-player match early; ``backend`` runs the ``workers`` as local
    processes or Ray actors (`rlgames.parallel.Backend`: the same games either way).
    """

    game: str
    specs: tuple[str, ...]
    games: int = 100
    seed: int = 0
    workers: int = 1
    opening_plies: int = 2
    openings_file: str | None = None
    game_params: tuple[tuple[str, Any], ...] = ()
    anchor: int = 0
    anchor_rating: float = 0.0
    prior_draws: float = 1.0
    sprt: SprtConfig | None = None
    backend: Backend = LOCAL

    def __post_init__(self) -> None:
        if len(self.specs) < 2:
            raise ValueError(f"an arena needs at least two players, got {len(self.specs)}")
        if self.games < 2 or self.games % 2:
            raise ValueError(
                f"games per pair must be even and at least 2 (each opening is played with both "
                f"colourings), got {self.games}"
            )
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if not 0 <= self.anchor < len(self.specs):
            raise ValueError(f"anchor {self.anchor} is not a player index in [0, {len(self.specs)})")
        if self.sprt is not None and len(self.specs) != 2:
            raise ValueError(f"the SPRT needs exactly two players, got {len(self.specs)}")


@dataclass(frozen=True)
class ArenaResult:
    """A finished tournament: the players' display names, every game, the pairs, the Elo fit and,
    for a match with an SPRT, where the test stopped; ``utility`` is the game's (the range of a
    player's points per game) and ``game`` the game played."""

    config: ArenaConfig
    names: tuple[str, ...]
    records: tuple[GameRecord, ...]
    pairs: tuple[PairResult, ...]
    elo: EloFit
    sprt: SprtResult | None
    utility: tuple[int, int] = (-1, 1)
    game: Game | None = field(default=None, compare=False, repr=False)

    def terminations(self) -> dict[str, int]:
        """How many games ended each way (``"normal"``, ``"repetition"``...), by name."""
        return dict(merge_counts(*(pair.terminations for pair in self.pairs)))


def player_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: each spec as written, with ``#2``, ``#3``... on repeats of the same spec."""
    names = []
    for i, spec in enumerate(specs):
        repeats = sum(other.strip() == spec.strip() for other in specs[:i])
        names.append(spec.strip() + (f"#{repeats + 1}" if repeats else ""))
    return tuple(names)


def resolve_anchor(text: str, specs: Sequence[str]) -> int:
    """The player index named by ``text``: an index, a display name, or a spec equal to a player's."""
    if text.strip().isdigit():
        return int(text)
    names = player_names(specs)
    if text.strip() in names:
        return names.index(text.strip())
    parsed = [str(parse_spec(spec)) for spec in specs]
    wanted = str(parse_spec(text))
    if wanted in parsed:
        return parsed.index(wanted)
    raise ValueError(f"anchor {text!r} is neither a player index nor one of the players: {', '.join(names)}")


def schedule(config: ArenaConfig, game: Game) -> list[ScheduledGame]:
    """Every game of the tournament, pair by pair, opening by opening, each opening with both colourings."""
    openings = choose_openings(config, game)
    games: list[ScheduledGame] = []
    for i, j in itertools.combinations(range(len(config.specs)), 2):
        for k, opening in enumerate(openings):
            for first, second in ((i, j), (j, i)):
                games.append(ScheduledGame(len(games), first, second, k, opening, config.seed))
    return games


def choose_openings(config: ArenaConfig, game: Game) -> list[Line]:
    count = config.games // 2
    if config.openings_file is not None:
        return file_openings(game, config.openings_file, count)
    rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(OPENINGS_KEY,)))
    return random_openings(game, count, config.opening_plies, rng)


def run_arena(
    config: ArenaConfig,
    *,
    game: Game | None = None,
    progress: bool = False,
    journal: str | Path | None = None,
    resume: bool = False,
) -> ArenaResult:
    """Plays the tournament (stopping early when an SPRT decides) and fits the Elo ratings; ``progress``
    draws a bar on stderr. ``game`` plays a `Game` instance (one the registry need not know) instead of
    loading ``config.game``, which must then be its name, with no ``config.game_params``: the result's
    config records the instance's parameters. ``journal`` is a file that gets every game as it finishes
    (`rlgames.arena.journal`); with ``resume`` the games it holds are taken from it, not played again (a
    missing journal starts afresh), and without, an existing one is refused."""
    if game is None:
        game = load_game(config.game, **dict(config.game_params))
    else:
        if config.game != game.name or config.game_params:
            raise ValueError(
                f"with a Game instance, config.game must be its name ({game.name!r}, got "
                f"{config.game!r}) and config.game_params empty (got {config.game_params!r})"
            )
        config = dataclasses.replace(config, game_params=tuple(game.params.items()))
    scheduled = schedule(config, game)
    header = identity(config.game, config.game_params, config.specs, config.seed)
    kept = _kept_games(journal, resume, header, scheduled)
    writer = JournalWriter(journal, header, kept.values()) if journal is not None else None
    records: list[GameRecord] = []
    pairs = [0, 0, 0, 0, 0]  # player 0's pentanomial counts against player 1, for the SPRT
    halves: dict[int, float] = {}  # opening -> player 0's score in the pair's first finished game
    status = None
    with (
        tqdm(total=len(scheduled), unit="game", disable=not progress) as bar,
        contextlib.closing(_played(config, game, [g for g in scheduled if g.index not in kept])) as played,
        contextlib.closing(writer) if writer is not None else contextlib.nullcontext(),
    ):
        for scheduled_game in scheduled:
            record = kept.get(scheduled_game.index)
            if record is None:
                record = next(played)
                if writer is not None:
                    writer.add(record)
            records.append(record)
            bar.update()
            if config.sprt is not None and record.game.opening_index in halves:
                pair_score = halves.pop(record.game.opening_index) + _first_player_score(record)
                pairs[int(round(2 * pair_score))] += 1
                status = sprt_pairs(config.sprt, pairs)
                if status.decision is not None:
                    break
            elif config.sprt is not None:
                halves[record.game.opening_index] = _first_player_score(record)
    results = pair_results(records, len(config.specs))
    points, games = score_matrices(results, len(config.specs))
    elo = fit_elo(
        points, games, anchor=config.anchor, anchor_rating=config.anchor_rating, prior_draws=config.prior_draws
    )
    return ArenaResult(
        config, player_names(config.specs), tuple(records), results, elo, status, game.info.utility, game
    )


def _kept_games(
    journal: str | Path | None, resume: bool, header: dict[str, Any], scheduled: list[ScheduledGame]
) -> dict[int, GameRecord]:
    """The games of ``journal`` to keep, by index: none without one, or where it is not to be resumed."""
    if journal is None:
        return {}
    if not resume:
        refuse_overwrite(journal)
        return {}
    if not Path(journal).exists():
        return {}
    return {record.game.index: record for record in read_journal(journal, header, scheduled)}


def _first_player_score(record: GameRecord) -> float:
    """Player 0's score (whatever its colour) in a game of a two-player match."""
    return record.score if record.game.first == 0 else 1.0 - record.score


def _played(config: ArenaConfig, game: Game, scheduled: list[ScheduledGame]) -> Generator[GameRecord, None, None]:
    """The games' records in schedule order, played here or by ``config.workers`` processes
    (`rlgames.parallel`), each building its own game from the registry name and parameters, and its
    agents (none are built where no game is left to play)."""
    if not scheduled:
        return
    agents = _build(game, config.specs)  # a bad spec fails here, not in a worker
    yield from map_ordered(
        _play,
        scheduled,
        workers=config.workers,
        setup=_set_up,
        setup_args=(game_recipe(game), tuple(config.specs)),
        local=(game, agents),
        backend=config.backend,
    )


def _build(game: Game, specs: Sequence[str]) -> list[Any]:
    """The players' agents, each compiled first by a throwaway twin (`warm_up`), once every spec has
    built: a bad spec or a missing checkpoint is reported before anything compiles."""
    agents = [load_agent(spec, game) for spec in specs]
    for spec in specs:
        warm_up(game, spec)
    return agents


def warm_up(game: Game, spec: str) -> None:
    """Compiles what ``spec``'s agent runs, so that the players' timed moves exclude numba's compilation:
    a throwaway agent (the players keep no state from it) searches the last decision position of a
    seeded random game, where any search is quick."""
    rng = np.random.default_rng(0)
    state, last = game.new_initial_state(), None
    while not state.is_terminal():
        if not state.is_chance_node():
            last = state
        state = state.apply(
            state.sample_chance_outcome(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions()))
        )
    load_agent(spec, game).search(last)


def _set_up(recipe: GameRecipe, specs: Sequence[str]) -> tuple[Game, list[Any]]:
    """A worker's game, rebuilt from its registry name and parameters, and its agents."""
    game = rebuild_game(recipe)
    return game, _build(game, specs)


def _play(context: tuple[Game, list[Any]], scheduled: ScheduledGame) -> GameRecord:
    game, agents = context
    return play_game(game, agents, scheduled)
