"""How an NNUE learns its positions: the value's squared error against the labels ``lam * search + (1 - lam)
* result`` (Stockfish's ``lambda``) and the policy's cross-entropy against the searched move, in shuffled
minibatches with Adam (`learn`); a generation learns the window of its last generations (`learn_generation`,
less the `held_out` positions), and `relearn` learns a run's saved generations again with other settings."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import torch
from rlgames.models.checkpoint import load_network
from rlgames.models.networks import NNUE, NNUEArgs, build_network, describe_args
from rlgames.train.nnue.config import NNUEConfig
from rlgames.train.nnue.data import Positions
from torch.nn import functional as F
from torch.nn.utils import parametrize

from rlgames.game import Game


def learn(
    network: NNUE, optimizer: torch.optim.Optimizer, data: Positions, config: NNUEConfig, generator: torch.Generator
) -> dict[str, float]:
    """``config.epochs`` passes over ``data`` in shuffled minibatches; the last epoch's mean losses."""
    obs = torch.from_numpy(data.observations)
    moves, labels = torch.from_numpy(data.moves), torch.from_numpy(data.labels(config.lam))
    shared = factorize(network.accumulator, config.factor) if config.factor else None
    optimizers = [optimizer] + ([torch.optim.Adam(shared.parameters(), lr=config.lr)] if shared else [])
    steps = config.epochs * -(-len(labels) // config.batch_size)
    schedules = (
        [
            torch.optim.lr_scheduler.OneCycleLR(each, max_lr=config.lr, total_steps=steps, pct_start=0.1)
            for each in optimizers
        ]
        if config.one_cycle
        else []
    )
    network.train()
    for _ in range(config.epochs):
        totals, batches = np.zeros(2), 0
        for batch in torch.randperm(len(labels), generator=generator).split(config.batch_size):
            if config.policy_weight:
                value_loss, policy_loss = _losses(network, data, obs[batch], moves[batch], labels[batch], batch)
            else:  # no policy head computed: the same value loss and gradient
                values = network.value_only(obs[batch], active=data.sparse)  # [B]
                value_loss, policy_loss = F.mse_loss(values, labels[batch]), torch.zeros(())
            for each in optimizers:
                each.zero_grad()
            (value_loss + config.policy_weight * policy_loss).backward()
            for each in [*optimizers, *schedules]:
                each.step()
            totals += (value_loss.item(), policy_loss.item())
            batches += 1
    if shared:
        parametrize.remove_parametrizations(network.accumulator, "weight", leave_parametrized=True)
    network.eval()
    return {"loss/value": totals[0] / batches} | ({"loss/policy": totals[1] / batches} if config.policy_weight else {})


def _losses(
    network: NNUE, data: Positions, obs: torch.Tensor, moves: torch.Tensor, labels: torch.Tensor, batch: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """A minibatch's value and policy losses (the policy's over the positions with a searched move)."""
    forward = network.forward_active if data.sparse else network
    legal = torch.from_numpy(data.legal_masks(network.config.num_actions, batch.numpy()))  # [B, A]
    logits, values = forward(obs, legal)  # [B, A], [B]
    played = moves >= 0  # teacher-labelled siblings have no move
    policy_loss = F.cross_entropy(logits[played], moves[played]) if played.any() else logits.sum() * 0
    return F.mse_loss(values, labels), policy_loss


class Factorizer(torch.nn.Module):
    """A first layer's weight ``[width, inputs]`` plus one learned column per run of ``size`` inputs,
    shared by the run (zero at first, so the layer's function is unchanged when it is attached)."""

    def __init__(self, width: int, inputs: int, size: int) -> None:
        super().__init__()
        if inputs % size:
            raise ValueError(f"factor {size} does not divide the network's {inputs} inputs")
        self.size = size
        self.shared = torch.nn.Parameter(torch.zeros(width, inputs // size))

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return weight + self.shared.repeat_interleave(self.size, dim=1)  # [width, inputs]


def factorize(layer: torch.nn.Linear, size: int) -> Factorizer:
    """Attach `Factorizer` to ``layer.weight`` (a parametrization: the weight tensor, and so the
    optimizer's state for it, stays the same object, and removing it folds the shared rows in)."""
    shared = Factorizer(layer.out_features, layer.in_features, size)
    parametrize.register_parametrization(layer, "weight", shared)
    return shared


def new_network(game: Game, config: NNUEConfig) -> tuple[NNUE, torch.optim.Optimizer]:
    """A run's network, initialised from ``config.seed``, and its optimizer."""
    network: NNUE = build_network(
        game,
        "nnue",
        seed=config.seed,
        accumulator=config.accumulator,
        hidden=config.hidden,
        psqt=config.psqt,
        inputs=config.feature_inputs(game),
    )  # type: ignore[assignment]
    return network, torch.optim.Adam(network.parameters(), lr=config.lr)


def initial_network(path: str, game: Game, config: NNUEConfig) -> NNUE:
    """``--init``'s network; raises `ValueError` where its size is not the settings'. One that reads fewer
    of the feature sets (``inputs`` a beginning of the settings') grows into the settings' network: the
    rows of the inputs it gains start at zero, so that it computes the same values at first."""
    network, info = load_network(path, game)
    wanted = NNUEArgs(
        accumulator=config.accumulator, hidden=config.hidden, psqt=config.psqt, inputs=config.feature_inputs(game)
    )
    args = info.network.args
    if (
        info.network.arch == "nnue"
        and len(args.inputs) < len(wanted.inputs)
        and dataclasses.replace(args, inputs=wanted.inputs) == wanted
        and wanted.inputs[: len(args.inputs)] == args.inputs
    ):
        return _grown(network, game, config)  # type: ignore[arg-type]
    if info.network.arch != "nnue" or args != wanted:
        raise ValueError(
            f"{path} is a network {info.network.describe()}; the settings ask for "
            f"{describe_args('nnue', wanted)}: pass --set to match it"
        )
    return network  # type: ignore[return-value]


def _grown(network: NNUE, game: Game, config: NNUEConfig) -> NNUE:
    """``network`` with the inputs of ``config.inputs`` its own do not have, their rows zero."""
    grown, _ = new_network(game, config)
    sources = dict(network.named_parameters())
    with torch.no_grad():
        for name, parameter in grown.named_parameters():
            source = sources[name]
            if name == "accumulator.weight":  # [accumulator + psqt, inputs]: the old inputs come first
                parameter.zero_()
                parameter[:, : source.shape[1]] = source
            else:
                parameter.copy_(source)
    return grown


def learn_generation(
    network: NNUE,
    optimizer: torch.optim.Optimizer,
    game: Game,
    window: list[Positions],
    config: NNUEConfig,
    generation: int,
) -> dict[str, float]:
    """Generation ``generation``'s learning (`learn`) of the ``window`` that ends with its positions,
    seeded from ``(seed, generation)``, less each generation's `held_out` positions; with a ``holdout``, its
    losses include the value loss on the newest generation's."""
    data = Positions.concatenate([held_out(part, config.holdout)[0] for part in window])
    if config.augment:
        data = data.under(game.symmetries())
    losses = learn(network, optimizer, data, config, torch.Generator().manual_seed(config.seed * 100_003 + generation))
    if config.holdout:
        losses["loss/value_holdout"] = value_loss(network, held_out(window[-1], config.holdout)[1], config.lam)
    return losses


def held_out(data: Positions, fraction: float) -> tuple[Positions, Positions]:
    """``data`` (a generation's positions, game after game) split into those learnt and those of its
    last ``fraction`` of positions, of its last games (one game may straddle the two)."""
    cut = len(data) - round(fraction * len(data))
    return data.part(slice(0, cut)), data.part(slice(cut, len(data)))


def value_loss(network: NNUE, data: Positions, lam: float) -> float:
    """The value head's mean squared error on ``data``'s labels (``lam``), evaluated in batches."""
    obs, labels = torch.from_numpy(data.observations), torch.from_numpy(data.labels(lam))
    with torch.no_grad():
        total = sum(
            F.mse_loss(network.value_only(x, active=data.sparse), y, reduction="sum").item()
            for x, y in zip(obs.split(4096), labels.split(4096))
        )
    return total / max(1, len(data))


def scalars(values: dict[str, float]) -> str:
    """``loss/value 0.0123`` -> ``value 0.012``, joined by commas: a generation's line."""
    return ", ".join(f"{k.split('/')[-1]} {v:.3f}" for k, v in values.items())


def relearn(
    game: Game,
    config: NNUEConfig,
    generations: list[Positions],
    echo=functools.partial(print, flush=True),
    *,
    init: NNUE | None = None,
) -> NNUE:
    """A network learnt from ``generations`` (a run's saved positions, in order) as a run with ``config``
    learns them: the same network as that run's where its games do not depend on its networks (the
    first generation's; every one's with ``hand_crafted_games``), and otherwise what ``config``'s
    learning makes of the games another run played. For trying learning settings (``lam``, the
    network's size, ``epochs``...) without playing the games again. With ``init`` (a network of
    ``config``'s size), that network learns further, in place, rather than a fresh one: fine-tuning."""
    if init is None:
        network, optimizer = new_network(game, config)
    else:
        network, optimizer = init, torch.optim.Adam(init.parameters(), lr=config.lr)
    for g in range(len(generations)):
        window = generations[max(0, g + 1 - config.window) : g + 1]
        losses = learn_generation(network, optimizer, game, window, config, g)
        echo(f"generation {g + 1}/{len(generations)}: {sum(map(len, window))} positions learnt, " + scalars(losses))
    return network
