"""Policy/value networks built from a game's observation shape and action count.

Every network maps ``(obs[B, *observation_shape], legal_mask[B, A] or None)`` to
``(logits[B, A], value[B])``: logits of illegal actions are set to `MASKED_LOGIT` (their softmax is
exactly 0 in float32 and 0 * logit stays finite in a cross-entropy), values are in [-1, 1] from the side
to move (observations are from the side to move): a ``tanh``, or a ResNet's P(win) - P(loss) (``wdl``).

* `ResNet` -- AlphaZero-style residual conv net for (C, H, W) boards;
* `MLP` -- for tiny games and non-spatial observations (1-D vectors, 2-D planes), flattened;
* `NNUE` -- Stockfish's efficiently updatable shape, small enough to run inside the compiled search:
  the observation's features into an accumulator, two clipped-ReLU layers and a tanh value
  (`rlgames.evaluators.nnue` runs its value path in numba; its policy head serves MCTS and ordering).

A `NetworkConfig` (architecture name, its arguments, the input and output sizes) fully describes how to
rebuild a network; checkpoints store it as a plain dict (`NetworkConfig.to_dict`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from rlgames.evaluators.nnue import encoding_of, feature_set
from rlgames.evaluators.outcomes import outcome_count
from rlgames.game import Game

MASKED_LOGIT = -1e9
"""The logit of an illegal action (float32; it would overflow float16)."""
WDL_OUTPUTS = 3
"""The last layer of a win/draw/loss value head (ResNet argument ``wdl``): the logits of a win, a draw and a
loss for the side to move, in that order."""


@dataclass(frozen=True)
class ResNetArgs:
    """``blocks`` residual blocks of ``channels`` 3x3 convolutions; ``value_hidden`` units in the value
    head's hidden layer; ``policy_channels`` 1x1 filters in the policy head; with ``final_head`` 1, an
    auxiliary head predicts the planes of the game's final position (`ResNet.training_heads`); with ``wdl``
    1, the value head gives the probabilities of a win, a draw and a loss for the side to move (Leela Chess
    Zero's value head), and the value is the first less the last; with ``moves_left_head`` 1, an auxiliary
    head predicts the share of the game's longest length still to be played (Leela Chess Zero's moves-left
    head). ``inputs`` names the planar encoding it reads in place of the observation
    (`rlgames.game.Game.encodings`: connect four's ``("threats",)``)."""

    blocks: int = 4
    channels: int = 64
    value_hidden: int = 64
    policy_channels: int = 2
    final_head: int = 0
    wdl: int = 0
    moves_left_head: int = 0
    inputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:  # a list read from a checkpoint or a JSON setting, or one name
        object.__setattr__(self, "inputs", names(self.inputs))


@dataclass(frozen=True)
class MLPArgs:
    """``layers`` hidden layers of ``hidden`` units with ReLU."""

    hidden: int = 128
    layers: int = 2


@dataclass(frozen=True)
class NNUEArgs:
    """An ``accumulator`` of that many units over the observation's features, then ``hidden`` units
    (clipped ReLU in [0, 1] after each, as Stockfish's NNUE); with ``psqt`` 1, one more first-layer
    unit adds each input's own weight straight to the value before its tanh (Stockfish's PSQT output:
    a linear term, piece-square values in chess, that the layers above need not learn). ``inputs`` names
    the game's feature sets it reads, in order (`rlgames.game.Game.feature_sets`: chess's ``("pieces",
    "threats", "positional")``, the pieces on their squares, then the pieces attacked and hanging and the
    passed pawns, mobility and king danger, recomputed at each evaluation), or one dense encoding
    (`rlgames.game.Game.encodings`: backgammon's ``("expert",)``); `network_config` fills in the game's
    first set where none is named, and a game without sets is read through its observation.
    With ``outcomes`` R >= 1, the head is not one tanh value but the probabilities of the outcomes of a game
    scored in whole points up to R (`rlgames.evaluators.outcomes`: backgammon's gammons, R = 3), whose
    expected return divided by R is the value."""

    accumulator: int = 64
    hidden: int = 32
    psqt: int = 0
    inputs: tuple[str, ...] = ()
    outcomes: int = 0

    def __post_init__(self) -> None:  # a list read from a checkpoint or a JSON setting, or one name
        object.__setattr__(self, "inputs", names(self.inputs))


def names(inputs: str | Sequence[str]) -> tuple[str, ...]:
    """The input names of an architecture's arguments as a tuple: one name given alone (``--set
    network.args.inputs=threats``) or a list (from a checkpoint or a JSON setting)."""
    return (inputs,) if isinstance(inputs, str) else tuple(inputs)


ARCH_ARGS: dict[str, type] = {"resnet": ResNetArgs, "mlp": MLPArgs, "nnue": NNUEArgs}


@dataclass(frozen=True)
class NetworkConfig:
    """Everything needed to rebuild a network: the architecture, its arguments and the game's sizes."""

    arch: str
    args: ResNetArgs | MLPArgs | NNUEArgs
    observation_shape: tuple[int, ...]
    num_actions: int

    def __post_init__(self) -> None:
        expected = ARCH_ARGS.get(self.arch)
        if expected is None:
            raise ValueError(f"unknown network architecture {self.arch!r}; known: {', '.join(ARCH_ARGS)}")
        if type(self.args) is not expected:
            raise ValueError(f"architecture {self.arch!r} takes {expected.__name__}, got {type(self.args).__name__}")
        for field in fields(self.args):
            value = getattr(self.args, field.name)
            if field.name == "inputs":
                if not all(isinstance(name, str) and name for name in value):
                    raise ValueError(f"{self.arch}: inputs must name feature sets, got {value!r}")
                continue
            least = min(field.default, 1)  # a part off by default may be 0
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(
                    f"{self.arch}: {field.name} must be {'a positive int' if least else 'an int >= 0'}, got {value!r}"
                )
        if not self.observation_shape or any(d < 1 for d in self.observation_shape) or self.num_actions < 1:
            raise ValueError(f"bad network sizes: observation {self.observation_shape}, {self.num_actions} actions")

    def describe(self) -> str:
        """E.g. ``resnet(blocks=4, channels=64, ...)`` (`describe_args`)."""
        return describe_args(self.arch, self.args)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (str/int/list only) for checkpoints."""
        return {
            "arch": self.arch,
            "args": asdict(self.args),
            "observation_shape": list(self.observation_shape),
            "num_actions": self.num_actions,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NetworkConfig:
        """Inverse of `to_dict`; raises `ValueError` naming what is missing or wrong."""
        try:
            arch, args = data["arch"], data["args"]
            shape, num_actions = tuple(data["observation_shape"]), data["num_actions"]
        except (KeyError, TypeError) as error:
            raise ValueError(f"network record {data!r} lacks {error}") from None
        return cls(arch, make_arch_args(arch, **args), shape, num_actions)


def describe_args(arch: str, args: ResNetArgs | MLPArgs | NNUEArgs) -> str:
    """``arch(key=value, ...)``, the feature sets joined by ``+`` (none: ``observation``); an NNUE's one-value
    head (``outcomes=0``, the default) goes unsaid."""

    def shown(value: Any) -> str:
        return "+".join(value) or "observation" if isinstance(value, tuple) else str(value)

    unsaid = {("outcomes", 0), ("final_head", 0), ("wdl", 0), ("moves_left_head", 0)}
    if arch == "resnet":
        unsaid.add(("inputs", ()))
    items = [f"{k}={shown(v)}" for k, v in asdict(args).items() if (k, v) not in unsaid]
    return f"{arch}({', '.join(items)})"


def make_arch_args(arch: str, **arch_args: Any) -> ResNetArgs | MLPArgs | NNUEArgs:
    """The argument record of ``arch``; raises `ValueError` on an unknown architecture or argument."""
    args_class = ARCH_ARGS.get(arch)
    if args_class is None:
        raise ValueError(f"unknown network architecture {arch!r}; known: {', '.join(ARCH_ARGS)}")
    known = {f.name for f in fields(args_class)}
    unknown = sorted(set(arch_args) - known)
    if unknown:
        raise ValueError(f"{arch} has no argument(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return args_class(**arch_args)


def default_arch(observation_shape: tuple[int, ...]) -> str:
    """``"resnet"`` for (C, H, W) boards with H, W >= 3, ``"mlp"`` otherwise."""
    spatial = len(observation_shape) == 3 and min(observation_shape[1:]) >= 3
    return "resnet" if spatial else "mlp"


def reads_features(game: Game, arch: str) -> bool:
    """Whether a network of ``arch`` reads the game's sparse feature sets (`rlgames.game.Game.feature_sets`)
    rather than its observation: an NNUE of a game that has them (chess's piece-square inputs, connect
    four's and othello's patterns)."""
    return arch == "nnue" and bool(game.feature_sets)


def feature_inputs(args: ResNetArgs | MLPArgs | NNUEArgs) -> tuple[str, ...]:
    """The feature sets or encoding a network with ``args`` reads (`NNUEArgs.inputs`, `ResNetArgs.inputs`);
    none: its observation."""
    return () if isinstance(args, MLPArgs) else args.inputs


def input_shape(game: Game, arch: str, *, inputs: tuple[str, ...] = ()) -> tuple[int, ...]:
    """What a network of ``arch`` reads of a position: the vector of the feature sets ``inputs`` of the
    game (each entry how often its input is active, the sets one after the other:
    `rlgames.evaluators.nnue.feature_set`) or of the encoding ``inputs`` names (`rlgames.game.Encoding`),
    else the observation."""
    if not inputs:
        return tuple(game.observation_shape)
    try:
        dense = encoding_of(game, inputs)
        if arch != "nnue" and not dense:
            raise ValueError(f"a {arch} network reads the observation or an encoding, not feature sets")
        return dense[1] if dense else (feature_set(game, inputs).inputs,)
    except ValueError as error:
        raise ValueError(f"a {arch} network of {game.name} cannot read {'+'.join(inputs)}: {error}") from None


def network_config(game: Game, arch: str = "auto", **arch_args: Any) -> NetworkConfig:
    """The `NetworkConfig` for ``game``; ``arch="auto"`` picks `default_arch`."""
    name = default_arch(tuple(game.observation_shape)) if arch == "auto" else arch
    args = make_arch_args(name, **arch_args)
    if isinstance(args, NNUEArgs) and not args.inputs and reads_features(game, name):
        args = replace(args, inputs=(next(iter(game.feature_sets)),))  # the game's first set, by name
    shape = input_shape(game, name, inputs=feature_inputs(args))
    if name == "resnet" and len(shape) != 3:
        raise ValueError(f"resnet needs (C, H, W) observations; {game.name}'s are shaped {shape}")
    return NetworkConfig(name, args, shape, game.num_actions)


def build_network(game: Game, arch: str = "auto", *, seed: int | None = None, **arch_args: Any) -> PolicyValueNet:
    """A freshly initialised network for ``game`` (``arch``: "auto", "resnet" or "mlp"); ``seed`` makes
    the initial weights reproducible."""
    return network_from_config(network_config(game, arch, **arch_args), seed=seed)


def network_from_config(config: NetworkConfig, *, seed: int | None = None) -> PolicyValueNet:
    """The network described by ``config``, its weights initialised from ``seed`` when given (torch's
    global generator is left as it was) and from torch's global generator otherwise."""
    network_class = {"resnet": ResNet, "mlp": MLP, "nnue": NNUE}[config.arch]
    if seed is None:
        return network_class(config)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return network_class(config)


NetworkRecord = tuple[dict[str, Any], dict[str, np.ndarray]]
"""A network as plain data for another process: its config (`NetworkConfig.to_dict`) and weights."""


def network_record(network: PolicyValueNet) -> NetworkRecord:
    """``network``'s config and a copy of its weights, as numpy arrays on the CPU."""
    return network.config.to_dict(), {k: v.detach().cpu().numpy().copy() for k, v in network.state_dict().items()}


def network_from_record(record: NetworkRecord) -> PolicyValueNet:
    """The network of a `network_record`, on the CPU, in evaluation mode."""
    network = network_from_config(NetworkConfig.from_dict(record[0]))
    network.load_state_dict({k: torch.from_numpy(v) for k, v in record[1].items()})
    return network.eval()


class PolicyValueNet(nn.Module):
    """Base of the networks: holds the `NetworkConfig` and applies the legal mask."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config

    def forward(self, obs: torch.Tensor, legal_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """obs[B, *observation_shape], legal_mask[B, A] (bool or 0/1) -> (logits[B, A], value[B])."""
        expected = self.config.observation_shape
        if tuple(obs.shape[1:]) != expected:
            raise ValueError(
                f"{type(self).__name__} expects observations shaped (B, {expected}), got {tuple(obs.shape)}"
            )
        logits, value = self.heads(obs)  # [B, A], [B]
        return masked(logits, legal_mask), value

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def training_heads(self, obs: torch.Tensor, legal_mask: torch.Tensor | None = None) -> TrainingHeads:
        """Every head's output that a loss reads: `forward`'s, and none besides (networks with auxiliary
        heads override it)."""
        logits, value = self(obs, legal_mask)
        return TrainingHeads(logits, value)


@dataclass(frozen=True)
class TrainingHeads:
    """A network's outputs for its loss, from one pass through it."""

    logits: torch.Tensor
    """[B, A], illegal actions at `MASKED_LOGIT`."""
    value: torch.Tensor
    """[B], in [-1, 1] for the side to move."""
    wdl: torch.Tensor | None = None
    """[B, 3]: the logits of a win, a draw and a loss for the side to move (ResNet argument ``wdl``)."""
    final: torch.Tensor | None = None
    """[B, *observation_shape]: the logits of the final position's cells (ResNet argument ``final_head``)."""
    moves_left: torch.Tensor | None = None
    """[B]: the logit of the share of the game's longest length still to be played (``moves_left_head``)."""


def value_of(value_out: torch.Tensor) -> torch.Tensor:
    """The value in [-1, 1] of a value head's last layer ``[B, 1]`` (its tanh) or ``[B, 3]`` (the win,
    draw and loss logits: P(win) - P(loss))."""
    if value_out.shape[1] == WDL_OUTPUTS:
        probabilities = torch.softmax(value_out, dim=1)
        return probabilities[:, 0] - probabilities[:, 2]
    return torch.tanh(value_out).squeeze(1)


def masked(logits: torch.Tensor, legal_mask: torch.Tensor | None) -> torch.Tensor:
    """``logits`` with the illegal actions' set to `MASKED_LOGIT` (none without a mask)."""
    return logits if legal_mask is None else logits.masked_fill(legal_mask == 0, MASKED_LOGIT)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x[B, C, H, W]
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


def conv_bn_relu(in_channels: int, out_channels: int, kernel: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(),
    )


def scalar_head(args: ResNetArgs, cells: int, outputs: int) -> tuple[nn.Sequential, nn.Sequential]:
    """A head shaped as AlphaZero's value head, from the trunk's ``args.channels``: a 1x1 convolution to one
    plane of ``cells``, then linear to ``args.value_hidden`` units, ReLU, linear to ``outputs``."""
    hidden = args.value_hidden
    conv = conv_bn_relu(args.channels, 1, 1)  # first: the weights are drawn in the order the layers are made
    return conv, nn.Sequential(nn.Linear(cells, hidden), nn.ReLU(), nn.Linear(hidden, outputs))


class ResNet(PolicyValueNet):
    """Stem 3x3 conv, residual blocks, a policy head (1x1 conv, linear to A logits) and a value head
    (1x1 conv, linear, ReLU, linear, tanh; with ``wdl``, linear to three logits, `value_of`), all
    convolutions batch-normalised. With ``final_head``, a 1x1 convolution from the trunk gives a logit per
    plane and cell of the observation: the probability that the cell is set in the game's final position,
    seen by the side to move (KataGo's ownership target, Wu 2019, made generic: in go the final stones, in
    connect four the discs that end the game). With ``moves_left_head``, a head shaped as the value head gives
    the logit of the share of the game's longest length still to be played (Leela Chess Zero's moves-left
    head, here an auxiliary target: how long the game lasts tells a position about to be decided from one
    that holds). Both are trained beside policy and value (`training_heads`) and never read in play."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__(config)
        args: ResNetArgs = config.args  # type: ignore[assignment]
        planes, height, width = config.observation_shape
        cells = height * width
        self.stem = conv_bn_relu(planes, args.channels, 3)
        self.blocks = nn.Sequential(*(ResidualBlock(args.channels) for _ in range(args.blocks)))
        self.policy_conv = conv_bn_relu(args.channels, args.policy_channels, 1)
        self.policy_fc = nn.Linear(args.policy_channels * cells, config.num_actions)
        self.value_conv, self.value_fc = scalar_head(args, cells, WDL_OUTPUTS if args.wdl else 1)
        self.final_conv = nn.Conv2d(args.channels, planes, 1) if args.final_head else None
        if args.moves_left_head:
            conv, fc = scalar_head(args, cells, 1)
            self.moves_left: nn.Sequential | None = nn.Sequential(conv, nn.Flatten(), fc)
        else:
            self.moves_left = None

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value_out = self._heads(self.blocks(self.stem(obs)))
        return logits, value_of(value_out)

    def training_heads(self, obs: torch.Tensor, legal_mask: torch.Tensor | None = None) -> TrainingHeads:
        x = self.blocks(self.stem(obs))  # [B, channels, H, W]
        logits, value_out = self._heads(x)
        return TrainingHeads(
            masked(logits, legal_mask),
            value_of(value_out),
            wdl=value_out if value_out.shape[1] == WDL_OUTPUTS else None,
            final=None if self.final_conv is None else self.final_conv(x),
            moves_left=None if self.moves_left is None else self.moves_left(x).squeeze(1),
        )

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy logits [B, A] and the value head's last layer [B, 1] or [B, 3] of the trunk's output."""
        logits = self.policy_fc(self.policy_conv(x).flatten(1))  # [B, A]
        return logits, self.value_fc(self.value_conv(x).flatten(1))


class MLP(PolicyValueNet):
    """Flattened observation, ``layers`` hidden ReLU layers, a linear policy head and a tanh value head."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__(config)
        args: MLPArgs = config.args  # type: ignore[assignment]
        width = math.prod(config.observation_shape)
        layers: list[nn.Module] = []
        for _ in range(args.layers):
            layers += [nn.Linear(width, args.hidden), nn.ReLU()]
            width = args.hidden
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, config.num_actions)
        self.value = nn.Linear(width, 1)

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.trunk(obs.flatten(1))  # [B, hidden]
        return self.policy(x), torch.tanh(self.value(x)).squeeze(1)  # [B, A], [B]


class NNUE(PolicyValueNet):
    """Flattened observation -> accumulator -> clipped ReLU -> hidden -> clipped ReLU -> tanh value; the
    policy head reads the accumulator. The value path is what `rlgames.evaluators.nnue` compiles."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__(config)
        args: NNUEArgs = config.args  # type: ignore[assignment]
        if args.psqt not in (0, 1):
            raise ValueError(f"nnue: psqt must be 0 or 1, got {args.psqt}")
        if args.psqt and args.outcomes:
            raise ValueError("nnue: a PSQT unit adds to one tanh value; it does not go with outcomes")
        self.width, self.points = args.accumulator, args.outcomes
        self.accumulator = nn.Linear(math.prod(config.observation_shape), args.accumulator + args.psqt)
        self.hidden = nn.Linear(args.accumulator, args.hidden)
        self.value = nn.Linear(args.hidden, outcome_count(args.outcomes) if args.outcomes else 1)
        self.policy = nn.Linear(args.accumulator, config.num_actions)

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._after_accumulator(self.accumulator(obs.flatten(1)))

    def forward_active(
        self, active: torch.Tensor, legal_mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """`forward` on inputs of ones and zeros given by the indices of the ones, ``active`` int[B, K]
        (-1: none), as the compiled evaluator sums them: a row of the first layer per active input
        (an embedding bag), not a product with the mostly-zero vector."""
        logits, value = self._after_accumulator(self._summed(active))
        return masked(logits, legal_mask), value

    def value_only(self, inputs: torch.Tensor, *, active: bool) -> torch.Tensor:
        """value[B] of `forward` (with ``active``, of `forward_active`) without the policy head's
        logits: for learning with no policy loss (a chess policy head is 4,674 logits a position)."""
        return self._value(self._summed(inputs) if active else self.accumulator(inputs.flatten(1)))

    def _summed(self, active: torch.Tensor) -> torch.Tensor:
        """The first layer's output [B, accumulator + psqt] for the ``active`` inputs [B, K] (-1: none)."""
        present = active >= 0
        summed = F.embedding_bag(
            torch.where(present, active, 0).long(),
            self.accumulator.weight.t(),
            per_sample_weights=present.float(),
            mode="sum",
        )  # [B, accumulator + psqt]
        return summed + self.accumulator.bias

    def _after_accumulator(self, summed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.policy(torch.clamp(summed[:, : self.width], 0.0, 1.0)), self._value(summed)  # [B, A], [B]

    def _value(self, summed: torch.Tensor) -> torch.Tensor:
        if self.points:
            return outcome_value(self._outcomes(summed), self.points)
        a = torch.clamp(summed[:, : self.width], 0.0, 1.0)  # [B, accumulator]
        h = torch.clamp(self.hidden(a), 0.0, 1.0)  # [B, hidden]
        linear = summed[:, self.width :].sum(1)  # [B]: the PSQT unit, or zeros
        return torch.tanh(self.value(h).squeeze(1) + linear)  # [B]

    def outcomes(self, obs: torch.Tensor) -> torch.Tensor:
        """The outcome probabilities [B, 2R - 1] of the observations [B, ...] (a head with ``outcomes``)."""
        if not self.points:
            raise ValueError("nnue: this network has one value, not outcome probabilities")
        return self._outcomes(self.accumulator(obs.flatten(1)))

    def _outcomes(self, summed: torch.Tensor) -> torch.Tensor:
        a = torch.clamp(summed[:, : self.width], 0.0, 1.0)
        return torch.sigmoid(self.value(torch.clamp(self.hidden(a), 0.0, 1.0)))  # [B, K]

    def export(self) -> tuple:
        """The value path's weights as float32 numpy arrays, for `rlgames.evaluators.nnue`:
        ``(w1[F, acc + psqt], b1[acc + psqt], w2[acc, hidden], b2[hidden], w3[hidden], b3)`` (with a
        PSQT unit, the first layer's last column); with outcomes, ``w3[hidden, K]`` and ``b3[K]``."""

        def array(parameter: torch.Tensor):
            return parameter.detach().cpu().float().numpy().copy()

        return (
            array(self.accumulator.weight).T.copy(),
            array(self.accumulator.bias),
            array(self.hidden.weight).T.copy(),
            array(self.hidden.bias),
            array(self.value.weight).T.copy() if self.points else array(self.value.weight)[0],
            array(self.value.bias) if self.points else float(self.value.bias.item()),
        )


def outcome_value(outcomes: torch.Tensor, points: int) -> torch.Tensor:
    """`rlgames.evaluators.outcomes.outcome_value` of each row of ``outcomes`` [B, 2R - 1]: value[B]."""
    win = outcomes[:, 0]
    equity, last = win, win
    for k in range(1, points):
        last = torch.minimum(outcomes[:, k], last)
        equity = equity + last
    last = 1.0 - win
    equity = equity - last
    for k in range(1, points):
        last = torch.minimum(outcomes[:, points - 1 + k], last)
        equity = equity - last
    return equity / points
