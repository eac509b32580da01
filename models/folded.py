"""A ResNet for inference only: batch norms folded into the convolutions, run as plain functional calls.

In evaluation mode a batch norm is an affine map per channel, so it folds into the convolution before it:
``w' = w * g`` and ``b' = beta - mean * g`` with ``g = gamma / sqrt(var + eps)``. What remains is a chain
of `torch.nn.functional` calls without `torch.nn.Module` dispatch, which at a search's small batches (8
positions) is a large part of a forward's time (`benchmarks/bench_folded.py`). The outputs equal
the network's in evaluation mode up to float rounding. The activations are kept channels-last (NHWC),
which oneDNN's convolutions run faster on a CPU. The weights are a snapshot, so a change to the
network's needs a new fold (`NetworkEvaluator.clear_cache` makes one).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from rlgames.models.networks import ResNet, masked, value_of

Conv = tuple[torch.Tensor, torch.Tensor]
"""A convolution's weight [out, in, k, k] and bias [out], its batch norm folded in."""


def fold_conv(conv: nn.Conv2d, norm: nn.BatchNorm2d) -> Conv:
    """The weight and bias of ``conv`` followed by ``norm`` in evaluation mode."""
    assert norm.running_mean is not None and norm.running_var is not None  # tracked, as in every ResNet here
    scale = norm.weight / torch.sqrt(norm.running_var + norm.eps)  # [out]
    weight = conv.weight * scale[:, None, None, None]
    bias = norm.bias - norm.running_mean * scale
    if conv.bias is not None:
        bias = bias + conv.bias * scale
    return _copy(weight).contiguous(memory_format=torch.channels_last), _copy(bias)


@dataclass(frozen=True)
class FoldedResNet:
    """The forward of a `ResNet` in evaluation mode: ``(logits[B, A], value[B])`` of ``obs[B, C, H, W]``."""

    stem: Conv
    blocks: tuple[tuple[Conv, Conv], ...]
    policy_conv: Conv
    policy_fc: tuple[torch.Tensor, torch.Tensor]
    value_conv: Conv
    value_fc: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]

    def __call__(self, obs: torch.Tensor, legal_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        x = _conv_relu(obs.contiguous(memory_format=torch.channels_last), self.stem)
        for first, second in self.blocks:
            x = torch.relu(x + _conv(_conv_relu(x, first), second))
        logits = F.linear(_conv_relu(x, self.policy_conv).flatten(1), *self.policy_fc)
        hidden_w, hidden_b, out_w, out_b = self.value_fc
        hidden = torch.relu(F.linear(_conv_relu(x, self.value_conv).flatten(1), hidden_w, hidden_b))
        return masked(logits, legal_mask), value_of(F.linear(hidden, out_w, out_b))


def fold(network: ResNet) -> FoldedResNet:
    """A snapshot of ``network``'s weights with its batch norms folded in."""
    with torch.no_grad():
        blocks = tuple(
            (fold_conv(block.conv1, block.bn1), fold_conv(block.conv2, block.bn2)) for block in network.blocks
        )
        hidden, _, out = network.value_fc
        return FoldedResNet(
            stem=fold_conv(network.stem[0], network.stem[1]),
            blocks=blocks,
            policy_conv=fold_conv(network.policy_conv[0], network.policy_conv[1]),
            policy_fc=(_copy(network.policy_fc.weight), _copy(network.policy_fc.bias)),
            value_conv=fold_conv(network.value_conv[0], network.value_conv[1]),
            value_fc=(_copy(hidden.weight), _copy(hidden.bias), _copy(out.weight), _copy(out.bias)),
        )


def _copy(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().clone()


def _conv(x: torch.Tensor, conv: Conv) -> torch.Tensor:
    weight, bias = conv
    return F.conv2d(x, weight, bias, padding=weight.shape[-1] // 2)


def _conv_relu(x: torch.Tensor, conv: Conv) -> torch.Tensor:
    return torch.relu(_conv(x, conv))
