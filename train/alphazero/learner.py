"""The learner: AlphaZero's loss on replay batches.

``loss = cross_entropy(search policy, network policy) + value_weight * (z - v)^2``, each part averaged
over the positions that carry its target: policy weight 1 (all but proven-lost siblings) and value
weight 1 (not those before a self-play game's random move), where ``z`` is the value target from the
side to move (the outcome, possibly mixed with the search's value). A network with a win/draw/loss value
head (ResNet argument ``wdl``) has the cross-entropy of its three probabilities against
``(max(z, 0), 1 - |z|, max(-z, 0))`` in place of the squared error: the distribution of mean ``z`` with
the most draw, so that an outcome (a win, a draw or a loss) is its own class and a mixed target puts
the rest of its weight on the draw. With ``final_weight`` > 0, plus
``final_weight`` times the binary cross-entropy of the network's final-position head against the cells set
in the game's final position (`rlgames.models.networks.TrainingHeads.final`), averaged over cells and over
the positions that carry it; with ``moves_left_weight`` > 0, plus that times the squared error of the
moves-left head's sigmoid against the share of the game's longest length its players still played
(`rlgames.models.networks.TrainingHeads.moves_left`), over the same positions; weight decay comes from the optimizer
(AdamW's decoupled decay, or L2 through SGD's ``weight_decay``). The entropy of the network's policy is
reported alongside (it falls as the policy sharpens).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import torch
from rlgames.models import PolicyValueNet
from rlgames.models.networks import TrainingHeads
from rlgames.models.precision import autocast
from rlgames.models.precision import check as check_precision
from rlgames.train.alphazero.config import OptimConfig
from rlgames.train.alphazero.selfplay import Positions


@dataclass(frozen=True)
class Losses:
    """Batch means: policy cross-entropy, the value loss (the squared error, or a win/draw/loss head's
    cross-entropy), the network policy's entropy, the total, the final-position cross-entropy and the
    moves-left squared error (each 0 without its target)."""

    policy: float
    value: float
    entropy: float
    total: float
    final: float = 0.0
    moves_left: float = 0.0


def make_optimizer(network: PolicyValueNet, config: OptimConfig) -> torch.optim.Optimizer:
    if config.optimizer == "adam":
        return torch.optim.AdamW(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    return torch.optim.SGD(
        network.parameters(), lr=config.lr, momentum=config.momentum, weight_decay=config.weight_decay
    )


class Learner:
    """Takes optimisation steps on ``network`` (already on ``device``) with ``optimizer``; with ``precision``
    bfloat16 its forwards and backwards run under autocast (`rlgames.models.precision`), the weights, the
    optimizer and the losses in float32."""

    def __init__(
        self,
        network: PolicyValueNet,
        optimizer: torch.optim.Optimizer,
        config: OptimConfig,
        device: torch.device,
        *,
        precision: str = "float32",
    ) -> None:
        check_precision(precision)
        self.precision = precision
        self.network = network
        self.optimizer = optimizer
        self.value_weight = config.value_weight
        self.final_weight = config.final_weight
        if self.final_weight and getattr(network, "final_conv", None) is None:
            raise ValueError("optim.final_weight needs a network with a final-position head (final_head = 1)")
        self.moves_left_weight = config.moves_left_weight
        if self.moves_left_weight and getattr(network, "moves_left", None) is None:
            raise ValueError("optim.moves_left_weight needs a network with a moves-left head (moves_left_head = 1)")
        self.device = device

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def losses(self, batch: Positions) -> tuple[torch.Tensor, Losses]:
        """The differentiable total loss of ``batch`` and its parts."""
        obs = torch.from_numpy(batch.observations).to(self.device)  # [B, *obs_shape]
        mask = torch.from_numpy(batch.masks).to(self.device)  # [B, A]
        target_policy = torch.from_numpy(batch.policies).to(self.device)  # [B, A]
        target_value = torch.from_numpy(batch.values).to(self.device)  # [B]
        value_weight = torch.from_numpy(batch.value_weights).to(self.device)  # [B], 0 or 1
        policy_weight = torch.from_numpy(batch.policy_weights).to(self.device)  # [B], 0 or 1
        with autocast(self.precision, self.device):
            heads = _float32(self.network.training_heads(obs, mask))  # logits [B, A] (illegal: MASKED_LOGIT), value [B]
        log_policy = torch.log_softmax(heads.logits, dim=1)  # [B, A]
        cross_entropy = -(target_policy * log_policy).sum(dim=1)  # [B]
        policy_loss = (policy_weight * cross_entropy).sum() / policy_weight.sum().clamp(min=1.0)
        value_loss = (value_weight * self._value_errors(heads, target_value)).sum() / value_weight.sum().clamp(min=1.0)
        entropy = -(log_policy.exp() * log_policy).sum(dim=1).mean()
        total = policy_loss + self.value_weight * value_loss
        final_loss = torch.zeros(())
        if self.final_weight:
            assert heads.final is not None  # the constructor checked the head
            final_loss = self._final_loss(heads.final, batch)
            total = total + self.final_weight * final_loss
        moves_left_loss = torch.zeros(())
        if self.moves_left_weight:
            assert heads.moves_left is not None  # the constructor checked the head
            moves_left_loss = self._moves_left_loss(heads.moves_left, batch)
            total = total + self.moves_left_weight * moves_left_loss
        parts = (policy_loss, value_loss, entropy, total, final_loss, moves_left_loss)
        return total, Losses(*(part.item() for part in parts))

    @staticmethod
    def _value_errors(heads: TrainingHeads, target: torch.Tensor) -> torch.Tensor:
        """Each position's value loss [B]: the squared error of the value, or the cross-entropy of a
        win/draw/loss head against the target's distribution with the most draw."""
        if heads.wdl is None:
            return (heads.value - target) ** 2
        distribution = torch.stack([target.clamp(min=0.0), 1.0 - target.abs(), (-target).clamp(min=0.0)], dim=1)
        return -(distribution * torch.log_softmax(heads.wdl, dim=1)).sum(dim=1)

    def _final_loss(self, final_logits: torch.Tensor, batch: Positions) -> torch.Tensor:
        """The final-position head's binary cross-entropy per cell, averaged over the cells and the positions
        that carry the target."""
        target = torch.from_numpy(batch.finals).to(self.device, torch.float32)  # [B, *obs_shape]
        per_cell = torch.nn.functional.binary_cross_entropy_with_logits(final_logits, target, reduction="none")
        return self._over_final_positions(per_cell.flatten(1).mean(dim=1), batch)

    def _moves_left_loss(self, logits: torch.Tensor, batch: Positions) -> torch.Tensor:
        """The moves-left head's squared error, averaged over the positions that carry the target (as the final
        position's)."""
        target = torch.from_numpy(batch.plies_left).to(self.device)  # [B], in [0, 1]
        return self._over_final_positions((torch.sigmoid(logits) - target) ** 2, batch)

    def _over_final_positions(self, per_position: torch.Tensor, batch: Positions) -> torch.Tensor:
        """The mean of ``per_position`` [B] over the positions that carry the game's final targets
        (``final_weights`` 0 or 1: a sibling or a position of an old replay carries none)."""
        weight = torch.from_numpy(batch.final_weights).to(self.device)
        return (weight * per_position).sum() / weight.sum().clamp(min=1.0)

    def step(self, batch: Positions) -> Losses:
        """One optimisation step on ``batch``; returns its losses before the step."""
        self.network.train()
        total, losses = self.losses(batch)
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        self.optimizer.step()
        return losses


def _float32(heads: TrainingHeads) -> TrainingHeads:
    """``heads`` in float32 (autocast leaves a bfloat16 forward's outputs in bfloat16)."""
    return replace(
        heads, **{f.name: getattr(heads, f.name).float() for f in fields(heads) if getattr(heads, f.name) is not None}
    )


def mean_losses(history: list[Losses]) -> Losses:
    """The mean of each part over ``history`` (not empty)."""
    n = len(history)
    parts = ("policy", "value", "entropy", "total", "final", "moves_left")
    return Losses(*(sum(getattr(losses, name) for losses in history) / n for name in parts))
