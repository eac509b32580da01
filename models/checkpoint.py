"""Self-describing checkpoint files, sealed with a SHA-256, written atomically and validated on load.

A checkpoint is one ``torch.save`` of a plain dict (tensors, dicts, lists, tuples, str, int, float,
bool, None only, so that it loads with ``torch.load(..., weights_only=True)``, which never builds
arbitrary objects)::

    {"format": "rlgames-checkpoint", "format_version": 2,
     "game": {"name", "version", "params"},
     "network": NetworkConfig.to_dict(),      # architecture name + args + sizes
     "model": state_dict,
     "counters": {...}, "config": {...},      # training counters and configuration (plain dicts)
     "optimizer": optimizer.state_dict() or None,
     "rng": RngStreams.state() or None}       # torch / numpy / python generator states

The zip archive that ``torch.save`` writes is sealed with its SHA-256: the archive's comment, the last
79 bytes of the file, is ``rlgames-sha256:`` and the hex SHA-256 of every byte before the comment's
2-byte length field, so ``head -c -81 FILE | sha256sum`` prints it too (`CheckpointInfo.sha256`).
`load_checkpoint` checks the seal before it unpickles anything, so a byte flipped anywhere in the file
(in tensor data, whose CRC-32 ``torch.load`` does not check, in the pickle or in zip headers), a
truncated file, or one edited and re-saved without the seal is refused; so is a version-1 file, written
before seals existed (`upgrade_checkpoint` seals one you trust).

`save_checkpoint` never leaves a half-written file under ``path`` (`rlgames.files.atomic_write`).
Every refusal is a one-line `CheckpointError` naming the file and the problem: missing, corrupt or
edited, not a checkpoint, another format version, or made for another game (name, version or params),
observation shape, action count or architecture.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import random
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from rlgames.models.networks import (
    NetworkConfig,
    PolicyValueNet,
    feature_inputs,
    input_shape,
    network_from_config,
)
from rlgames.files import atomic_write
from rlgames.game import Game
from rlgames.registry import game_class, load_game

FORMAT = "rlgames-checkpoint"
FORMAT_VERSION = 2
SEAL = b"rlgames-sha256:"
"""The start of the archive comment that seals a checkpoint; the SHA-256's 64 hex digits follow."""
_COMMENT_LENGTH = len(SEAL) + 64
_TRAILER = 2 + _COMMENT_LENGTH
"""The bytes after the hashed part of a sealed file: the comment's length field, then the comment."""
_END_RECORD = b"PK\x05\x06"
"""The signature of a zip archive's end record: 22 bytes when the archive has no comment."""


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, or does not fit what it is loaded for."""


@dataclass(frozen=True)
class RngStreams:
    """The three explicit random streams of a training run (no global RNG): a ``torch.Generator``, a
    numpy ``Generator`` and a ``random.Random``. `state` / `set_state` move them to and from plain data."""

    torch: torch.Generator
    numpy: np.random.Generator
    python: random.Random

    @classmethod
    def from_seed(cls, seed: int) -> RngStreams:
        return cls(torch.Generator().manual_seed(seed), np.random.default_rng(seed), random.Random(seed))

    def state(self) -> dict[str, Any]:
        return {
            "torch": self.torch.get_state(),
            "numpy": _plain(self.numpy.bit_generator.state),
            "python": self.python.getstate(),
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores `state` output; raises `CheckpointError` when it does not fit these generators."""
        try:
            self.torch.set_state(state["torch"])
            self.numpy.bit_generator.state = _unplain(state["numpy"])
            self.python.setstate(state["python"])
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise CheckpointError(f"cannot restore the random streams: {error}") from None


def _plain(value: Any) -> Any:
    """numpy arrays and scalars inside a bit-generator state turned into tagged lists and Python numbers."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if "__ndarray__" in value:
            return np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
        return {k: _unplain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class CheckpointInfo:
    """A loaded checkpoint: its SHA-256, what it was trained for, the network record and the saved states."""

    path: Path
    format_version: int
    sha256: str
    game_name: str
    game_version: int
    game_params: dict[str, Any]
    network: NetworkConfig
    model_state: dict[str, torch.Tensor]
    counters: dict[str, Any]
    config: dict[str, Any]
    optimizer_state: dict[str, Any] | None
    rng_state: dict[str, Any] | None

    def load_game(self) -> Game:
        """The game the checkpoint was trained for, rebuilt from its name and params."""
        game = load_game(self.game_name, **self.game_params)
        _check_game(self.path, self.game_name, self.game_version, self.game_params, game)
        return game


def save_checkpoint(
    path: str | os.PathLike,
    *,
    network: PolicyValueNet,
    game: Game,
    optimizer: torch.optim.Optimizer | None = None,
    counters: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    rng: RngStreams | None = None,
) -> Path:
    """Writes a sealed checkpoint atomically (creating missing parent directories) and returns its path."""
    path = Path(path)
    shape = network.config.observation_shape
    if (
        input_shape(game, network.config.arch, inputs=feature_inputs(network.config.args)) != shape
        or game.num_actions != network.config.num_actions
    ):
        raise ValueError(f"network {network.config.describe()} does not fit {game.name}'s inputs/actions")
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {"name": game.name, "version": game.version, "params": dict(game.params)},
        "network": network.config.to_dict(),
        "model": network.state_dict(),
        "counters": dict(counters or {}),
        "config": dict(config or {}),
        "optimizer": None if optimizer is None else optimizer.state_dict(),
        "rng": None if rng is None else rng.state(),
    }
    _write(path, payload)
    return path


def upgrade_checkpoint(path: str | os.PathLike) -> CheckpointInfo:
    """Rewrites a format-version-1 checkpoint in place as version 2, sealed, its content otherwise unchanged
    (tensors on the CPU), and returns it loaded. Version 1 had no seal, so nothing can tell whether such a
    file was edited: upgrade only files you trust."""
    path = Path(path)
    payload, _ = _read(path, "cpu")
    if not isinstance(payload, dict) or payload.get("format") != FORMAT or payload.get("format_version") != 1:
        raise CheckpointError(f"{path} is not a version-1 rlgames checkpoint")
    payload["format_version"] = FORMAT_VERSION
    _write(path, payload)
    return load_checkpoint(path)


def _write(path: Path, payload: dict[str, Any]) -> None:
    """``torch.save`` of ``payload``, sealed, written atomically to ``path``."""
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    with atomic_write(path) as handle:
        handle.write(_seal(buffer.getvalue()))


def _seal(archive: bytes) -> bytes:
    """``archive``, a zip archive without a comment, with the comment ``SEAL`` + its SHA-256."""
    if archive[-22:-18] != _END_RECORD or archive[-2:] != b"\0\0":
        raise RuntimeError("torch.save wrote an archive that does not end with a comment-less end record")
    body = archive[:-2]
    return body + _COMMENT_LENGTH.to_bytes(2, "little") + SEAL + hashlib.sha256(body).hexdigest().encode()


def _check_seal(path: Path, data: bytes) -> str | None:
    """The SHA-256 that ``data``, the file at ``path``, is sealed with, checked against its bytes (None when
    it has no seal); raises `CheckpointError` when they differ."""
    trailer = data[-_TRAILER:]
    if len(data) <= _TRAILER or not trailer.startswith(_COMMENT_LENGTH.to_bytes(2, "little") + SEAL):
        return None
    recorded, actual = trailer[-64:], hashlib.sha256(data[:-_TRAILER]).hexdigest()
    if recorded != actual.encode():
        shown = recorded.decode() if re.fullmatch(rb"[0-9a-f]{64}", recorded) else repr(recorded)
        raise CheckpointError(
            f"{path} does not match its SHA-256 (sealed with {shown}, its bytes give {actual}): "
            f"the file is corrupt or was edited"
        )
    return actual


def load_checkpoint(
    path: str | os.PathLike,
    *,
    game: Game | None = None,
    map_location: str | torch.device = "cpu",
    network: NetworkConfig | None = None,
    rescore: bool = False,
) -> CheckpointInfo:
    """Loads and validates a sealed checkpoint; with ``game`` (and ``network``) given, it must have been saved
    for that game (name, version, params; with ``rescore``, params that differ only in how returns are
    scored, `rlgames.game.Game.value_scale`), its observation shape and action count, and that
    architecture. Raises `CheckpointError`."""
    path = Path(path)
    payload, sha256 = _read(path, map_location)
    info = _parse(path, payload, sha256)
    if game is not None:
        _check_game(path, info.game_name, info.game_version, info.game_params, game, rescore=rescore)
        expected = input_shape(game, info.network.arch, inputs=feature_inputs(info.network.args))
        if info.network.observation_shape != expected or info.network.num_actions != game.num_actions:
            raise CheckpointError(
                f"{path}: its network takes inputs {info.network.observation_shape} and "
                f"{info.network.num_actions} actions, {game.name} has {expected} "
                f"and {game.num_actions}"
            )
    if network is not None and network != info.network:
        raise CheckpointError(f"{path} holds a {info.network.describe()} network, not {network.describe()}")
    return info


def load_network(
    path: str | os.PathLike,
    game: Game | None = None,
    map_location: str | torch.device = "cpu",
    *,
    rescore: bool = False,
) -> tuple[PolicyValueNet, CheckpointInfo]:
    """The network rebuilt from the checkpoint alone (in eval mode), with the checkpoint's info (``rescore``:
    as `load_checkpoint`)."""
    info = load_checkpoint(path, game=game, map_location=map_location, rescore=rescore)
    net = network_from_config(info.network)
    load_weights(net, info)
    return net.eval(), info


def load_weights(net: nn.Module, info: CheckpointInfo) -> None:
    """Loads the checkpoint's weights into ``net``; raises `CheckpointError` when they do not fit."""
    try:
        net.load_state_dict(info.model_state)
    except RuntimeError as error:
        first = str(error).strip().splitlines()
        raise CheckpointError(
            f"{info.path}: its weights do not fit the architecture {info.network.describe()}: {' '.join(first[:3])}"
        ) from None


def _read(path: Path, map_location: str | torch.device) -> tuple[Any, str | None]:
    """The file's payload, unpickled with ``weights_only=True``, and its checked SHA-256 (None: unsealed)."""
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    data = path.read_bytes()
    sha256 = _check_seal(path, data)
    archive = io.BytesIO(data)
    if not zipfile.is_zipfile(archive):  # torch.save writes a zip archive; a cut one lacks its directory
        raise CheckpointError(f"{path} is corrupt or truncated: not a complete torch archive")
    archive.seek(0)
    try:
        return torch.load(archive, map_location=map_location, weights_only=True), sha256
    except pickle.UnpicklingError as error:
        if "weights_only" in str(error).lower() or "weights only" in str(error).lower():
            raise CheckpointError(f"{path} is not an rlgames checkpoint: it holds arbitrary Python objects") from None
        raise CheckpointError(f"{path} is corrupt or truncated: {_first_line(error)}") from None
    except Exception as error:  # damaged archives and pickles fail in many ways inside torch.load
        raise CheckpointError(f"{path} is corrupt or truncated: {_first_line(error)}") from None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _parse(path: Path, data: Any, sha256: str | None) -> CheckpointInfo:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not an rlgames checkpoint (no {FORMAT!r} marker)")
    version = data.get("format_version")
    if version == 1:
        raise CheckpointError(
            f"{path} has checkpoint format version 1, which carries no SHA-256; this rlgames reads "
            f"version {FORMAT_VERSION}: if you trust the file, seal it with "
            f"rlgames.models.checkpoint.upgrade_checkpoint(path)"
        )
    if version != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint format version {version!r}; this rlgames reads version {FORMAT_VERSION}"
        )
    if sha256 is None:
        raise CheckpointError(
            f"{path} carries no SHA-256 (its seal is missing): it was damaged, or edited and "
            f"re-saved outside save_checkpoint"
        )
    try:
        network = NetworkConfig.from_dict(_named_inputs(data["network"], data["game"]["name"]))
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"{path}: bad network record: {error}") from None
    try:
        game = data["game"]
        return CheckpointInfo(
            path,
            version,
            sha256,
            str(game["name"]),
            int(game["version"]),
            dict(game["params"]),
            network,
            dict(data["model"]),
            dict(data["counters"]),
            dict(data["config"]),
            data["optimizer"],
            data["rng"],
        )
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"{path}: malformed checkpoint, missing or bad entry {error}") from None


def _named_inputs(record: dict[str, Any], game_name: str) -> dict[str, Any]:
    """A network record with its inputs named: an NNUE saved before feature sets had names recorded a
    level, ``threats`` 0, 1 or 2 (or none, 0), which reads the first 1, 2 or 3 of its game's
    `Game.feature_sets` (chess: pieces, threats, positional); the sealed file itself is left as it is."""
    args = record.get("args")
    if record.get("arch") != "nnue" or not isinstance(args, dict) or "inputs" in args:
        return record
    args = dict(args)
    level = args.pop("threats", 0)  # older still: no level, the first set
    sets = tuple(game_class(game_name).feature_sets)
    args["inputs"] = sets[: 1 + level] if sets else ()
    return {**record, "args": args}


def _check_game(
    path: Path, name: str, version: int, params: dict[str, Any], game: Game, *, rescore: bool = False
) -> None:
    if name != game.name:
        raise CheckpointError(f"{path} was trained for {name}, not {game.name}")
    if version != game.version:
        raise CheckpointError(f"{path} was trained for {name} version {version}; this {name} is version {game.version}")
    if params != game.params and not (rescore and game.value_scale(params) is not None):
        rescorable = not rescore and game.value_scale(params) is not None
        hint = " (rescore=true reads its values under these params)" if rescorable else ""
        raise CheckpointError(f"{path} was trained for {name} with params {params}, not {game.params}{hint}")
