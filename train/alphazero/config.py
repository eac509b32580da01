"""The AlphaZero trainer's configuration: frozen dataclasses and the presets.

A `TrainConfig` groups the network, self-play, replay, optimisation and evaluation settings. Presets
(`PRESETS`) are tuned per game (``tic_tac_toe``, ``connect_four`` (3 hours of 2 CPU cores), ``othello``,
``checkers``, ``chess``, ``backgammon``, and the smaller ``connect_four_small`` and ``othello_small``) plus
``smoke``, a tiny run for tests. An override file holds a nested table mirroring the dataclasses, e.g.::

    iterations = 40
    [selfplay]
    simulations = 100
    [network]
    args = {blocks = 2, channels = 32}

Unknown keys and values of the wrong type raise `ConfigError` naming the key."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from rlgames.models.precision import PRECISIONS
from rlgames.models.precision import settle as settle_precision
from rlgames.train.settings import ConfigError, apply_overrides


@dataclass(frozen=True)
class NetworkSettings:
    """The network (`rlgames.models.build_network`)."""

    arch: str = "auto"
    """"resnet" or "mlp"; "auto": a ResNet for (C, H, W) boards, else an MLP."""
    args: Mapping[str, int] = field(default_factory=dict)
    """The architecture's arguments (``{blocks = 2, channels = 32}``)."""
    init: str = ""
    """A checkpoint of the same game and architecture whose weights start the run (a later stage; the
    optimizer and replay start afresh)."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play: games stepped together, their leaves sharing each network call."""

    games_per_iteration: int = 32
    """Games played each iteration."""
    parallel_games: int = 32
    """Games stepped together (their leaves share one network call)."""
    search: Literal["auto", "puct", "gumbel"] = "auto"
    """"puct" (AlphaZero's, with Dirichlet root noise), "gumbel" (Gumbel AlphaZero, Danihelka et al. 2022:
    policy improvement that holds at a handful of simulations) or "auto": Gumbel on the CPU, where
    simulations are dear, PUCT on CUDA (`settle_for_device`)."""
    simulations: int = 64
    """Simulations per move, on top of the visits kept from the previous move's tree."""
    full_search_fraction: float = 1.0
    """Playout cap randomisation (KataGo, Wu 2019, used 0.25): that fraction of the moves is searched with
    ``simulations`` and recorded, the others with ``fast_simulations`` and not recorded, so that the same
    search budget plays more games (more value targets). Drawn per step: the games stepped together share
    the draw, so that their network batches stay full."""
    fast_simulations: int = 8
    """Simulations of the moves that are not recorded (KataGo: 100, against 600 for a recorded move)."""
    leaves_per_game: int = 4
    """Leaves each tree contributes to a network batch (virtual losses)."""
    c_puct: float = 1.25
    """PUCT's exploration constant (AlphaZero's 1.25)."""
    dirichlet_alpha: float = 0.3
    """Alpha of the Dirichlet noise on the root's priors (AlphaZero: 0.3 in chess)."""
    dirichlet_epsilon: float = 0.25
    """Weight of that noise (AlphaZero's 0.25)."""
    forced_playouts: float = 0.0
    """PUCT's forced playouts with policy target pruning (KataGo, Wu 2019, used k = 2): ``k``, each root child
    visited at least ``sqrt(k * P * N)`` times and the visits only forced left out of the policy target;
    0: none (`rlgames.search.mcts.MCTSConfig.forced_playouts`)."""
    temperature_moves: int = 4
    """The first moves of a game are drawn from the root's visits (temperature 1), the later ones are the
    search's best move."""
    random_move_fraction: float = 0.0
    """Fraction of games that play one uniformly random move (AlphaGo's value-network data, Silver et al.
    2016): positions after a likely blunder, labelled by the play that follows, teach the value head the
    tactics at a depth-limited search's leaves; those before it leave the value loss."""
    random_move_plies: int = 30
    """That random move is played at a decision drawn uniformly from ``[0, random_move_plies)``."""
    random_moves_per_game: int = 1
    """Random moves such a game plays, at distinct decisions drawn from ``[0, random_move_plies)``: more
    than one opens middle games that self-play's own moves seldom reach (drawn and lopsided ones, as varied
    play reaches them); the positions up to the last leave the value loss."""
    archive_fraction: float = 0.0
    """Fraction of games that start from a position of an earlier game rather than the game's start
    (Go-Exploit, Trudeau & Bowling 2023, which measured it more sample-efficient than AlphaZero's
    start-state distribution on connect four and 9x9 go): a game drawn uniformly from the archive, then one
    of its searched positions drawn uniformly; the moves before it are replayed, neither searched nor
    recorded."""
    archive_games: int = 2_000
    """The archive: the last this many games played that have a position to start from (saved with the
    run, so that a resumed run draws from the same)."""
    archive_value_limit: float = 1.0
    """A game may start only from a searched position whose search value for the side to move was within
    this of 0: 1, any searched position; lower, those where self-play was least sure who wins."""
    search_value_weight: float = 0.0
    """The value target is ``(1 - w) z + w q``: the outcome ``z`` mixed with the root value ``q`` (Lessons
    from AlphaZero, Oracle 2018, found 0.5 best on connect four)."""
    sibling_fraction: float = 0.0
    """Fraction of recorded positions that also record the positions after random moves, labelled by an
    exact alpha-beta search where it proves the result (`rlgames.train.alphazero.selfplay.Siblings`)."""
    sibling_proof_depth: int = 4
    """Plies of that proving search."""
    siblings_per_position: int = 1
    """Distinct random moves per such position."""
    workers: int = 1
    """Processes that play an iteration's games (`rlgames.parallel`), each an equal share with its own copy of
    the network on the CPU; 1: this process, on the trainer's device."""


@dataclass(frozen=True)
class ReplayConfig:
    """The replay buffer."""

    capacity: int = 20_000
    """A ring buffer of the last this many positions."""
    augment: bool = True
    """Apply a random board symmetry to each sampled position."""
    window_base: int = 0
    """KataGo's growing window (Wu 2019, appendix C: c = 250,000): positive, batches are drawn from the newest
    `growing_window` positions of those added so far, at most ``capacity``; 0 draws from the whole ring."""
    window_alpha: float = 0.75
    """The window's growth exponent (KataGo's alpha)."""
    window_beta: float = 0.4
    """The window's growth rate (KataGo's beta)."""


@dataclass(frozen=True)
class OptimConfig:
    """The learner."""

    optimizer: Literal["adam", "sgd"] = "adam"
    """"adam" (AdamW: decoupled weight decay) or "sgd" (with ``momentum``, weight decay as L2)."""
    lr: float = 1e-3
    """Learning rate, until ``lr_schedule`` says otherwise."""
    lr_schedule: tuple[tuple[int, float], ...] = ()
    """``(iteration, lr)`` pairs: from that iteration on the rate is ``lr`` (piecewise constant, as
    AlphaZero's)."""
    momentum: float = 0.9
    """SGD's momentum."""
    weight_decay: float = 1e-4
    """Weight decay (AlphaZero's 1e-4)."""
    batch_size: int = 128
    """Positions per step."""
    steps_per_iteration: int = 50
    """Gradient steps per iteration."""
    value_weight: float = 1.0
    """Weight of the value loss beside the policy loss."""
    final_weight: float = 0.0
    """Weight of the final-position loss (an auxiliary target, as KataGo's ownership, Wu 2019, weighted 1.5
    per cell): needs the network argument ``final_head = 1``; 0: no such target."""
    moves_left_weight: float = 0.0
    """Weight of the moves-left loss (the squared error of the share of the game's longest length still to be
    played, Leela Chess Zero's moves-left head as an auxiliary target): needs the network argument
    ``moves_left_head = 1``; 0: no such target."""
    min_replay: int = 256
    """Positions the buffer must hold before the first step."""


@dataclass(frozen=True)
class EvalConfig:
    """Evaluation, every ``interval`` iterations and before the first one."""

    interval: int = 5
    """Iterations between evaluations (0: never)."""
    opponents: tuple[str, ...] = ("alphabeta(depth=2, eval=heuristic)", "mcts(simulations=200)")
    """Agent specs played by MCTS with the network."""
    games: int = 10
    """Games against each opponent, from random openings, colours swapped per opening."""
    opening_plies: int = 2
    """Plies of those openings."""
    simulations: int = 64
    """Simulations per move of the network's MCTS."""
    solver_positions: int = 0
    """Positions judged by the exact solver: all reachable ones (tic-tac-toe; 0 = all), or a sample of
    Pons' sets ``pons_sets`` (connect four)."""
    mcts_positions: int = 200
    """Of those, the positions also searched by MCTS with the network."""
    pons_sets: tuple[str, ...] = ("Test_L2_R1", "Test_L1_R1")
    """Pons' sets the sample is drawn from."""


@dataclass(frozen=True)
class TrainConfig:
    """A whole run: ``iterations`` of self-play, learning and checkpointing, from ``seed``."""

    iterations: int = 20
    """Iterations of self-play, learning and checkpointing."""
    game: Mapping[str, Any] = field(default_factory=dict)
    """The game's parameters (go: ``{board_size = 9}``); ``-p KEY=VALUE`` adds to them."""
    seed: int = 0
    """Seed of everything random."""
    network: NetworkSettings = NetworkSettings()
    """The network."""
    selfplay: SelfPlayConfig = SelfPlayConfig()
    """Self-play."""
    replay: ReplayConfig = ReplayConfig()
    """The replay buffer."""
    optim: OptimConfig = OptimConfig()
    """The learner."""
    eval: EvalConfig = EvalConfig()
    """Evaluation."""
    precision: str = "float32"
    """The network's arithmetic in self-play and learning (`rlgames.models.precision`): float32, bfloat16
    (autocast, float32 weights: several times faster where the hardware multiplies bfloat16, slower
    elsewhere), or auto (bfloat16 where the hardware multiplies it natively)."""

    def __post_init__(self) -> None:
        validate(self)

    def to_dict(self) -> dict[str, Any]:
        """Plain nested dicts and lists (JSON-ready)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    def lr_at(self, iteration: int) -> float:
        """The learning rate of iteration ``iteration`` (0-based) under ``optim.lr_schedule``."""
        lr = self.optim.lr
        for start, value in self.optim.lr_schedule:
            if iteration >= start:
                lr = value
        return lr


def validate(config: TrainConfig) -> None:
    """Raises `ConfigError` for values out of range."""
    positive = {
        "iterations": config.iterations,
        "selfplay.games_per_iteration": config.selfplay.games_per_iteration,
        "selfplay.parallel_games": config.selfplay.parallel_games,
        "selfplay.simulations": config.selfplay.simulations,
        "selfplay.fast_simulations": config.selfplay.fast_simulations,
        "selfplay.leaves_per_game": config.selfplay.leaves_per_game,
        "replay.capacity": config.replay.capacity,
        "replay.window_alpha": config.replay.window_alpha,
        "optim.lr": config.optim.lr,
        "optim.batch_size": config.optim.batch_size,
        "eval.simulations": config.eval.simulations,
        "selfplay.random_move_plies": config.selfplay.random_move_plies,
        "selfplay.random_moves_per_game": config.selfplay.random_moves_per_game,
        "selfplay.sibling_proof_depth": config.selfplay.sibling_proof_depth,
        "selfplay.siblings_per_position": config.selfplay.siblings_per_position,
        "selfplay.workers": config.selfplay.workers,
        "selfplay.archive_games": config.selfplay.archive_games,
    }
    for name, value in positive.items():
        if value <= 0:
            raise ConfigError(f"{name} must be positive, got {value}")
    non_negative = {
        "optim.weight_decay": config.optim.weight_decay,
        "optim.momentum": config.optim.momentum,
        "optim.steps_per_iteration": config.optim.steps_per_iteration,
        "optim.min_replay": config.optim.min_replay,
        "optim.value_weight": config.optim.value_weight,
        "optim.final_weight": config.optim.final_weight,
        "optim.moves_left_weight": config.optim.moves_left_weight,
        "replay.window_base": config.replay.window_base,
        "replay.window_beta": config.replay.window_beta,
        "selfplay.temperature_moves": config.selfplay.temperature_moves,
        "selfplay.forced_playouts": config.selfplay.forced_playouts,
        "eval.interval": config.eval.interval,
        "eval.games": config.eval.games,
        "eval.opening_plies": config.eval.opening_plies,
        "eval.solver_positions": config.eval.solver_positions,
        "eval.mcts_positions": config.eval.mcts_positions,
    }
    for name, value in non_negative.items():
        if value < 0:
            raise ConfigError(f"{name} must be non-negative, got {value}")
    if not 0.0 <= config.selfplay.random_move_fraction <= 1.0:
        raise ConfigError(
            f"selfplay.random_move_fraction must be in [0, 1], got {config.selfplay.random_move_fraction}"
        )
    if config.selfplay.random_moves_per_game > config.selfplay.random_move_plies:
        raise ConfigError(
            f"selfplay.random_moves_per_game ({config.selfplay.random_moves_per_game}) must be at most "
            f"selfplay.random_move_plies ({config.selfplay.random_move_plies}): one random move a decision"
        )
    if not 0.0 < config.selfplay.full_search_fraction <= 1.0:
        raise ConfigError(
            f"selfplay.full_search_fraction must be in (0, 1], got {config.selfplay.full_search_fraction}"
        )
    if not 0.0 <= config.selfplay.archive_fraction <= 1.0:
        raise ConfigError(f"selfplay.archive_fraction must be in [0, 1], got {config.selfplay.archive_fraction}")
    if config.selfplay.archive_value_limit < 0.0:
        raise ConfigError(
            f"selfplay.archive_value_limit must be non-negative, got {config.selfplay.archive_value_limit}"
        )
    if not 0.0 <= config.selfplay.search_value_weight <= 1.0:
        raise ConfigError(f"selfplay.search_value_weight must be in [0, 1], got {config.selfplay.search_value_weight}")
    if not 0.0 <= config.selfplay.sibling_fraction <= 1.0:
        raise ConfigError(f"selfplay.sibling_fraction must be in [0, 1], got {config.selfplay.sibling_fraction}")
    if config.optim.final_weight and not config.network.args.get("final_head"):
        raise ConfigError("optim.final_weight needs the network's final-position head: network.args.final_head = 1")
    if config.optim.moves_left_weight and not config.network.args.get("moves_left_head"):
        raise ConfigError(
            "optim.moves_left_weight needs the network's moves-left head: network.args.moves_left_head = 1"
        )
    if config.selfplay.search not in ("auto", "puct", "gumbel"):
        raise ConfigError(f"selfplay.search must be 'auto', 'puct' or 'gumbel', got {config.selfplay.search!r}")
    if config.selfplay.forced_playouts and config.selfplay.search != "puct":
        raise ConfigError("selfplay.forced_playouts needs selfplay.search = 'puct' (the Gumbel search forces none)")
    if config.precision not in (*PRECISIONS, "auto"):
        raise ConfigError(f"precision must be one of {', '.join(PRECISIONS)} or 'auto', got {config.precision!r}")
    if config.optim.optimizer not in ("adam", "sgd"):
        raise ConfigError(f"optim.optimizer must be 'adam' or 'sgd', got {config.optim.optimizer!r}")
    if config.eval.games % 2:
        raise ConfigError(
            f"eval.games must be even (each opening is played with both colours), got {config.eval.games}"
        )
    for entry in config.optim.lr_schedule:
        if len(entry) != 2 or entry[0] < 0 or entry[1] <= 0:
            raise ConfigError(f"optim.lr_schedule entries are [iteration >= 0, lr > 0], got {list(entry)}")


def settle_for_device(config: TrainConfig, device_type: str) -> TrainConfig:
    """``config`` with its device-dependent defaults settled for ``device_type`` ("cpu" or "cuda"):
    ``selfplay.search = "auto"`` becomes "gumbel" on the CPU and "puct" on CUDA, ``precision = "auto"``
    bfloat16 where the device multiplies it natively and float32 elsewhere (`rlgames.models.precision.settle`).
    A run records the settled config, so a resumed run keeps its search and its arithmetic."""
    search = config.selfplay.search
    if search == "auto":
        search = "gumbel" if device_type == "cpu" else "puct"
    return dataclasses.replace(
        config,
        selfplay=dataclasses.replace(config.selfplay, search=search),
        precision=settle_precision(config.precision, device_type),
    )


# Every preset names its search: the one its shipped network was trained with (connect_four: the shipped
# connect four model; connect_four_small: the one before it, 27 minutes of one core; othello_small: the othello
# one), or the one it was measured with.
PRESETS: dict[str, dict[str, Any]] = {
    "tic_tac_toe": {
        "iterations": 200,
        "network": {"arch": "mlp", "args": {"hidden": 128, "layers": 2}},
        "selfplay": {
            "games_per_iteration": 64,
            "parallel_games": 64,
            "search": "gumbel",
            "simulations": 32,
            "temperature_moves": 6,
        },
        "replay": {"capacity": 20_000},
        "optim": {
            "lr": 3e-3,
            "batch_size": 128,
            "steps_per_iteration": 80,
            "min_replay": 128,
            "lr_schedule": [[80, 1e-3]],
        },
        "eval": {
            "interval": 40,
            "games": 10,
            "opening_plies": 1,
            "simulations": 32,
            "opponents": ["alphabeta(depth=2, eval=heuristic)", "mcts(simulations=100)"],
        },
    },
    # The shipped connect four network's recipe, about 3 hours of 2 CPU cores with AMX and `--threads 2`
    # (docs/research/selfplay-efficiency.md): connect_four_small's value targets (random-move games, proven
    # siblings) on a 4x64 network, with the final-position target and value targets leaning on the search
    # value, the learning rate lowered late (75% and 92% of the run), in bfloat16 where the CPU has it.
    "connect_four": {
        "iterations": 1050,
        "precision": "auto",
        "network": {"arch": "resnet", "args": {"blocks": 4, "channels": 64, "final_head": 1}},
        "selfplay": {
            "games_per_iteration": 128,
            "parallel_games": 64,
            "workers": 2,
            "search": "gumbel",
            "simulations": 32,
            "temperature_moves": 8,
            "dirichlet_alpha": 1.0,
            "random_move_fraction": 0.5,
            "random_move_plies": 30,
            "search_value_weight": 0.8,
            "sibling_fraction": 1.0,
            "siblings_per_position": 7,
            "sibling_proof_depth": 6,
        },
        "replay": {"capacity": 200_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 80,
            "min_replay": 2_000,
            "lr_schedule": [[788, 5e-4], [966, 1e-4]],
            "final_weight": 1.5,
        },
        # no evaluations (the budget goes to training; they draw on streams of their own, so
        # `--set eval.interval=40` adds them without changing the network): benchmarks/eval_connect_four.py measures
        "eval": {
            "interval": 0,
            "games": 10,
            "opening_plies": 2,
            "simulations": 200,
            "solver_positions": 200,
            "mcts_positions": 100,
            "opponents": ["alphabeta(depth=4, eval=heuristic)", "mcts(simulations=400)"],
        },
    },
    "connect_four_small": {
        "iterations": 400,
        "network": {"arch": "resnet", "args": {"blocks": 3, "channels": 32}},
        "selfplay": {
            "games_per_iteration": 64,
            "parallel_games": 64,
            "search": "gumbel",
            "simulations": 32,
            "temperature_moves": 8,
            "dirichlet_alpha": 1.0,
            # value targets for alpha-beta's leaves as well as MCTS's: random-move games, (z + q) / 2,
            # and every child of a searched position proven by a 6-ply alpha-beta (siblings)
            "random_move_fraction": 0.5,
            "random_move_plies": 30,
            "search_value_weight": 0.5,
            "sibling_fraction": 1.0,
            "siblings_per_position": 7,
            "sibling_proof_depth": 6,
        },
        "replay": {"capacity": 100_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 40,
            "min_replay": 2_000,
            "lr_schedule": [[150, 5e-4], [250, 1e-4]],
        },
        "eval": {
            "interval": 25,
            "games": 10,
            "opening_plies": 2,
            "simulations": 200,
            "solver_positions": 200,
            "mcts_positions": 100,
            "opponents": ["alphabeta(depth=4, eval=heuristic)", "mcts(simulations=400)"],
        },
    },
    "othello": {
        "iterations": 300,
        "network": {"arch": "resnet", "args": {"blocks": 6, "channels": 64}},
        "selfplay": {
            "games_per_iteration": 128,
            "parallel_games": 128,
            "search": "puct",
            "simulations": 100,
            "temperature_moves": 12,
            "dirichlet_alpha": 0.5,
        },
        "replay": {"capacity": 400_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 200,
            "min_replay": 5_000,
            "lr_schedule": [[150, 5e-4], [240, 1e-4]],
        },
        "eval": {
            "interval": 10,
            "games": 10,
            "opening_plies": 2,
            "simulations": 200,
            "opponents": ["alphabeta(depth=3, eval=heuristic)", "mcts(simulations=400)"],
        },
    },
    "othello_small": {
        "iterations": 300,
        "network": {"arch": "resnet", "args": {"blocks": 3, "channels": 32}},
        "selfplay": {
            "games_per_iteration": 64,
            "parallel_games": 64,
            "search": "puct",
            "simulations": 50,
            "temperature_moves": 12,
            "dirichlet_alpha": 0.5,
        },
        "replay": {"capacity": 150_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 60,
            "min_replay": 4_000,
            "lr_schedule": [[150, 5e-4], [250, 1e-4]],
        },
        "eval": {
            "interval": 25,
            "games": 10,
            "opening_plies": 2,
            "simulations": 200,
            "opponents": ["alphabeta(depth=3, eval=heuristic)", "mcts(simulations=400)"],
        },
    },
    "checkers": {  # sized for 75 minutes on 2 CPU cores; checkers' fast learned evaluation is the NNUE
        "iterations": 120,
        "network": {"arch": "resnet", "args": {"blocks": 3, "channels": 32}},
        "selfplay": {
            "games_per_iteration": 64,
            "parallel_games": 64,
            "search": "puct",
            "simulations": 50,
            "temperature_moves": 10,
            "dirichlet_alpha": 1.0,
        },
        "replay": {"capacity": 150_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 60,
            "min_replay": 4_000,
            "lr_schedule": [[60, 5e-4], [95, 1e-4]],
        },
        "eval": {
            "interval": 20,
            "games": 10,
            "opening_plies": 2,
            "simulations": 200,
            "opponents": ["alphabeta(depth=3, eval=heuristic)", "mcts(simulations=400)"],
        },
    },
    "chess": {  # a start on 2 CPU cores (weak, as expected): chess's fast learned evaluation is the NNUE
        "iterations": 100,
        "network": {"arch": "resnet", "args": {"blocks": 4, "channels": 32}},
        "selfplay": {
            "games_per_iteration": 32,
            "parallel_games": 32,
            "search": "gumbel",
            "simulations": 16,
            "temperature_moves": 20,
        },
        "replay": {"capacity": 100_000},
        "optim": {"lr": 2e-3, "batch_size": 256, "steps_per_iteration": 40, "min_replay": 2_000},
        "eval": {
            "interval": 10,
            "games": 4,
            "opening_plies": 2,
            "simulations": 32,
            "opponents": ["alphabeta(depth=1, eval=heuristic)", "random"],
        },
    },
    "backgammon": {  # policy/value self-play on a chance game (MCTS samples the dice); backgammon's strong
        # learner is TD(lambda) (`python -m rlgames.train.td backgammon`), whose net plays 1-ply afterstate search
        "iterations": 100,
        "network": {"arch": "mlp", "args": {"hidden": 128, "layers": 2}},
        "selfplay": {
            "games_per_iteration": 32,
            "parallel_games": 32,
            "search": "puct",
            "simulations": 32,
            "temperature_moves": 10,
        },
        "replay": {"capacity": 100_000},
        "optim": {"lr": 2e-3, "batch_size": 256, "steps_per_iteration": 40, "min_replay": 2_000},
        "eval": {
            "interval": 10,
            "games": 20,
            "opening_plies": 0,
            "simulations": 32,
            "opponents": ["expectiminimax(plies=1, eval=pubeval)", "random"],
        },
    },
    "go": {  # 9x9, sized for about 2.5 hours of one CPU core; the inputs are OpenSpiel's 4 planes (stones, empty,
        # colour to move), as AlphaGo Zero's were stones and colour alone (Silver et al. 2017)
        "iterations": 300,
        "game": {"board_size": 9},
        "network": {"arch": "resnet", "args": {"blocks": 4, "channels": 32}},
        "selfplay": {
            "games_per_iteration": 64,
            "parallel_games": 64,
            "search": "gumbel",
            "simulations": 16,
            "temperature_moves": 8,
            "search_value_weight": 0.5,
        },
        "replay": {"capacity": 200_000},
        "optim": {
            "lr": 2e-3,
            "batch_size": 256,
            "steps_per_iteration": 50,
            "min_replay": 4_000,
            "lr_schedule": [[90, 5e-4], [130, 1e-4]],
        },
        "eval": {
            "interval": 50,
            "games": 10,
            "opening_plies": 2,
            "simulations": 64,
            "opponents": ["mcts(simulations=400, rave=false, rollout=random)", "mcts(simulations=1000)"],
        },
    },
    "smoke": {
        "iterations": 2,
        "network": {"arch": "mlp", "args": {"hidden": 16, "layers": 1}},
        "selfplay": {
            "games_per_iteration": 4,
            "parallel_games": 4,
            "simulations": 8,
            "leaves_per_game": 2,
            "temperature_moves": 2,
        },
        "replay": {"capacity": 500},
        "optim": {"batch_size": 16, "steps_per_iteration": 3, "min_replay": 8},
        "eval": {
            "interval": 1,
            "games": 2,
            "opening_plies": 1,
            "simulations": 8,
            "solver_positions": 50,
            "mcts_positions": 10,
            "opponents": ["alphabeta(depth=1, eval=heuristic)", "mcts(simulations=10)"],
        },
    },
}


def load_config(preset: str, overrides: Mapping[str, Any] | None = None, **top_level: Any) -> TrainConfig:
    """The preset named ``preset`` with ``overrides`` (a nested mapping) and then ``top_level`` keys
    (``seed=...``, ``iterations=...``; None values are ignored) applied."""
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    config = apply_overrides(TrainConfig(), PRESETS[preset], where=f"preset {preset}")
    if overrides:
        config = apply_overrides(config, overrides)
    given = {key: value for key, value in top_level.items() if value is not None}
    return apply_overrides(config, given) if given else config


def config_from_dict(data: Mapping[str, Any]) -> TrainConfig:
    """The config a `TrainConfig.to_dict` output describes (checkpoints store it that way)."""
    return apply_overrides(TrainConfig(), data)
