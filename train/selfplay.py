"""Self-play: many games stepped together, their MCTS leaves evaluated by one network call per batch.

`play_games` keeps ``parallel_games`` games in flight in a `MultiTreeMCTS`; each step searches every
game's position at once (``leaves_per_game`` leaves per tree and batch, all trees in the same
`NetworkEvaluator.evaluate_batch` call), records one training position per game and plays a move:
with PUCT, drawn from the visit distribution for the first ``temperature_moves`` moves and the search's
best move after that; with the Gumbel search, drawn from the root's visit counts for the first
``temperature_moves`` moves and the improved policy's most likely move after that (see `choose_move`);
chance outcomes are drawn by their probabilities. The tree below the move played is kept
(`MultiTreeMCTS.advance`). A finished game's slot starts the next game until ``games_per_iteration``
have been started; once slots empty, the remaining games go on in fresh trees.

Each recorded position holds the observation and legal mask from the side to move, the policy
target (the root's visit distribution; one-hot on the winning move when the search proved a win), and
the final outcome from that side's point of view.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from models import NetworkEvaluator
from rlgames.game import Game, State
from rlgames.search.gumbel import GumbelConfig, MultiTreeGumbel
from rlgames.search.mcts import MCTSConfig, MultiTreeMCTS
from rlgames.search.result import SearchResult
from train.config import SelfPlayConfig


@dataclass(frozen=True)
class Positions:
    """A batch of training positions (N of them, A actions)."""

    observations: np.ndarray  # float32[N, *observation_shape], from the side to move
    masks: np.ndarray  # bool[N, A], legal actions
    policies: np.ndarray  # float32[N, A], search policy targets
    values: np.ndarray  # float32[N], final outcome for the side to move

    def __len__(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class SelfPlayStats:
    """What an iteration's self-play did; ``evaluations`` counts positions sent to the network."""

    games: int
    positions: int
    evaluations: int
    seconds: float
    mean_length: float
    first_player_score: float  # mean result of player 0, in [-1, 1]


@dataclass
class _Game:
    """A game in flight and the positions recorded so far."""

    state: State
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    players: list[int] = field(default_factory=list)


def make_search(config: SelfPlayConfig, evaluator: NetworkEvaluator, seed: int) -> MultiTreeMCTS | MultiTreeGumbel:
    """The search that makes the training targets: Gumbel AlphaZero (its improved policy is the target
    and Sequential Halving picks the move) or PUCT with Dirichlet noise (visit counts are the target).
    ``config.search`` must be settled (`train.config.settle_for_device`), not "auto"."""
    if config.search not in ("puct", "gumbel"):
        raise ValueError(f"self-play needs search 'puct' or 'gumbel', got {config.search!r}: settle 'auto' "
                         f"for the device first (train.config.settle_for_device)")
    if config.search == "gumbel":
        return MultiTreeGumbel(GumbelConfig(simulations=config.simulations), evaluator, seed=seed)
    return MultiTreeMCTS(search_config(config), evaluator, seed=seed)


def search_config(config: SelfPlayConfig) -> MCTSConfig:
    """The MCTS settings of PUCT self-play."""
    return MCTSConfig(simulations=config.simulations, selection="puct", c_puct=config.c_puct,
                      batch_size=config.leaves_per_game, root_noise=True, dirichlet_alpha=config.dirichlet_alpha,
                      dirichlet_epsilon=config.dirichlet_epsilon, temperature=0.0, solver=True)


def play_games(game: Game, evaluator: NetworkEvaluator, config: SelfPlayConfig, seed: int) -> tuple[Positions, SelfPlayStats]:
    """Plays ``config.games_per_iteration`` games; positions come out game by game, in the order the
    games end. Everything random derives from ``seed``."""
    start, evaluations = time.perf_counter(), evaluator.evaluations
    search_seed, move_seed = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint32)
    search = make_search(config, evaluator, int(search_seed))
    rng = np.random.default_rng(int(move_seed))
    in_flight = [_Game(game.new_initial_state()) for _ in range(min(config.parallel_games, config.games_per_iteration))]
    started, finished = len(in_flight), []
    while in_flight:
        results = search.search_many([g.state for g in in_flight])
        still_playing = []
        for index, (played, result) in enumerate(zip(in_flight, results)):
            if _play_move(search, index, played, result, config.temperature_moves, rng):
                still_playing.append(played)
                continue
            finished.append(played)
            if started < config.games_per_iteration:  # the slot starts a new game (a fresh tree)
                still_playing.append(_Game(game.new_initial_state()))
                started += 1
        in_flight = still_playing  # with fewer games than trees, MultiTreeMCTS rebuilds its trees
    positions = _collect(finished)
    stats = SelfPlayStats(games=len(finished), positions=len(positions), evaluations=evaluator.evaluations - evaluations,
                          seconds=time.perf_counter() - start, mean_length=len(positions) / len(finished),
                          first_player_score=float(np.mean([g.state.returns()[0] for g in finished])))
    return positions, stats


def _play_move(search: MultiTreeMCTS | MultiTreeGumbel, index: int, played: _Game, result: SearchResult, temperature_moves: int,
               rng: np.random.Generator) -> bool:
    """Records the position of game ``played`` (tree ``index``), plays its move and the chance outcomes
    after it, and moves the tree along; returns whether the game goes on."""
    _record(played, result)
    moves = [choose_move(search, index, result, len(played.players) <= temperature_moves, rng)]
    played.state = played.state.apply(moves[0])
    while played.state.is_chance_node():
        moves.append(played.state.sample_chance_outcome(rng))
        played.state = played.state.apply(moves[-1])
    if played.state.is_terminal():
        return False
    if isinstance(search, MultiTreeMCTS):  # keep the subtree (the Gumbel search starts afresh)
        for move in moves:
            search.advance(index, move)
    return True


def _record(played: _Game, result: SearchResult) -> None:
    """Records the position of ``played`` searched by ``result``: observation, legal mask, policy target."""
    state = played.state
    policy = result.policy
    if result.value == 1.0 and result.plies_to_end is not None:  # a proven win: the winning move
        policy = np.zeros_like(policy)
        policy[result.action] = 1.0
    played.observations.append(state.observation(state.current_player()))
    played.masks.append(state.legal_action_mask().astype(bool))
    played.policies.append(policy.astype(np.float32))
    played.players.append(state.current_player())


def choose_move(search: MultiTreeMCTS | MultiTreeGumbel, index: int, result: SearchResult, opening: bool,
            rng: np.random.Generator) -> int:
    """The move to play after ``result``, the search of tree ``index``.

    PUCT: in the ``opening`` a move drawn from the visit distribution (AlphaZero's temperature 1) unless
    the search proved the result, afterwards the most-visited move. Gumbel: in the ``opening`` a move
    drawn from the root's visit counts, afterwards the improved policy's most likely move. Not the
    Sequential Halving choice, whose noise barely matters once ``sigma(completed Q)`` (about 50 logits
    between best and worst) dominates: on tic-tac-toe, playing it in the opening made every self-play game the
    same draw within 30 iterations, whereas Sequential Halving's visits are spread over the considered actions."""
    if isinstance(search, MultiTreeGumbel):
        if not opening:
            return int(np.argmax(result.policy))
        visits = search.root_visit_counts(index).astype(np.float64)
        return int(rng.choice(len(visits), p=visits / visits.sum()))
    if opening and result.plies_to_end is None:
        return int(rng.choice(len(result.policy), p=result.policy))
    return result.action


def _collect(games: list[_Game]) -> Positions:
    """The positions of finished games, each labelled with the outcome for its side to move."""
    values = []
    for played in games:
        returns = played.state.returns()
        values += [returns[player] for player in played.players]
    return Positions(observations=np.stack([o for g in games for o in g.observations]),
                     masks=np.stack([m for g in games for m in g.masks]),
                     policies=np.stack([p for g in games for p in g.policies]),
                     values=np.asarray(values, dtype=np.float32))
