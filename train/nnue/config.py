"""What a run of ``python -m rlgames.train.nnue`` does (`NNUEConfig`) and each game's settings (`PRESETS`); the
experiments that chose them are in ``docs/research/nnue-presets.md``."""

from __future__ import annotations

from dataclasses import dataclass

from rlgames.game import Game


@dataclass(frozen=True)
class NNUEConfig:
    """A run of ``python -m rlgames.train.nnue``: generations of alpha-beta self-play games whose positions,
    labelled by the search, teach an NNUE (Stockfish's recipe); each field below is a ``--set KEY=VALUE``."""

    generations: int = 6
    """Generations: each plays ``games`` games, then learns the last ``window`` generations' positions."""
    games: int = 300
    """Self-play games per generation."""
    depth: int = 4
    """Alpha-beta depth of the self-play searches, whose values label the positions."""
    quiescence: int = 0
    """Plies of captures past the depth, in self-play and in the evaluation matches."""
    random_plies: int = 6
    """Random moves opening each game."""
    random_moves: float = 0.0
    """Fraction of the later moves played at random (the positions before them still labelled by their
    search): more diverse positions than deterministic self-play gives."""
    adjudicate: float = 0.0
    """A game ends as a win once the search's value reaches this either way (Stockfish's ``eval_limit``);
    0: every game is played out."""
    lam: float = 0.5
    """Labels are ``lam * value + (1 - lam) * result``: the search's value mixed with the game's result."""
    quiet: bool = False
    """Keep only positions whose searched move is not tactical (Stockfish's trainer skips captures: the
    network is evaluated where quiescence stands pat)."""
    window: int = 3
    """Generations of positions each generation learns."""
    accumulator: int = 64
    """Units of the network's first layer, its accumulator (`rlgames.models.networks.NNUEArgs`)."""
    hidden: int = 32
    """Units of its hidden layer."""
    psqt: int = 0
    """1: a linear term from the inputs straight to the value (Stockfish's PSQT output)."""
    inputs: tuple[str, ...] = ()
    """The game's feature sets the network reads, in order (``["pieces", "threats"]``); none: its first."""
    epochs: int = 6
    """Passes over the window's positions per generation."""
    batch_size: int = 512
    """Positions per gradient step."""
    lr: float = 1e-3
    """Learning rate (Adam); with ``one_cycle``, the peak."""
    one_cycle: bool = False
    """The learning rate rises to ``lr`` over the first tenth of a generation's steps and anneals to zero
    by its end (Smith's one-cycle schedule)."""
    policy_weight: float = 1.0
    """Weight of the policy loss (alpha-beta reads only the value)."""
    factor: int = 0
    """Each run of this many consecutive inputs (a piece's 64 squares in chess) shares one more learned
    row of the first layer, folded in after each generation (Stockfish's factorizer); 0: none."""
    holdout: float = 0.0
    """Fraction of each generation's last games never learnt but measured (``loss/value_holdout``: a
    value loss well above the learnt positions' is a network learning its games by heart)."""
    eval_games: int = 40
    """Games against the previous evaluation and the hand-crafted one that measure each generation (0: none,
    a run that only learns)."""
    eval_time: float = 0.05
    """Seconds a move in those games (equal time)."""
    eval_opening_plies: int = 4
    """Random plies opening those games."""
    teacher: str | None = None
    """A checkpoint whose values label the positions instead of the search's (distillation)."""
    siblings: float = 0.0
    """With a teacher, the fraction of positions that also add a random child, labelled by the teacher."""
    augment: bool = False
    """Learn every position under the board's symmetries (a network that reads the observation)."""
    init: str | None = None
    """A checkpoint the run starts from (``--init``): its first generation's games are played by that
    network, not the hand-crafted evaluator (unless ``hand_crafted_games``), and it learns on from there."""
    hand_crafted_games: bool = False
    """Every generation's games are played by the hand-crafted evaluator, not the previous network (as
    Stockfish's first networks learnt from games of its classical evaluation)."""
    seed: int = 0
    """Seed of the games (from ``(seed, generation, game)``) and of the learning."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))  # a list from a JSON setting or a run's record
        for name in ("random_moves", "adjudicate", "lam", "siblings", "holdout"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.eval_games < 0:
            raise ValueError(f"eval_games must be 0 or more, got {self.eval_games}")

    def feature_inputs(self, game: Game) -> tuple[str, ...]:
        """The feature sets the network reads: ``inputs``, or the game's first set where none is named (none
        for a game without sets: the network reads the observation)."""
        return self.inputs or tuple(game.feature_sets)[:1]


PRESETS = {
    # an n-tuple network over the 69 lines of four (docs/research/nnue-presets.md)
    "connect_four": NNUEConfig(
        generations=2,
        games=32000,
        depth=8,
        random_plies=6,
        random_moves=0.1,
        lam=0.75,
        accumulator=8,
        hidden=8,
        psqt=1,
        epochs=8,
        batch_size=256,
        lr=2e-3,
        one_cycle=True,
    ),
    # distillation: the self-play network's values as labels, on positions alpha-beta self-play reaches
    "connect_four_teacher": NNUEConfig(
        games=600,
        depth=6,
        random_plies=6,
        lam=0.75,
        epochs=10,
        window=4,
        teacher="checkpoints/connect_four.pt",
        siblings=0.35,
    ),
    # an n-tuple network over the lines and corners (docs/research/nnue-presets.md)
    "othello": NNUEConfig(
        generations=2,
        games=16000,
        depth=4,
        random_plies=8,
        random_moves=0.05,
        lam=0.5,
        accumulator=16,
        hidden=8,
        psqt=1,
        epochs=8,
        batch_size=256,
        lr=2e-3,
        one_cycle=True,
        policy_weight=0.0,
        eval_games=20,
        eval_time=0.1,
    ),
    # Stockfish-like: pieces, threats and positional inputs, quiet positions, search labels
    # (docs/research/nnue-presets.md)
    "chess": NNUEConfig(
        games=5000,
        depth=3,
        quiescence=8,
        random_plies=8,
        random_moves=0.05,
        lam=1.0,
        quiet=True,
        accumulator=64,
        hidden=16,
        psqt=1,
        inputs=("pieces", "threats", "positional"),
        batch_size=256,
        lr=2e-3,
        one_cycle=True,
        policy_weight=0.0,
        factor=64,
        eval_games=20,
        eval_time=0.1,
        hand_crafted_games=True,
    ),
    # the pieces on their squares, seen from the side to move (rlgames/games/checkers/features.py)
    "checkers": NNUEConfig(
        generations=3,
        games=3000,
        depth=4,
        random_plies=6,
        random_moves=0.05,
        lam=0.75,
        accumulator=32,
        hidden=16,
        psqt=1,
        epochs=8,
        batch_size=256,
        lr=2e-3,
        one_cycle=True,
        policy_weight=0.0,
        eval_games=20,
        eval_time=0.1,
    ),
    "tic_tac_toe": NNUEConfig(generations=3, games=200, depth=2, random_plies=2, accumulator=16, hidden=8),
    "smoke": NNUEConfig(
        generations=2,
        games=8,
        depth=2,
        random_plies=2,
        accumulator=8,
        hidden=4,
        epochs=1,
        eval_games=2,
        eval_time=0.01,
        eval_opening_plies=2,
    ),
}
