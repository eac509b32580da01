"""Self-play: many games stepped together, their MCTS leaves evaluated by one network call per batch.

`SelfPlay` plays an iteration's games, iteration after iteration, in this process (`play_games`) or split
among ``workers`` local processes or Ray actors (`play_iteration`: one iteration). `play_games` keeps
``parallel_games`` games in flight in a `MultiTreeMCTS`; each step searches every game's position at once
(``leaves_per_game`` leaves per tree and batch, all trees in the same `NetworkEvaluator.evaluate_batch`
call), records one training position per game and plays a move:
with PUCT, drawn from the visit distribution for the first ``temperature_moves`` moves and the search's
best move after that; with the Gumbel search, drawn from the root's visit counts for the first
``temperature_moves`` moves and the improved policy's most likely move after that (each search's
`play_action`);
chance outcomes are drawn by their probabilities. With ``random_move_fraction`` > 0, that fraction of the
games plays one uniformly random move (``random_moves_per_game`` of them, at distinct plies) at a ply drawn
uniformly below ``random_move_plies`` (AlphaGo's value-network data, Silver et al. 2016: the positions after
a random move, often a blunder, labelled by the play that follows). With ``archive_fraction`` > 0, that
fraction of the games starts from a position of an earlier game of the ``archive`` (Go-Exploit, Trudeau &
Bowling 2023; the trainer keeps the archive: each game comes back as an `ArchivedGame`). With
``sibling_fraction`` > 0, that fraction of the recorded positions also records a *sibling* (see `Siblings`).
With ``full_search_fraction`` < 1 (KataGo's playout cap randomisation, Wu 2019), each step is a full search
(``simulations``, recorded) with that probability and otherwise a fast one (``fast_simulations``, without
root noise, not recorded): the games stepped together share the draw, so that their network batches stay
full. The tree below the move played is kept (`MultiTreeMCTS.advance`). A finished game's slot starts the
next game until ``games_per_iteration`` have been started; once slots empty, the remaining games go on in fresh trees.

Each recorded position holds what the network reads of it (the observation, or the encoding the network
names: `NetworkEvaluator.inputs`) and the legal mask, from the side to move, the policy
target (the root's visit distribution; one-hot on the winning move when the search proved a win), the
final outcome from that side's point of view as a value in [-1, 1] (`rlgames.train.targets.outcome_values`:
a 2-point win of a game whose utility is (-2, 2) is 1, a 1-point win 0.5), mixed with the search's
root value by ``search_value_weight``, and its weight in the value loss: 0 for the positions up to and
including the last random move (their outcome no longer follows from the players' own moves), else 1,
and its weight in the policy loss (1, except for a sibling whose side to move is proven lost); and the
cells set in what the network would read of the game's final position, seen by that side (``finals``,
the target of a network's final-position head), weighted as the value (a sibling has none), and as it the
moves the game's players made after the position, over the game's longest length (``plies_left``, the
target of a moves-left head).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import torch
from rlgames.models import NetworkEvaluator
from rlgames.models.networks import (
    NetworkConfig,
    network_from_config,
    network_record,
)
from rlgames.train.alphazero.config import SelfPlayConfig
from rlgames.train.targets import outcome_values

from rlgames.evaluators import load_evaluator
from rlgames.game import Game, State
from rlgames.parallel import LOCAL, Backend, GameRecipe, LocalPool, fetch, game_recipe, rebuild_game
from rlgames.search import AlphaBeta, AlphaBetaConfig
from rlgames.search.mcts.config import GumbelConfig, MCTSConfig
from rlgames.search.mcts.gumbel import MultiTreeGumbel
from rlgames.search.mcts.puct import MultiTreeMCTS
from rlgames.search.result import MultiTreeSearch, SearchResult

if TYPE_CHECKING:
    from rlgames.parallel.ray_pool import RayPool


@dataclass(frozen=True)
class Positions:
    """A batch of training positions (N of them, A actions)."""

    observations: np.ndarray  # float32[N, *input_shape], what the network reads, from the side to move
    masks: np.ndarray  # bool[N, A], legal actions
    policies: np.ndarray  # float32[N, A], search policy targets
    values: np.ndarray  # float32[N], value target for the side to move: the outcome, mixed with the search's
    value_weights: np.ndarray  # float32[N], 1 where ``values`` is a value target, 0 before a random move
    policy_weights: np.ndarray  # float32[N], 1 where ``policies`` is a policy target, 0 for a proven-lost sibling
    finals: np.ndarray  # bool[N, *input_shape], the set cells of the game's final position, by the side to move
    final_weights: np.ndarray  # float32[N], 1 where ``finals`` is a target (as ``value_weights``), 0 for a sibling
    plies_left: np.ndarray  # float32[N], the game's moves after the position over its max length, as ``finals``

    def __len__(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class SelfPlayStats:
    """What an iteration's self-play did; ``evaluations`` counts positions sent to the network."""

    games: int
    positions: int  # searched: one per move
    siblings: int  # recorded besides, by `Siblings`
    evaluations: int
    seconds: float
    mean_length: float
    first_player_score: float  # mean result of player 0, as a value (`outcome_values`) in [-1, 1]
    archived: tuple[ArchivedGame, ...] = ()  # each game's moves and the positions an archive may start from


class ArchivedGame(NamedTuple):
    """A self-play game as the archive keeps it (``selfplay.archive_fraction``)."""

    moves: tuple[int, ...]
    """Its moves from the game's start, chance outcomes too."""
    starts: tuple[int, ...]
    """The positions a later game may start from, each the number of ``moves`` before it: the searched
    positions whose search value was within ``selfplay.archive_value_limit`` of 0."""


@dataclass
class _Game:
    """A game in flight and the positions recorded so far."""

    state: State
    random_plies: tuple[int, ...] = ()  # the decisions at which the game plays a uniformly random move
    path: list[int] = field(default_factory=list)  # the moves from the game's start (an archived start's too)
    path_at: list[int] = field(default_factory=list)  # len(path) at each recorded position
    decisions: int = 0  # moves played so far by a player (recorded or not)
    recorded_at: list[int] = field(default_factory=list)  # the decision of each recorded position
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    search_values: list[float] = field(default_factory=list)  # the root value, for the side to move
    siblings: list[Positions] = field(default_factory=list)  # one position each, labelled by a proof


class Siblings:
    """Positions one move off a self-play game's path, labelled where a short exact search proves them.

    Self-play visits the positions that good play reaches, but a depth-limited search evaluates the
    positions after every move, blunders included: there a small network's value is mushy (a value near
    0 where the side to move wins on the next move). So, for a ``fraction`` of the recorded positions,
    the positions after ``per_position`` distinct uniformly random legal moves are searched by exact
    alpha-beta (no evaluator: only the end of the game scores) to ``proof_depth`` plies and, where the
    search proves the result, recorded with that value (1 or -1 for the side to move) as value target,
    the proving move (the fastest win) as policy target for a win and no policy target for a loss. The
    search is the bootstrap of Veness et al. 2009 (training the evaluation toward the values of the
    search that will use it) limited to the values the search knows exactly. Games with chance nodes
    (where alpha-beta does not apply) record none.

    On connect four the network trained without them valued a position where the side to move wins on
    the next move far lower, and lost to the hand-crafted evaluation inside alpha-beta where the
    ``connect_four_small`` preset with them beats it (docs/research/alphazero.md, "Connect four").
    """

    def __init__(
        self, game: Game, evaluator: NetworkEvaluator, fraction: float, proof_depth: int, per_position: int = 1
    ) -> None:
        self.evaluator = evaluator  # what the network reads of a position (`NetworkEvaluator.inputs`)
        self.fraction = 0.0 if game.has_chance else fraction
        self.per_position = per_position
        # fixed depth and no transposition table: nothing is allocated per call, so a shallow proof costs
        # little more than the Python call
        self.prover = AlphaBeta(
            load_evaluator("zero", game), AlphaBetaConfig(depth=proof_depth, tt_size_mb=0.0, iterative_deepening=False)
        )

    def record(self, played: _Game, rng: np.random.Generator) -> None:
        """Maybe records siblings of ``played``'s current position (no random number is drawn when
        ``fraction`` is 0, so such runs keep their streams)."""
        if not self.fraction or rng.random() >= self.fraction:
            return
        actions = played.state.legal_actions()
        if self.per_position == 1:
            chosen = [actions[int(rng.integers(len(actions)))]]
        else:
            chosen = [actions[i] for i in rng.permutation(len(actions))[: self.per_position]]
        for action in chosen:
            sibling = played.state.apply(action)
            if not sibling.is_terminal():
                self._prove(played, sibling)

    def _prove(self, played: _Game, sibling: State) -> None:
        """Records ``sibling`` in ``played`` if the search proves its result."""
        result = self.prover.search(sibling)
        if result.plies_to_end is None:
            return
        won = result.value > 0
        policy = np.zeros(sibling.game.num_actions, dtype=np.float32)
        if won:
            policy[result.action] = 1.0
        played.siblings.append(
            Positions(
                observations=self.evaluator.inputs(sibling)[None],
                masks=sibling.legal_action_mask().astype(bool)[None],
                policies=policy[None],
                values=np.array([result.value], dtype=np.float32),
                value_weights=np.ones(1, dtype=np.float32),
                policy_weights=np.array([float(won)], dtype=np.float32),
                finals=np.zeros((1, *self.evaluator.input_shape), dtype=bool),
                final_weights=np.zeros(1, dtype=np.float32),
                plies_left=np.zeros(1, dtype=np.float32),
            )
        )


def make_search(
    config: SelfPlayConfig, evaluator: NetworkEvaluator, seed: int, *, fast: bool = False
) -> MultiTreeSearch:
    """The search that makes the training targets: Gumbel AlphaZero (its improved policy is the target
    and Sequential Halving picks the move) or PUCT with Dirichlet noise (visit counts are the target);
    ``fast``: the playout cap's fast search (``config.fast_simulations``, no root noise), whose moves are
    played and not recorded. ``config.search`` must be settled
    (`rlgames.train.alphazero.config.settle_for_device`), not "auto"."""
    if config.search not in ("puct", "gumbel"):
        raise ValueError(
            f"self-play needs search 'puct' or 'gumbel', got {config.search!r}: settle 'auto' "
            f"for the device first (train.config.settle_for_device)"
        )
    simulations = config.fast_simulations if fast else config.simulations
    if config.search == "gumbel":
        return MultiTreeGumbel(GumbelConfig(simulations=simulations), evaluator, seed=seed)
    return MultiTreeMCTS(search_config(config, fast=fast), evaluator, seed=seed)


def search_config(config: SelfPlayConfig, *, fast: bool = False) -> MCTSConfig:
    """The MCTS settings of PUCT self-play (``fast``: of the playout cap's fast search, which KataGo runs
    without root noise)."""
    return MCTSConfig(
        simulations=config.fast_simulations if fast else config.simulations,
        selection="puct",
        c_puct=config.c_puct,
        batch_size=config.leaves_per_game,
        root_noise=not fast,
        dirichlet_alpha=config.dirichlet_alpha,
        dirichlet_epsilon=config.dirichlet_epsilon,
        forced_playouts=0.0 if fast else config.forced_playouts,
        temperature=0.0,
        solver=True,
    )


class SelfPlay:
    """An iteration's self-play (`play`), iteration after iteration, with ``config.workers`` workers: in this
    process (1 worker), or in a pool started by the first iteration and kept until `close`: local processes
    (`rlgames.parallel.LocalPool`) or Ray actors (`rlgames.parallel.ray_pool.RayPool`), so that a run pays
    their start (imports, compiled code, oneDNN's kernels) once. Each iteration's network goes to the pool
    once, as a new version (`put`), and a worker loads it with the first share of that version it plays; a
    restarted Ray actor holds no version and loads the one its share names. The same seed and number of
    workers give the same positions on either backend."""

    def __init__(self, game: Game, config: SelfPlayConfig, backend: Backend = LOCAL) -> None:
        self.game, self.config, self.backend = game, config, backend
        self.pool: LocalPool | RayPool | None = None  # started by the first `play` with workers
        self.version = 0  # the network versions sent to the pool

    def play(
        self, evaluator: NetworkEvaluator, seed: int, archive: Sequence[ArchivedGame] = ()
    ) -> tuple[Positions, SelfPlayStats]:
        """``config.games_per_iteration`` games with ``evaluator``'s network: `play_games` in this process, or
        an equal share in each worker, each with a copy of the network on the CPU (in ``evaluator``'s precision)
        and its share's seed drawn from ``(seed, share)`` (`share_seed`); the shares' positions in order.
        ``archive``: the earlier games' moves that ``config.archive_fraction`` of the games start from."""
        config = self.config
        if config.workers == 1:
            return play_games(self.game, evaluator, config, seed, archive)
        start = time.perf_counter()
        parts = np.array_split(np.arange(config.games_per_iteration), config.workers)
        shares = [(share_seed(seed, k), len(part), archive) for k, part in enumerate(parts) if len(part)]
        played = list(self._play_shares(evaluator, shares))
        return concatenate([positions for positions, _ in played]), merged(
            [stats for _, stats in played], time.perf_counter() - start
        )

    def close(self) -> None:
        """Ends the pool's workers, if any (a later `play` starts others)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _play_shares(
        self, evaluator: NetworkEvaluator, shares: list[tuple[int, int, Sequence[ArchivedGame]]]
    ) -> Iterator[tuple[Positions, SelfPlayStats]]:
        network = evaluator.network
        if self.pool is None:
            setup_args = (game_recipe(self.game), self.config, network.config.to_dict(), evaluator.precision)
            if self.backend.kind == "local":
                self.pool = LocalPool(len(shares), _worker_setup, setup_args)
            else:
                from rlgames.parallel.ray_pool import RayPool  # Ray is imported only when asked for

                self.pool = RayPool(len(shares), _worker_setup, setup_args, self.backend.address)
        self.version += 1
        weights = self.pool.put(network_record(network)[1])
        return self.pool.map(_play_versioned_share, [(self.version, weights, *share) for share in shares])


def play_iteration(
    game: Game,
    evaluator: NetworkEvaluator,
    config: SelfPlayConfig,
    seed: int,
    *,
    backend: Backend = LOCAL,
    archive: Sequence[ArchivedGame] = (),
) -> tuple[Positions, SelfPlayStats]:
    """One iteration's self-play (`SelfPlay.play`) on ``backend``, its workers ended after it."""
    selfplay = SelfPlay(game, config, backend)
    try:
        return selfplay.play(evaluator, seed, archive)
    finally:
        selfplay.close()


def share_seed(seed: int, share: int) -> int:
    """The seed of share ``share`` of an iteration seeded ``seed``."""
    return int(np.random.SeedSequence([seed, share]).generate_state(1, dtype=np.uint32)[0])


def _play_share(
    context: tuple[Game, NetworkEvaluator, SelfPlayConfig], item: tuple[int, int, Sequence[ArchivedGame]]
) -> tuple[Positions, SelfPlayStats]:
    game, evaluator, config = context
    seed, games, archive = item
    evaluator.clear_cache()  # a worker may play several shares: each starts as it would in any worker
    share = dataclasses.replace(
        config, games_per_iteration=games, parallel_games=min(config.parallel_games, games), workers=1
    )
    return play_games(game, evaluator, share, seed, archive)


@dataclass
class _Worker:
    """A pool worker's self-play: its game, its network's evaluator, the settings, and the network version it
    holds (0: none yet, only the weights it was built with)."""

    game: Game
    evaluator: NetworkEvaluator
    config: SelfPlayConfig
    version: int = 0


def _worker_setup(recipe: GameRecipe, config: SelfPlayConfig, network: dict[str, Any], precision: str) -> _Worker:
    """A worker's game and a network of the run's architecture (``network``, its config, evaluated in
    ``precision``), weights to come."""
    game = rebuild_game(recipe)
    net = network_from_config(NetworkConfig.from_dict(network)).eval()
    return _Worker(game, NetworkEvaluator(net, game, precision=precision), config)


def _play_versioned_share(
    worker: _Worker, item: tuple[int, Any, int, int, Sequence[ArchivedGame]]
) -> tuple[Positions, SelfPlayStats]:
    """A share (seed, games, archive) with network ``version``, whose weights (what the pool's ``put`` gave) the
    worker fetches (`rlgames.parallel.fetch`) when it holds another version."""
    version, weights, seed, games, archive = item
    if version != worker.version:
        worker.evaluator.network.load_state_dict({k: torch.tensor(v) for k, v in fetch(weights).items()})
        worker.version = version
    return _play_share((worker.game, worker.evaluator, worker.config), (seed, games, archive))


def merged(parts: list[SelfPlayStats], seconds: float) -> SelfPlayStats:
    """The stats of shares played side by side in ``seconds``."""
    games, positions = sum(s.games for s in parts), sum(s.positions for s in parts)
    return SelfPlayStats(
        games=games,
        positions=positions,
        siblings=sum(s.siblings for s in parts),
        evaluations=sum(s.evaluations for s in parts),
        seconds=seconds,
        mean_length=positions / games,
        first_player_score=sum(s.first_player_score * s.games for s in parts) / games,
        archived=tuple(game for s in parts for game in s.archived),
    )


def play_games(
    game: Game,
    evaluator: NetworkEvaluator,
    config: SelfPlayConfig,
    seed: int,
    archive: Sequence[ArchivedGame] = (),
) -> tuple[Positions, SelfPlayStats]:
    """Plays ``config.games_per_iteration`` games, ``config.archive_fraction`` of them from positions of the
    ``archive``'s games; positions come out game by game, in the order the games end. Everything random
    derives from ``seed``."""
    start, evaluations = time.perf_counter(), evaluator.evaluations
    search_seed, move_seed, fast_seed = np.random.SeedSequence(seed).generate_state(3, dtype=np.uint32)
    full_search = make_search(config, evaluator, int(search_seed))
    capped = config.full_search_fraction < 1.0
    fast_search = make_search(config, evaluator, int(fast_seed), fast=True) if capped else full_search
    rng = np.random.default_rng(int(move_seed))
    siblings = Siblings(
        game, evaluator, config.sibling_fraction, config.sibling_proof_depth, config.siblings_per_position
    )
    in_flight = [
        _new_game(game, config, rng, archive) for _ in range(min(config.parallel_games, config.games_per_iteration))
    ]
    started, finished = len(in_flight), []
    while in_flight:
        # no random number is drawn without the playout cap, so such runs keep their streams
        full = not capped or rng.random() < config.full_search_fraction
        search = full_search if full else fast_search
        results = search.search_many([g.state for g in in_flight])
        still_playing = []
        for index, (played, result) in enumerate(zip(in_flight, results)):
            if full:
                _record(played, result, evaluator)
                siblings.record(played, rng)
            if _play_move(search, index, played, result, config.temperature_moves, rng):
                still_playing.append(played)
                continue
            finished.append(played)
            if started < config.games_per_iteration:  # the slot starts a new game (a fresh tree)
                still_playing.append(_new_game(game, config, rng, archive))
                started += 1
        in_flight = still_playing  # with fewer games than trees, MultiTreeMCTS rebuilds its trees
    positions = _collect(game, evaluator, finished, config.search_value_weight)
    recorded = sum(len(g.players) for g in finished)
    stats = SelfPlayStats(
        games=len(finished),
        positions=recorded,
        siblings=len(positions) - recorded,
        evaluations=evaluator.evaluations - evaluations,
        seconds=time.perf_counter() - start,
        mean_length=sum(g.decisions for g in finished) / len(finished),
        first_player_score=float(np.mean([outcome_values(g.state)[0] for g in finished])),
        archived=tuple(_archived(g, config.archive_value_limit) for g in finished),
    )
    return positions, stats


def _new_game(game: Game, config: SelfPlayConfig, rng: np.random.Generator, archive: Sequence[ArchivedGame]) -> _Game:
    """A game from the start, or with probability ``config.archive_fraction`` from a position of a game of
    the ``archive`` (a game, then one of its `ArchivedGame.starts`, each drawn uniformly), past the chance outcomes
    it may open with (backgammon's first roll); it plays random moves with probability
    ``config.random_move_fraction``. No random number is drawn for a fraction that is 0, so such runs keep
    their streams."""
    state, path = game.new_initial_state(), []
    if config.archive_fraction and archive and rng.random() < config.archive_fraction:
        earlier = archive[int(rng.integers(len(archive)))]
        path = list(earlier.moves[: earlier.starts[int(rng.integers(len(earlier.starts)))]])
        for move in path:
            state = state.apply(move)
    while state.is_chance_node():
        path.append(state.sample_chance_outcome(rng))
        state = state.apply(path[-1])
    if config.random_move_fraction and rng.random() < config.random_move_fraction:
        plies: set[int] = set()
        while len(plies) < config.random_moves_per_game:  # one draw for one move, as before there could be more
            plies.add(int(rng.integers(config.random_move_plies)))
        return _Game(state, random_plies=tuple(sorted(plies)), path=path)
    return _Game(state, path=path)


def _play_move(
    search: MultiTreeSearch,
    index: int,
    played: _Game,
    result: SearchResult,
    temperature_moves: int,
    rng: np.random.Generator,
) -> bool:
    """Plays the move of game ``played`` (tree ``index``) searched by ``result`` and the chance outcomes
    after it, and moves the tree along; returns whether the game goes on."""
    if played.decisions in played.random_plies:
        actions = played.state.legal_actions()
        moves = [actions[int(rng.integers(len(actions)))]]
    else:
        moves = [search.play_action(index, result, played.decisions < temperature_moves, rng)]
    played.decisions += 1
    played.state = played.state.apply(moves[0])
    while played.state.is_chance_node():
        moves.append(played.state.sample_chance_outcome(rng))
        played.state = played.state.apply(moves[-1])
    played.path += moves
    if played.state.is_terminal():
        return False
    for move in moves:  # MCTS keeps the subtree; the Gumbel search starts afresh anyway
        search.advance(index, move)
    return True


def _record(played: _Game, result: SearchResult, evaluator: NetworkEvaluator) -> None:
    """Records the position of ``played`` searched by ``result``: what ``evaluator``'s network reads of it,
    legal mask, policy target."""
    state = played.state
    policy = result.policy
    if result.value == 1.0 and result.plies_to_end is not None:  # a proven win: the winning move
        policy = np.zeros_like(policy)
        policy[result.action] = 1.0
    played.observations.append(evaluator.inputs(state))
    played.masks.append(state.legal_action_mask().astype(bool))
    played.policies.append(policy.astype(np.float32))
    played.players.append(state.current_player())
    played.search_values.append(result.value)
    played.recorded_at.append(played.decisions)
    played.path_at.append(len(played.path))


def _archived(played: _Game, value_limit: float) -> ArchivedGame:
    """``played`` as the archive keeps it: its moves, and its searched positions valued within
    ``value_limit`` of 0."""
    starts = (at for at, value in zip(played.path_at, played.search_values) if abs(value) <= value_limit)
    return ArchivedGame(tuple(played.path), tuple(starts))


def _collect(game: Game, evaluator: NetworkEvaluator, games: list[_Game], search_value_weight: float) -> Positions:
    """The positions of finished games, each game's followed by its siblings (none at all when the
    playout cap recorded nothing). A game position is labelled with ``(1 - w) z + w q`` for
    ``w = search_value_weight``, the outcome ``z`` as a value (`outcome_values`) and the search's root value
    ``q`` for its side to move, and weighted 0 in the value loss up to and including the game's last
    random move."""
    parts = [zero_positions(0, evaluator.input_shape, game.num_actions)]
    w = search_value_weight
    for played in games:
        if not played.players:  # every move of the game was a fast search
            continue
        z = outcome_values(played.state)  # player 0's and player 1's, in [-1, 1]
        n = len(played.players)
        finals = [evaluator.inputs(played.state, player) > 0.5 for player in range(2)]  # the end, by each side
        last_random = max(played.random_plies, default=-1)
        value_weights = (np.array(played.recorded_at) > last_random).astype(np.float32)
        parts.append(
            Positions(
                observations=np.stack(played.observations),
                masks=np.stack(played.masks),
                policies=np.stack(played.policies),
                values=np.array(
                    [(1.0 - w) * z[p] + w * q for p, q in zip(played.players, played.search_values)], dtype=np.float32
                ),
                value_weights=value_weights,
                policy_weights=np.ones(n, dtype=np.float32),
                finals=np.stack([finals[p] for p in played.players]),
                final_weights=value_weights,
                plies_left=(played.decisions - np.array(played.recorded_at, dtype=np.float32)) / game.max_game_length,
            )
        )
        parts += played.siblings
    return concatenate(parts)


def zero_positions(count: int, input_shape: tuple[int, ...], num_actions: int) -> Positions:
    """``count`` positions of zeros, of the given shapes (`Positions`' dtypes)."""
    return Positions(
        observations=np.zeros((count, *input_shape), dtype=np.float32),
        masks=np.zeros((count, num_actions), dtype=bool),
        policies=np.zeros((count, num_actions), dtype=np.float32),
        values=np.zeros(count, dtype=np.float32),
        value_weights=np.zeros(count, dtype=np.float32),
        policy_weights=np.zeros(count, dtype=np.float32),
        finals=np.zeros((count, *input_shape), dtype=bool),
        final_weights=np.zeros(count, dtype=np.float32),
        plies_left=np.zeros(count, dtype=np.float32),
    )


def concatenate(parts: list[Positions]) -> Positions:
    """The positions of ``parts`` (not empty), in order."""
    return Positions(
        *(np.concatenate([getattr(part, f.name) for part in parts]) for f in dataclasses.fields(Positions))
    )
