"""What a run of ``python -m rlgames.train.nnue`` does (`NNUEConfig`) and each game's settings (`PRESETS`); the
experiments that chose them are in ``docs/research/nnue-presets.md``."""

from __future__ import annotations

from dataclasses import dataclass

from rlgames.game import Game


@dataclass(frozen=True)
class NNUEConfig:
    """A run: ``generations`` of ``games`` self-play games each, alpha-beta at ``depth`` (and ``quiescence`` plies
    of captures past it, in self-play and in the evaluation matches) after ``random_plies`` random moves,
    and a ``random_moves`` fraction of the later moves random too (the positions before them still labelled
    by their search: more diverse positions than deterministic self-play gives), and with ``adjudicate`` > 0
    a game ended as a win once the search's value reaches it either way (Stockfish's ``eval_limit``: no
    positions of a decided game); labels ``lam * value + (1 - lam) * result``, the value being the search's
    or the ``teacher`` checkpoint's (which also labels a random child of a ``siblings`` fraction of the
    positions); with ``quiet``, only positions whose searched move is not one of the game's tactical actions
    are kept (Stockfish's trainer skips capture positions: the network is evaluated where quiescence stands
    pat, and a label taken in the middle of an exchange is the exchange's, not the position's); the network
    (``accumulator``, ``hidden``, and with ``psqt`` a linear term straight to the value, reading the
    game's feature sets named by ``inputs``, in order; none: its first: `rlgames.models.networks.NNUEArgs`) learns the last ``window`` generations
    for ``epochs`` epochs (with ``one_cycle``, the learning rate rising to ``lr`` over the first tenth of
    each generation's steps and annealed to zero by its end: Smith's one-cycle schedule), the policy loss
    weighted by ``policy_weight`` (alpha-beta reads only the value) and, with ``factor``, each run of
    ``factor`` consecutive inputs (a piece's 64 squares in chess) sharing one more learned row of the first
    layer, folded into the layer after each generation (the "factorizer" of Stockfish's trainer: what a
    piece is worth anywhere is learned from every square's positions); with ``holdout``, the positions of
    the last ``holdout`` fraction of each generation's games are never learnt but measure it
    (``loss/value_holdout``: a value loss well above the learnt positions' is a network learning its games
    by heart rather than the game); ``eval_games`` games at ``eval_time`` seconds a move measure each
    generation.
    With ``hand_crafted_games``, every generation's games are played by the hand-crafted evaluator, not the
    previous network (more of its positions, as Stockfish's first networks learnt from games of its
    classical evaluation): for a network that does not yet search as well as the evaluation it learns."""

    generations: int = 6
    games: int = 300
    depth: int = 4
    quiescence: int = 0
    random_plies: int = 6
    random_moves: float = 0.0
    adjudicate: float = 0.0
    lam: float = 0.5
    quiet: bool = False
    window: int = 3
    accumulator: int = 64
    hidden: int = 32
    psqt: int = 0
    inputs: tuple[str, ...] = ()
    epochs: int = 6
    batch_size: int = 512
    lr: float = 1e-3
    one_cycle: bool = False
    policy_weight: float = 1.0
    factor: int = 0
    holdout: float = 0.0
    eval_games: int = 40
    eval_time: float = 0.05
    eval_opening_plies: int = 4
    teacher: str | None = None
    siblings: float = 0.0
    augment: bool = False
    hand_crafted_games: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))  # a list from a JSON setting or a run's record
        for name in ("random_moves", "adjudicate", "lam", "siblings", "holdout"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")

    def feature_inputs(self, game: Game) -> tuple[str, ...]:
        """The feature sets the network reads: ``inputs``, or the game's first set where none is named (none
        for a game without sets: the network reads the observation)."""
        return self.inputs or tuple(game.feature_sets)[:1]


PRESETS = {
    # an n-tuple network over the 69 lines of four (docs/research/nnue-presets.md)
    "connect_four": NNUEConfig(generations=2, games=32000, depth=8, random_plies=6, random_moves=0.1, lam=0.75,
                               accumulator=8, hidden=8, psqt=1, epochs=8, batch_size=256, lr=2e-3, one_cycle=True),
    # distillation: the self-play network's values as labels, on positions alpha-beta self-play reaches
    "connect_four_teacher": NNUEConfig(games=600, depth=6, random_plies=6, lam=0.75, epochs=10, window=4,
                                       teacher="checkpoints/connect_four.pt", siblings=0.35),
    # an n-tuple network over the lines and corners (docs/research/nnue-presets.md)
    "othello": NNUEConfig(generations=2, games=16000, depth=4, random_plies=8, random_moves=0.05, lam=0.5,
                          accumulator=16, hidden=8, psqt=1, epochs=8, batch_size=256, lr=2e-3, one_cycle=True,
                          policy_weight=0.0, eval_games=20, eval_time=0.1),
    # Stockfish-like: pieces, threats and positional inputs, quiet positions, search labels (docs/research/nnue-presets.md)
    "chess": NNUEConfig(games=5000, depth=3, quiescence=8, random_plies=8, random_moves=0.05, lam=1.0, quiet=True,
                        accumulator=64, hidden=16, psqt=1, inputs=("pieces", "threats", "positional"), batch_size=256,
                        lr=2e-3, one_cycle=True, policy_weight=0.0, factor=64, eval_games=20, eval_time=0.1,
                        hand_crafted_games=True),
    "tic_tac_toe": NNUEConfig(generations=3, games=200, depth=2, random_plies=2, accumulator=16, hidden=8),
    "smoke": NNUEConfig(generations=2, games=8, depth=2, random_plies=2, accumulator=8, hidden=4, epochs=1,
                        eval_games=2, eval_time=0.01, eval_opening_plies=2),
}
