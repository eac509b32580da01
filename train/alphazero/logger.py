"""The AlphaZero trainer's progress: one line and the scalars of each iteration, and of each evaluation.

Tags: ``loss/policy``, ``loss/value``, ``loss/entropy``, ``loss/total``, ``lr``, ``selfplay/games_per_s``,
``selfplay/positions_per_s``, ``selfplay/evals_per_s``, ``selfplay/game_length``,
``selfplay/first_player_score``, ``selfplay/siblings``, ``replay/size``, ``replay/added`` and ``eval/...``
(`rlgames.train.alphazero.evaluate`); the step is the number of completed iterations.
"""

from __future__ import annotations

from typing import Mapping

from rlgames.train.alphazero.learner import Losses
from rlgames.train.alphazero.selfplay import SelfPlayStats
from rlgames.train.logger import RunLogger


class IterationLogger(RunLogger):
    """`RunLogger` with the lines of AlphaZero's iterations and evaluations."""

    def iteration(
        self,
        step: int,
        total: int,
        selfplay: SelfPlayStats,
        losses: Losses | None,
        lr: float,
        replay_size: int,
        replay_added: int,
        seconds: float,
    ) -> None:
        """Logs one iteration's scalars and prints its progress line."""
        rate = 1.0 / selfplay.seconds if selfplay.seconds > 0 else 0.0
        values = {
            "selfplay/games_per_s": selfplay.games * rate,
            "selfplay/positions_per_s": selfplay.positions * rate,
            "selfplay/evals_per_s": selfplay.evaluations * rate,
            "selfplay/game_length": selfplay.mean_length,
            "selfplay/first_player_score": selfplay.first_player_score,
            "selfplay/siblings": selfplay.siblings,
            "replay/size": replay_size,
            "replay/added": replay_added,
            "lr": lr,
        }
        if losses is not None:
            values |= {
                "loss/policy": losses.policy,
                "loss/value": losses.value,
                "loss/entropy": losses.entropy,
                "loss/total": losses.total,
            }
            if losses.final:
                values["loss/final"] = losses.final
            if losses.moves_left:
                values["loss/moves_left"] = losses.moves_left
        self.scalars(values, step)
        loss_text = (
            f"loss p {losses.policy:.3f} v {losses.value:.3f} ent {losses.entropy:.2f}"
            + (f" final {losses.final:.3f}" if losses.final else "")
            + (f" ml {losses.moves_left:.4f}" if losses.moves_left else "")
            if losses is not None
            else "loss - (filling replay)"
        )
        siblings = f" + {selfplay.siblings} siblings" if selfplay.siblings else ""
        self.echo(
            f"it {step}/{total} | {selfplay.games} games, {selfplay.positions} pos{siblings} "
            f"({values['selfplay/positions_per_s']:.0f} pos/s, {values['selfplay/evals_per_s']:.0f} evals/s, "
            f"len {selfplay.mean_length:.1f}) | replay {replay_size} | {loss_text} | lr {lr:.2g} | {seconds:.1f}s"
        )

    def evaluation(self, step: int, results: Mapping[str, float], seconds: float) -> None:
        """Logs evaluation results (keys without the ``eval/`` prefix) and prints them (scores, not the
        win rates and Elo differences they imply)."""
        self.scalars({f"eval/{name}": value for name, value in results.items()}, step)
        shown = ", ".join(f"{name} {value:.3g}" for name, value in results.items() if is_shown(name))
        self.echo(f"eval @ it {step}: {shown} ({seconds:.1f}s)")


def is_shown(name: str) -> bool:
    """Whether the printed line shows an evaluation result: a score or a solver figure, not the win rates,
    intervals and Elo differences that accompany a score (TensorBoard has them)."""
    return name.startswith("score_vs_") or "_vs_" not in name
