"""The positions `rlgames.train.nnue` learns from: alpha-beta self-play games, each position labelled with the
search's value and the game's result (mixed at learning time by Stockfish's ``lambda``), played in
this process or split among ``workers`` processes. Game ``i`` of a generation is seeded from
``(seed, generation, i)``, so the data do not depend on the number of workers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rlgames.models.evaluator import NetworkEvaluator, NNUEvaluator, network_inputs
from rlgames.models.networks import (
    NNUE,
    NetworkRecord,
    network_from_record,
    network_record,
    reads_features,
)
from rlgames.train.nnue.config import NNUEConfig
from rlgames.train.targets import outcome_values

from rlgames.evaluators import load_evaluator
from rlgames.evaluators.base import Evaluator
from rlgames.evaluators.nnue import feature_set
from rlgames.files import atomic_write
from rlgames.game import Game, State, Symmetry
from rlgames.parallel import LOCAL, Backend, GameRecipe, game_recipe, map_ordered, rebuild_game
from rlgames.search import AlphaBeta, AlphaBetaConfig


@dataclass
class Positions:
    """Labelled positions: the network's inputs from the side to move, legal masks (their bits packed:
    `pack_masks`, a chess position's 4,674 actions in 585 bytes), searched moves, and two labels, the
    search's (or a teacher's) value and the game's result, both in [-1, 1] from the side to move. The
    inputs are the observations (`rlgames.models.evaluator.network_inputs`) or, for a network that reads the
    game's sparse features (`rlgames.models.networks.reads_features`), the indices of the active ones
    (`active_features`; ``sparse``), which `rlgames.models.networks.NNUE.forward_active` reads."""

    observations: np.ndarray  # float32[N, *input_shape], or int32[N, K] active features padded with -1
    masks: np.ndarray  # uint8[N, ceil(A / 8)]: `pack_masks`; `legal_masks` unpacks them
    moves: np.ndarray  # int64[N], -1 where no move was searched
    values: np.ndarray  # float32[N]
    results: np.ndarray  # float32[N]

    def __len__(self) -> int:
        return len(self.values)

    @property
    def sparse(self) -> bool:
        return self.observations.dtype.kind == "i"

    def legal_masks(self, num_actions: int, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """int8[N, num_actions] (or the ``rows``'): the legal masks, 1 = legal."""
        return unpack_masks(self.masks[rows], num_actions)

    def labels(self, lam: float) -> np.ndarray:
        """float32[N]: ``lam * values + (1 - lam) * results`` (Stockfish's ``lambda``)."""
        return (lam * self.values + (1.0 - lam) * self.results).astype(np.float32)

    def part(self, rows: slice) -> Positions:
        """The positions ``rows``."""
        return Positions(*(getattr(self, f.name)[rows] for f in dataclasses.fields(Positions)))

    @staticmethod
    def concatenate(parts: Sequence[Positions]) -> Positions:
        if any(p.sparse for p in parts):  # dense parts (a window saved before) made sparse, all padded alike
            inputs = [p.observations if p.sparse else sparse_inputs(p.observations) for p in parts]
            most = max(x.shape[1] for x in inputs)
            parts = [dataclasses.replace(p, observations=_padded(x, most)) for p, x in zip(parts, inputs)]
        return Positions(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Positions)))

    def under(self, symmetries: Sequence[Symmetry]) -> Positions:
        """These positions under each of ``symmetries`` in turn (``len(symmetries)`` times as many):
        observations by the symmetry's transform, masks and moves by its action map."""
        if self.sparse:
            raise ValueError("augment transforms observations: a network reading sparse features cannot use it")
        parts = []
        for symmetry in symmetries:
            moves = np.where(self.moves >= 0, symmetry.action_map[np.maximum(self.moves, 0)], -1)
            masks = symmetry.policy(self.legal_masks(len(symmetry.action_map)))
            parts.append(
                Positions(symmetry.observation(self.observations), pack_masks(masks), moves, self.values, self.results)
            )
        return Positions.concatenate(parts)


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """uint8[N, ceil(A / 8)]: the legal masks ``masks`` [N, A] (non-zero = legal), eight to a byte."""
    return np.packbits(masks != 0, axis=1, bitorder="little")


def unpack_masks(packed: np.ndarray, num_actions: int) -> np.ndarray:
    """int8[N, num_actions]: `pack_masks`' masks, 1 = legal."""
    return np.unpackbits(packed, axis=1, count=num_actions, bitorder="little").view(np.int8)


def save_window(path: Path, window: Sequence[Positions]) -> None:
    """The generations' positions, atomically, as ``path`` (npz: ``"{generation}/{field}"``)."""
    arrays = {f"{i}/{f.name}": getattr(p, f.name) for i, p in enumerate(window) for f in dataclasses.fields(Positions)}
    with atomic_write(path) as file:
        np.savez(file, **arrays)


def load_window(path: Path, game: Game) -> list[Positions]:
    """`save_window`'s generations, also from windows saved before: with one mixed label (kept as both
    value and result, so any ``lambda`` gives it back), masks not packed (packed) or dense inputs of a
    network that reads sparse features (made sparse)."""
    window = []
    with np.load(path) as saved:
        for i in range(len({key.split("/")[0] for key in saved.files})):
            fields = {key.split("/")[1]: saved[key] for key in saved.files if key.startswith(f"{i}/")}
            if "labels" in fields:
                fields["values"] = fields["results"] = fields.pop("labels")
            if fields["masks"].dtype != np.uint8:
                fields["masks"] = pack_masks(fields["masks"])
            window.append(Positions(**fields))
    if reads_features(game, "nnue"):
        window = [p if p.sparse else dataclasses.replace(p, observations=sparse_inputs(p.observations)) for p in window]
    return window


def play_generation(
    game: Game,
    config: NNUEConfig,
    generation: int,
    network: NNUE | None,
    *,
    workers: int = 1,
    backend: Backend = LOCAL,
    progress: Callable[[int], None] | None = None,
) -> Positions:
    """Generation ``generation``'s ``config.games`` self-play games (`play_games`), played with
    ``network`` (None, or with ``config.hand_crafted_games``: with the hand-crafted evaluator), in
    this process or, with ``workers`` > 1, split among as many processes or Ray actors (``backend``; the same
    positions); after
    each batch of games, ``progress`` gets the number of games played so far."""
    record = None if network is None or config.hand_crafted_games else network_record(network)
    seed = (config.seed, generation)
    batches = [b.tolist() for b in np.array_split(np.arange(config.games), max(10, 4 * workers)) if len(b)]
    local = (_players(game, config, record), config) if workers == 1 else None  # this game, as given
    results = map_ordered(
        _play_batch,
        [(seed, batch) for batch in batches],
        workers=workers,
        backend=backend,
        setup=_set_up,
        setup_args=(game_recipe(game), config, record),
        local=local,
    )
    return _gathered(results, batches, progress)


def _gathered(
    results: Iterable[Positions], batches: list[list[int]], progress: Callable[[int], None] | None
) -> Positions:
    """The batches' positions in order, reporting the games played after each."""
    parts, played = [], 0
    for part, batch in zip(results, batches):
        parts.append(part)
        played += len(batch)
        if progress is not None:
            progress(played)
    return Positions.concatenate(parts)


def play_games(
    game: Game,
    player: Evaluator,
    teacher: Evaluator | None,
    config: NNUEConfig,
    seed: Sequence[int],
    games: Iterable[int],
) -> Positions:
    """Games ``games`` (each seeded from ``(*seed, 0, i)``) of depth-``config.depth`` alpha-beta with
    ``player``, each from a random opening (and with ``config.random_moves`` of its moves random), and
    ended early once the search's value reaches ``config.adjudicate`` either way (Stockfish's
    ``eval_limit``), as a win for the side it favours. Every position after the opening (with
    ``config.quiet``, every quiet one) is kept with its searched move, its value (the search's, or
    the ``teacher``'s) and the game's result; with a teacher, a random child of a ``config.siblings``
    fraction of the positions (moves the search did not play) is added, labelled by the teacher alone."""
    search = AlphaBeta(player, AlphaBetaConfig(depth=config.depth, tt_size_mb=4, quiescence_depth=config.quiescence))
    states: list[State] = []
    moves: list[int] = []
    values: list[float] = []
    results: list[float] = []
    for i in games:
        rng = np.random.default_rng([*seed, 0, i])
        line, outcome = play_game(game, search, config, rng)
        if config.quiet:
            line = [(state, action, value) for state, action, value in line if action not in state.tactical_actions()]
        taught = evaluator_values(teacher, [state for state, _, _ in line]) if teacher else None
        for j, (state, action, value) in enumerate(line):
            states.append(state)
            moves.append(action)
            values.append(value if taught is None else taught[j])
            results.append(outcome[state.current_player()])
        if teacher is not None and config.siblings > 0:
            children = _random_children([state for state, _, _ in line], config.siblings, rng)
            taught = list(evaluator_values(teacher, children))
            states += children
            moves += [-1] * len(children)  # no move to learn: the policy loss ignores them
            values += taught
            results += taught
    observations = (
        active_features(game, states, inputs=config.feature_inputs(game))
        if reads_features(game, "nnue")
        else network_inputs(game, "nnue", states)
    )
    masks = pack_masks(np.array([state.legal_action_mask() for state in states], dtype=bool).reshape(len(states), -1))
    return Positions(
        observations,
        masks,
        np.array(moves, dtype=np.int64),
        np.array(values, dtype=np.float32),
        np.array(results, dtype=np.float32),
    )


def play_game(
    game: Game, search: AlphaBeta, config: NNUEConfig, rng: np.random.Generator
) -> tuple[list[tuple[State, int, float]], tuple[float, float]]:
    """One game of ``search`` from a `random_opening` (``config.random_plies``; a ``config.random_moves``
    fraction of its moves random, and adjudicated at ``config.adjudicate``): its searched positions
    ``(state, searched move, search value)`` and the players' results."""
    state = random_opening(game, config.random_plies, rng)
    line = []
    while not state.is_terminal():
        result = search.search(state)
        line.append((state, result.action, result.value))
        if config.adjudicate and abs(result.value) >= config.adjudicate:
            winner = state.current_player() if result.value > 0 else 1 - state.current_player()
            return line, (1.0, -1.0) if winner == 0 else (-1.0, 1.0)
        explore = config.random_moves and rng.random() < config.random_moves
        state = state.apply(int(rng.choice(state.legal_actions())) if explore else result.action)
    return line, outcome_values(state)


def random_opening(game: Game, plies: int, rng: np.random.Generator) -> State:
    """A position after up to ``plies`` uniformly random moves (fewer if the game would end)."""
    state = game.new_initial_state()
    for _ in range(plies):
        child = state.apply(int(rng.choice(state.legal_actions())))
        if child.is_terminal():
            break
        state = child
    return state


def active_features(game: Game, states: Sequence[State], *, inputs: tuple[str, ...]) -> np.ndarray:
    """int32[len(states), K]: the indices of each state's active inputs of the feature sets ``inputs``
    (`rlgames.evaluators.nnue.feature_set`) from its side to move, padded with -1 to the most any state has."""
    inputs = feature_set(game, inputs)
    out = np.zeros(inputs.most, dtype=np.int64)
    return _padded([out[: inputs.features(state.compact, state.current_player(), out)].copy() for state in states])


def sparse_inputs(dense: np.ndarray) -> np.ndarray:
    """int32[N, K]: the indices of the ones of ``dense`` float32[N, F] (inputs of ones and zeros),
    padded with -1: the storage of `Positions` whose network reads sparse features."""
    return _padded([np.flatnonzero(x) for x in dense])


def _padded(rows: Sequence[np.ndarray], width: int = 0) -> np.ndarray:
    """int32[len(rows), max(width, longest row)]: the rows, padded with -1."""
    active = np.full((len(rows), max(width, *map(len, rows), 0)), -1, dtype=np.int32)
    for row, indices in zip(active, rows):
        row[: len(indices)] = indices
    return active


def evaluator_values(evaluator: Evaluator, states: list[State]) -> np.ndarray:
    """float64[len(states)]: the evaluator's values from each side to move, in batches."""
    return np.concatenate(
        [evaluator.evaluate_batch(states[i : i + 256])[0] for i in range(0, len(states), 256)] or [np.zeros(0)]
    )


def _random_children(positions: list[State], fraction: float, rng: np.random.Generator) -> list[State]:
    """A random non-terminal child of each of a ``fraction`` of ``positions``."""
    children = []
    for position in positions:
        if rng.random() < fraction:
            child = position.apply(int(rng.choice(position.legal_actions())))
            if not child.is_terminal():
                children.append(child)
    return children


def _players(game: Game, config: NNUEConfig, record: NetworkRecord | None) -> tuple[Game, Evaluator, Evaluator | None]:
    """The game, the evaluator that plays (the network of ``record``, else hand-crafted) and the teacher."""
    if record is None:
        player: Evaluator = load_evaluator("heuristic", game)
    else:
        player = NNUEvaluator(network_from_record(record), game)  # type: ignore[arg-type]
    teacher = NetworkEvaluator.from_checkpoint(config.teacher, game) if config.teacher else None
    return game, player, teacher


def _set_up(
    recipe: GameRecipe, config: NNUEConfig, record: NetworkRecord | None
) -> tuple[tuple[Game, Evaluator, Evaluator | None], NNUEConfig]:
    """A worker's players (its game rebuilt from the registry name and parameters) and settings."""
    return _players(rebuild_game(recipe), config, record), config


def _play_batch(
    context: tuple[tuple[Game, Evaluator, Evaluator | None], NNUEConfig], item: tuple[Sequence[int], list[int]]
) -> Positions:
    players, config = context
    seed, games = item
    return play_games(*players, config, seed, games)
