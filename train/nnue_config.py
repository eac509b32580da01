"""What a run of ``python -m train.nnue`` does (`NNUEConfig`) and each game's settings (`PRESETS`), with
the experiments that chose them."""

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
    game's feature sets named by ``inputs``, in order; none: its first: `models.networks.NNUEArgs`) learns the last ``window`` generations
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
    # 69 line patterns (`rlgames.games.connect_four.features`): an n-tuple network, whose linear term goes
    # straight to the value (psqt) beside two tiny hidden layers (8 and 8 units played as well at equal
    # depth as 64 and 32, and faster); it needs many positions (at depth 4, 4,000 games of the
    # hand-crafted evaluator's: even with it; 16,000: 61%, 68% with the linear term); a second
    # generation, from the first network's own games, took it from 67% to 70% at depth 4
    "connect_four": NNUEConfig(generations=2, games=32000, depth=8, random_plies=6, random_moves=0.1, lam=0.75,
                               accumulator=8, hidden=8, psqt=1, epochs=8, batch_size=256, lr=2e-3, one_cycle=True),
    # distillation: the self-play network's values (a teacher trained by `python -m train`) as labels,
    # on the positions alpha-beta self-play reaches and on a random child of a third of them
    "connect_four_teacher": NNUEConfig(games=600, depth=6, random_plies=6, lam=0.75, epochs=10, window=4,
                                       teacher="checkpoints/connect_four.pt", siblings=0.35),
    # 38 line and corner patterns sharing rows by symmetry (`rlgames.games.othello.features`): an
    # n-tuple network as connect four's, learnt from many games of the hand-crafted evaluator, then
    # from as many of its own (62% at equal time after the first generation, 82% after the second)
    "othello": NNUEConfig(generations=2, games=16000, depth=4, random_plies=8, random_moves=0.05, lam=0.5,
                          accumulator=16, hidden=8, psqt=1, epochs=8, batch_size=256, lr=2e-3, one_cycle=True,
                          policy_weight=0.0, eval_games=20, eval_time=0.1),
    # 768 piece-square inputs (`rlgames.games.chess.features`), 1,280 threat inputs (`threat_features`:
    # each piece attacked; attacked and undefended or by a cheaper piece) and 448 positional inputs
    # (`positional_features`, threats=2: passed pawns, mobility, king danger), which took the network learnt from
    # 1.45M positions from about 55% to 62.4% at depth 3 (1,000 games) and the shipped one, grown into them and
    # trained further on those positions, from 58.8% to 70.0%, and from 56.4% to 63.0% at 0.1 s/move (400
    # games), though its search runs at 0.67 of the hand-crafted nodes/s, not 0.87; quiescence on captures, so that
    # no label is taken in the middle of an exchange; every position kept, the lopsided ones too (the
    # search's leaves are full of them: in a one-off experiment, learnt without those beyond 0.9, it scored
    # 27.5% at depth 2, not 53.5%);
    # labels from the search alone, as results mixed in drown what it knows of material in 5,000 games'
    # noise (one generation, at depth 2 against hand-crafted: lam 1, 41%; 0.75, 32%; 0.5, 12.8%; the
    # networks: `python -m train.nnue chess --generations 1 --relearn RUN_DIR --set lam=0.75 --out FILE`);
    # what limits it is the number of games (`python benchmarks/bench_nnue_fit.py chess --models ...`: held-out
    # error against the depth-3 values, the hand-crafted evaluation's own being 0.0174), without threat inputs
    # (--set threats=0): 361k positions, 0.0201 (41% at depth 2); 722k, 0.0188 (53.5%); 1.45M (one run with
    # --set games=15000 learnt with this one: `--relearn RUN RUN`), 0.0171 (58.5%); with them, 0.0163 (69.5%);
    # in one-off experiments on the 361k, labels from the evaluation's static values or depth-1 searches did
    # as well (0.0196; 47%, 46.5%), but 2.09M more positions of depth-2 games labelled by their depth-2
    # searches (--set depth=2, 4x as fast to play) made the 1.45M's networks worse (0.0174, 0.0172);
    # 64 + 16 units fit the 1.45M as well as 128 + 32 (0.0162; 32 + 32: 0.0170) at half the cost of an
    # evaluation: at equal time (0.1 s/move, 200 games) 54.5% against hand-crafted, where 128 + 32 scored 43%;
    # with threat inputs, more games stopped paying at about 1.5M positions (at depth 4, 200 games from the
    # openings of `rlgames compare --seed 1`, where the shipped network, 1.99M positions, scores 66.8%): 20,000
    # fresh games alone (1.45M positions, --seed 10 --set games=20000), 65.8%; the shipped network trained
    # further on them (lr 5e-4, 2 epochs), 66.2%; with 6,000 games labelled by depth-4 searches added
    # (--set depth=4, 438k positions), 63.2%; the shipped network trained further on those alone, 60.2%
    # (deeper labels fit better, 0.0177 against 0.0186 held out, and played worse), on 8,000 of its own
    # depth-3 games, 59% and 60.5% (100 games); 32 or 48 units search no faster (rows of 33 or 49 floats);
    # other sizes learnt from the 1.45M fit them as well (held out 0.015-0.016) and score at depth 4 32 + 16
    # units 56.0%, 64 + 8 56.8%, 64 + 32 60.5%, 128 + 16 61.3%, but 64 + 16 itself 56.8% (learnt with
    # seed 0) and 65.8% (seed 10): 200 games (+-6.5%) tell neither sizes nor seeds apart; 1,000 games at
    # depth 3 (+-2.8%, `--depths 3 --games 1000 --seed 2`) do: seeds 0, 1, 2, 10 54.4, 57.0, 54.8, 53.8%, the shipped
    # network 58.8%, the shipped network trained further on the 1.45M (lr 5e-4, 2 epochs, `--relearn
    # RUN_DIR --init checkpoints/chess.nnue.pt`) 62.5%, yet 53.5% at 0.1 s/move over 400 games (the
    # shipped one 56.4%);
    # the results mixed in still hurt with the 1.45M (lam 0.9: 61.0%; 0.75: 46.2%; lam 1: 65.8%)
    "chess": NNUEConfig(games=5000, depth=3, quiescence=8, random_plies=8, random_moves=0.05, lam=1.0, quiet=True,
                        accumulator=64, hidden=16, psqt=1, inputs=("pieces", "threats", "positional"), batch_size=256, lr=2e-3, one_cycle=True,
                        policy_weight=0.0, factor=64, eval_games=20, eval_time=0.1, hand_crafted_games=True),
    "tic_tac_toe": NNUEConfig(generations=3, games=200, depth=2, random_plies=2, accumulator=16, hidden=8),
    "smoke": NNUEConfig(generations=2, games=8, depth=2, random_plies=2, accumulator=8, hidden=4, epochs=1,
                        eval_games=2, eval_time=0.01, eval_opening_plies=2),
}
