"""What a run of ``python -m rlgames.train.td`` does (`TDConfig`) and each game's settings (`PRESETS`); what the
knobs did on tic-tac-toe and backgammon is in ``docs/research/td.md``."""

from __future__ import annotations

from dataclasses import dataclass

from rlgames.train.settings import ConfigError


@dataclass(frozen=True)
class TDConfig:
    """A run of ``python -m rlgames.train.td``: TD(lambda) self-play of a small network, TD-Gammon's
    learning; each field below is a ``--set KEY=VALUE``.

    TD-Gammon's values are ``lam = 0.7`` and ``alpha = 0.1`` (Tesauro 1992, "Practical Issues in Temporal
    Difference Learning", as its reproductions quote it; not checked against the paper's text here). Its
    output was a sigmoid P in [0, 1]; ours is tanh = 2 P - 1 in [-1, 1], whose error and gradient are
    each twice P's, so TD-Gammon's steps take ``alpha = 0.1 / 4`` here. What the knobs did on tic-tac-toe
    and backgammon is in ``docs/research/td.md``."""

    accumulator: int = 80
    """Units of the network's first layer."""
    hidden: int = 16
    """Units of its hidden layer."""
    inputs: str = ""
    """The game's encoding the network reads (`rlgames.game.Game.encodings`: backgammon's ``expert``, the
    observation and the hand-crafted evaluator's features); empty: its observation."""
    outcomes: bool = False
    """Learn the probabilities of the game's outcomes (win, and win or lose by 2.. points: backgammon's
    gammons and backgammons at full scoring; `rlgames.evaluators.outcomes`), each with a trace of its own,
    rather than one value."""
    alpha: float = 0.025
    """Learning rate of the TD steps."""
    lam: float = 0.7
    """Decay of the eligibility traces (TD(lambda)'s lambda)."""
    epsilon: float = 0.0
    """Probability that a self-play turn is random."""
    decision_weight: float = 1.0
    """Weight of the TD steps taught at decision nodes (0: only afterstates learn)."""
    init_range: float = 0.1
    """Initial parameters are uniform in ``[-init_range, init_range]``."""
    games: int = 100_000
    """Self-play games of the run."""
    eval_every: int = 5_000
    """Games between a checkpoint and an evaluation."""
    eval_games: int = 400
    """Games of each evaluation (an even number: colours alternate)."""
    eval_opening_turns: int = 0
    """Random turns opening each evaluation game (a deterministic game needs at least 1)."""
    opponent: str = "heuristic"
    """The evaluator the evaluations measure the network against, besides its previous self and random
    turns (`rlgames.evaluators.load_evaluator`: ``heuristic``, or backgammon's ``pubeval``)."""
    init: str = ""
    """A checkpoint of a run of the same size whose weights start this one (a second phase at a lower
    ``alpha``)."""
    seed: int = 0
    """Seed of the games and of the initial parameters."""

    def __post_init__(self) -> None:
        for name in ("accumulator", "hidden", "games", "eval_every", "eval_games"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.eval_games % 2:
            raise ConfigError(f"eval_games must be even (colours alternate), got {self.eval_games}")
        if not (
            self.alpha > 0
            and 0 <= self.lam <= 1
            and 0 <= self.epsilon <= 1
            and self.decision_weight >= 0
            and self.init_range > 0
            and self.eval_opening_turns >= 0
        ):
            raise ConfigError(
                "need alpha > 0, 0 <= lam <= 1, 0 <= epsilon <= 1, decision_weight >= 0, "
                f"init_range > 0 and eval_opening_turns >= 0: got {self}"
            )


PRESETS = {
    # TD-Gammon 0.0's 40 to 80 hidden units, here feeding a small second layer (docs/research/td.md)
    "backgammon": TDConfig(
        accumulator=80, hidden=16, alpha=0.01, games=400_000, eval_every=10_000, eval_games=1000, opponent="pubeval"
    ),
    # TD-Gammon 2's outcome outputs for -p scoring_type=full_scoring, started from the shipped win/loss
    # network (its value gives P(win)); the shipped backgammon_full.pt is a larger network with the expert
    # inputs, trained from scratch (its manifest record's command; docs/research/gammons.md)
    "backgammon_full": TDConfig(
        accumulator=80,
        hidden=16,
        outcomes=True,
        alpha=0.01,
        games=200_000,
        eval_every=10_000,
        eval_games=1000,
        opponent="pubeval",
        init="checkpoints/backgammon.pt",
    ),
    "tic_tac_toe": TDConfig(
        accumulator=32, hidden=16, epsilon=0.2, games=20_000, eval_every=2_000, eval_opening_turns=1
    ),
    "pig": TDConfig(accumulator=32, hidden=16, epsilon=0.1, games=20_000, eval_every=2_000),
    "smoke": TDConfig(
        accumulator=8, hidden=4, epsilon=0.1, games=200, eval_every=100, eval_games=20, eval_opening_turns=1
    ),
}
