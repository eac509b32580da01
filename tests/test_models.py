"""Networks, checkpoints, the network evaluator and batched alpha-beta."""

from __future__ import annotations

import hashlib
import random
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import rlgames
from rlgames.models import checkpoint
from rlgames.models.checkpoint import (
    CheckpointError,
    RngStreams,
    load_checkpoint,
    load_network,
    load_weights,
    save_checkpoint,
    upgrade_checkpoint,
)
from rlgames.models.evaluator import NetworkEvaluator
from rlgames.models.folded import fold
from rlgames.models.networks import (
    MASKED_LOGIT,
    MLP,
    NetworkConfig,
    ResNet,
    build_network,
    network_from_config,
)
from rlgames.models.rollout import PolicyRolloutEvaluator
from rlgames.evaluators.base import Evaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.alphabeta.batched import WIN, batched_alphabeta
from rlgames.search.alphabeta.driver import WIN as ALPHABETA_WIN
from rlgames.search.reference import alphabeta as reference_alphabeta

torch.set_num_threads(1)

TTT = rlgames.load_game("tic_tac_toe")
C4 = rlgames.load_game("connect_four")
TINY = {"blocks": 1, "channels": 8, "value_hidden": 8}  # a fast ResNet


def random_states(game: rlgames.Game, rng: np.random.Generator, count: int, max_plies: int) -> list[rlgames.State]:
    """``count`` distinct positions where a player is to move, after random play."""
    states: list[rlgames.State] = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, max_plies + 1))):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
        if not state.is_terminal() and not state.is_chance_node() and state not in states:
            states.append(state)
    return states


def encode(states: list[rlgames.State]) -> tuple[torch.Tensor, torch.Tensor]:
    obs = torch.from_numpy(np.stack([s.observation() for s in states]))
    mask = torch.from_numpy(np.stack([s.legal_action_mask() for s in states])).bool()
    return obs, mask


# --- networks ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", rlgames.list_games())
def test_network_shapes_and_ranges(name: str) -> None:
    game = rlgames.load_game(name)
    net = build_network(game, seed=0, **(TINY if len(game.observation_shape) == 3 else {}))
    spatial = len(game.observation_shape) == 3 and min(game.observation_shape[1:]) >= 3
    assert isinstance(net, ResNet if spatial else MLP)
    states = random_states(game, np.random.default_rng(0), 5, 10)
    obs, mask = encode(states)
    net.train()  # batch statistics: values must still be in range
    logits, value = net(obs, mask)
    assert logits.shape == (5, game.num_actions) and value.shape == (5,)
    assert torch.all(value.abs() <= 1)
    assert torch.all(logits[~mask] == MASKED_LOGIT)
    unmasked, _ = net(obs)
    assert torch.all(unmasked > MASKED_LOGIT)


def test_illegal_logits_never_win() -> None:
    game = rlgames.load_game("nim")
    net = build_network(game, seed=1)
    states = random_states(game, np.random.default_rng(1), 8, 6)
    obs, mask = encode(states)
    with torch.no_grad():
        net.policy.bias[:] = 0.0
        net.policy.bias[~mask.all(0)] = 1e6  # every action illegal somewhere gets a huge logit
    logits, _ = net(obs, mask)
    assert torch.all(mask.gather(1, logits.argmax(1, keepdim=True)))
    priors = torch.softmax(logits, 1)
    assert torch.all(priors[~mask] == 0)


def test_network_seed_is_reproducible_and_leaves_global_rng_alone() -> None:
    before = torch.get_rng_state()
    a, b = build_network(TTT, seed=3, **TINY), build_network(TTT, seed=3, **TINY)
    assert torch.equal(torch.get_rng_state(), before)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    c = build_network(TTT, seed=4, **TINY)
    assert not torch.equal(a.stem[0].weight, c.stem[0].weight)


def test_network_config_round_trip_and_bad_input() -> None:
    net = build_network(C4, "resnet", blocks=2, channels=16)
    config = net.config
    assert config == NetworkConfig.from_dict(config.to_dict())
    assert config.describe() == "resnet(blocks=2, channels=16, value_hidden=64, policy_channels=2)"
    assert build_network(C4, "mlp", hidden=8, layers=1).config.arch == "mlp"
    with pytest.raises(ValueError, match="unknown network architecture 'transformer'"):
        build_network(C4, "transformer")
    with pytest.raises(ValueError, match="resnet has no argument.*depth"):
        build_network(C4, depth=3)
    with pytest.raises(ValueError, match="blocks must be a positive int"):
        build_network(C4, blocks=0)
    with pytest.raises(ValueError, match="psqt must be an int >= 0"):
        build_network(C4, "nnue", psqt=-1)
    with pytest.raises(ValueError, match="psqt must be 0 or 1"):
        build_network(C4, "nnue", psqt=2)
    with pytest.raises(ValueError, match="resnet needs .C, H, W. observations"):
        build_network(rlgames.load_game("pig"), "resnet")
    with pytest.raises(ValueError, match="expects observations shaped"):
        net(torch.zeros(1, 2, 7, 6))


def test_a_resnet_reads_the_planar_encoding_it_names(tmp_path: Path) -> None:
    """``inputs`` names an encoding of the game (connect four's threat planes): the network's input shape is
    the encoding's, a checkpoint keeps it, and its evaluator feeds the network exactly the encoding; feature
    sets are refused."""
    net = build_network(C4, "resnet", blocks=1, channels=8, inputs="threats", seed=0)
    assert net.config.observation_shape == (5, 6, 7) and net.config.args.inputs == ("threats",)
    assert net.config.describe() == "resnet(blocks=1, channels=8, value_hidden=64, policy_channels=2, inputs=threats)"
    loaded, _ = load_network(save_checkpoint(tmp_path / "threats.pt", network=net, game=C4))
    assert loaded.config == net.config
    evaluator = NetworkEvaluator(loaded, C4)
    states = random_states(C4, np.random.default_rng(4), 8, 20)
    encoded = np.zeros((len(states), 5, 6, 7), np.float32)
    for row, state in zip(encoded, states):
        C4.encodings["threats"].encode(state.compact, state.current_player(), row)
        np.testing.assert_array_equal(evaluator.inputs(state), row)
    masks = np.stack([state.legal_action_mask() for state in states]).astype(bool)
    with torch.inference_mode():
        logits, values = net.eval()(torch.from_numpy(encoded), torch.from_numpy(masks))
    got_values, got_priors = evaluator.evaluate_batch(states)
    np.testing.assert_allclose(got_values, values.numpy(), atol=1e-5)
    np.testing.assert_allclose(got_priors, torch.softmax(logits.double(), 1).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="reads the observation or an encoding, not feature sets"):
        build_network(C4, "resnet", inputs="lines")


# --- checkpoints ---------------------------------------------------------------------------------
def train_step(net: torch.nn.Module, optimizer: torch.optim.Optimizer, rng: RngStreams) -> None:
    """One optimizer step on a batch drawn from all three random streams."""
    shape, actions = net.config.observation_shape, net.config.num_actions
    obs = torch.rand((4, *shape), generator=rng.torch)
    target = torch.from_numpy(rng.numpy.uniform(-1, 1, size=4)).float()
    action = rng.python.randrange(actions)
    logits, value = net(obs)
    loss = ((value - target) ** 2).mean() - torch.log_softmax(logits, 1)[:, action].mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def saved(
    tmp_path: Path, game: rlgames.Game = TTT, name: str = "net.pt", **arch: object
) -> tuple[Path, torch.nn.Module]:
    net = build_network(game, seed=0, **(arch or TINY))
    return save_checkpoint(tmp_path / name, network=net, game=game, counters={"step": 3}), net


def test_checkpoint_round_trip_gives_identical_outputs(tmp_path: Path) -> None:
    for game in (TTT, rlgames.load_game("nim")):
        net = build_network(game, seed=0, **(TINY if game is TTT else {}))
        path = save_checkpoint(
            tmp_path / "sub" / f"{game.name}.pt",
            network=net,
            game=game,
            counters={"step": 7, "games": 100},
            config={"lr": 0.01, "arch": "auto"},
        )
        loaded, info = load_network(path)  # from the file alone
        assert (info.game_name, info.counters, info.config) == (
            game.name,
            {"step": 7, "games": 100},
            {"lr": 0.01, "arch": "auto"},
        )
        assert info.load_game() == game and not loaded.training
        obs, mask = encode(random_states(game, np.random.default_rng(2), 6, 5))
        with torch.inference_mode():
            expected, got = net.eval()(obs, mask), loaded(obs, mask)
        assert torch.equal(expected[0], got[0]) and torch.equal(expected[1], got[1])


def test_resume_equals_uninterrupted_training(tmp_path: Path) -> None:
    net = build_network(TTT, seed=0, **TINY)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    rng = RngStreams.from_seed(5)
    for _ in range(2):
        train_step(net, optimizer, rng)
    path = save_checkpoint(tmp_path / "run.pt", network=net, game=TTT, optimizer=optimizer, rng=rng)
    train_step(net, optimizer, rng)

    info = load_checkpoint(path, game=TTT, network=net.config)
    resumed = network_from_config(info.network)
    load_weights(resumed, info)
    resumed_optimizer = torch.optim.Adam(resumed.parameters(), lr=1e-2)
    resumed_optimizer.load_state_dict(info.optimizer_state)
    resumed_rng = RngStreams.from_seed(999)
    resumed_rng.set_state(info.rng_state)
    train_step(resumed, resumed_optimizer, resumed_rng)
    for key, value in net.state_dict().items():
        assert torch.equal(value, resumed.state_dict()[key]), key
    assert resumed_rng.python.random() == rng.python.random()


def test_numpy_array_bit_generator_state_survives(tmp_path: Path) -> None:
    rng = RngStreams(torch.Generator().manual_seed(1), np.random.Generator(np.random.MT19937(7)), random.Random(1))
    rng.numpy.random(3)
    path = save_checkpoint(tmp_path / "mt.pt", network=build_network(TTT, **TINY), game=TTT, rng=rng)
    other = RngStreams(torch.Generator(), np.random.Generator(np.random.MT19937(0)), random.Random())
    other.set_state(load_checkpoint(path).rng_state)
    assert np.array_equal(other.numpy.random(5), rng.numpy.random(5))
    with pytest.raises(CheckpointError, match="cannot restore"):
        RngStreams.from_seed(0).set_state(load_checkpoint(path).rng_state)  # PCG64 vs MT19937


def test_failed_save_keeps_previous_file_and_leaves_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, net = saved(tmp_path)
    before = path.read_bytes()

    def failing_save(obj: object, f, *args, **kwargs) -> None:
        f.write(b"PK\x03\x04 partial bytes")
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint.torch, "save", failing_save)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, network=build_network(TTT, seed=9, **TINY), game=TTT)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    loaded, _ = load_network(path, TTT)
    assert torch.equal(loaded.stem[0].weight, net.stem[0].weight)


def rewrite(path: Path, change, *, seal: bool = True) -> Path:
    """Loads the raw payload, applies ``change`` and saves it back: sealed with a fresh SHA-256, as
    `save_checkpoint` writes it, or with plain ``torch.save``."""
    payload = torch.load(path, weights_only=True)
    change(payload)
    if seal:
        checkpoint._write(path, payload)
    else:
        torch.save(payload, path)
    return path


def one_line_error(path: Path, **kwargs: object) -> str:
    """The `CheckpointError` that loading ``path`` raises: one line naming the file."""
    with pytest.raises(CheckpointError) as error:
        load_checkpoint(path, **kwargs)
    message = str(error.value)
    assert "\n" not in message and str(path) in message, message
    return message


def test_a_checkpoint_is_sealed_with_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    data = path.read_bytes()
    digest = hashlib.sha256(data[:-81]).hexdigest()  # the module docstring's `head -c -81 FILE | sha256sum`
    assert load_checkpoint(path).sha256 == digest
    assert zipfile.ZipFile(path).comment == b"rlgames-sha256:" + digest.encode()
    assert torch.load(path, weights_only=True)["format_version"] == 2  # still a plain torch archive


def member_data(path: Path, name: str) -> range:
    """The byte positions of the stored (uncompressed) member ``name`` of the zip archive at ``path``."""
    info = zipfile.ZipFile(path).getinfo(name)
    with path.open("rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(30)
    name_length, extra_length = struct.unpack("<HH", header[26:30])  # the local header's own lengths
    start = info.header_offset + 30 + name_length + extra_length
    return range(start, start + info.compress_size)


def test_a_byte_flipped_anywhere_is_refused_in_one_line(tmp_path: Path) -> None:
    """torch.load does not check the CRC-32 of tensor data, and ignores many header bytes: the seal
    catches every flip, whether in the zip headers, the pickle, a tensor or the seal itself."""
    path, _ = saved(tmp_path)
    good = path.read_bytes()
    weights = member_data(path, "archive/data/0")  # the stem's convolution weights
    positions = sorted({*range(0, len(good), 13), *weights[:256], *range(len(good) - 81, len(good))})
    flipped = tmp_path / "flipped.pt"
    for index, position in enumerate(positions):
        data = bytearray(good)
        data[position] ^= (0x01, 0x80, 0xFF)[index % 3]
        flipped.write_bytes(data)
        message = one_line_error(flipped, game=TTT)
        assert any(
            words in message for words in ("does not match its SHA-256", "carries no SHA-256", "corrupt or truncated")
        ), (position, message)


def test_an_edited_checkpoint_is_refused(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    seal = path.read_bytes()[-81:]

    def perturb(payload: dict) -> None:
        payload["model"]["stem.0.weight"][0, 0, 0, 0] += 1e-3

    assert "carries no SHA-256" in one_line_error(rewrite(path, perturb, seal=False))
    path.write_bytes(path.read_bytes()[:-2] + seal)  # the edited archive under the original seal
    assert "does not match its SHA-256" in one_line_error(path)


def test_version_1_checkpoints_are_refused_until_upgraded(tmp_path: Path) -> None:
    path, net = saved(tmp_path)

    def version_1(payload: dict) -> None:
        payload["format_version"] = 1

    rewrite(path, version_1, seal=False)  # as the first format wrote it: no seal
    assert "format version 1, which carries no SHA-256" in one_line_error(path)
    info = upgrade_checkpoint(path)
    assert info.format_version == 2 and info.sha256 == load_checkpoint(path).sha256
    loaded, _ = load_network(path, TTT)
    for key, value in net.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key]), key
    with pytest.raises(CheckpointError, match="is not a version-1 rlgames checkpoint"):
        upgrade_checkpoint(path)


def test_load_errors(tmp_path: Path) -> None:
    path, net = saved(tmp_path)
    good = path.read_bytes()
    cases = {
        "missing.pt": (None, "no such checkpoint file"),
        "garbage.pt": (bytes(range(256)) * 4, "corrupt or truncated"),
        "truncated.pt": (good[: len(good) // 2], "corrupt or truncated"),
        "empty.pt": (b"", "corrupt or truncated"),
    }
    for name, (content, message) in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(CheckpointError, match=message) as error:
            load_checkpoint(tmp_path / name)
        assert name in str(error.value)

    torch.save(net.state_dict(), tmp_path / "weights.pt")
    with pytest.raises(CheckpointError, match="weights.pt is not an rlgames checkpoint"):
        load_checkpoint(tmp_path / "weights.pt")
    torch.save({"format": "rlgames-checkpoint", "obj": Path("x")}, tmp_path / "pickle.pt")
    with pytest.raises(CheckpointError, match="pickle.pt is not an rlgames checkpoint"):
        load_checkpoint(tmp_path / "pickle.pt")

    with pytest.raises(CheckpointError, match="net.pt was trained for tic_tac_toe, not connect_four"):
        load_network(path, C4)
    newer = rlgames.load_game("tic_tac_toe")
    newer.version = 2
    with pytest.raises(CheckpointError, match="tic_tac_toe version 1; this tic_tac_toe is version 2"):
        load_checkpoint(path, game=newer)
    nim_path, _ = saved(tmp_path, rlgames.load_game("nim"), "nim.pt", hidden=8)
    with pytest.raises(CheckpointError, match=r"nim.pt was trained for nim with params .*\(1, 3, 5, 7\)"):
        load_checkpoint(nim_path, game=rlgames.load_game("nim", heaps=(2, 3, 5, 7)))
    with pytest.raises(CheckpointError, match=r"holds a resnet\(blocks=1.* not resnet\(blocks=2"):
        load_checkpoint(path, network=build_network(TTT, **{**TINY, "blocks": 2}).config)
    with pytest.raises(CheckpointError, match=r"net.pt: its weights do not fit the architecture resnet\(blocks=1"):
        load_weights(build_network(TTT, "mlp"), load_checkpoint(path))

    def set_format_version(payload: dict) -> None:
        payload["format_version"] = 99

    def set_blocks(payload: dict) -> None:
        payload["network"]["args"]["blocks"] = 2

    def set_arch(payload: dict) -> None:
        payload["network"]["arch"] = "transformer"

    def drop_model(payload: dict) -> None:
        del payload["model"]

    def set_observation_shape(payload: dict) -> None:
        payload["network"]["observation_shape"] = [3, 3, 3]

    def set_num_actions(payload: dict) -> None:
        payload["network"]["num_actions"] = 10

    for change, message in [
        (set_format_version, "format version 99; this rlgames reads version 2"),
        (set_blocks, r"weights do not fit the architecture resnet\(blocks=2"),
        (set_arch, "bad network record: unknown network architecture 'transformer'"),
        (drop_model, "missing or bad entry 'model'"),
        (
            set_observation_shape,
            r"takes inputs \(3, 3, 3\) and 9 actions, tic_tac_toe "
            r"has \(2, 3, 3\) and 9",
        ),
        (
            set_num_actions,
            r"takes inputs \(2, 3, 3\) and 10 actions, tic_tac_toe "
            r"has \(2, 3, 3\) and 9",
        ),
    ]:
        path.write_bytes(good)
        with pytest.raises(CheckpointError, match=message):
            load_network(rewrite(path, change), TTT)


def test_save_refuses_network_of_another_game(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not fit connect_four"):
        save_checkpoint(tmp_path / "x.pt", network=build_network(TTT, **TINY), game=C4)
    assert not list(tmp_path.iterdir())


# --- the network evaluator -----------------------------------------------------------------------
def test_evaluator_values_priors_batch_and_cache(tmp_path: Path) -> None:
    net = build_network(C4, seed=0, **TINY)
    states = random_states(C4, np.random.default_rng(3), 10, 20)
    evaluator = NetworkEvaluator(net, C4, batch_size=3, cache_size=0)
    values, priors = evaluator.evaluate_batch(states)
    assert values.dtype == np.float64 and priors.shape == (10, C4.num_actions)
    assert np.all(np.abs(values) <= 1)
    masks = np.stack([s.legal_action_mask() for s in states]).astype(bool)
    assert np.all(priors[~masks] == 0) and np.allclose(priors.sum(1), 1, atol=1e-12)
    assert (evaluator.evaluations, evaluator.batches, evaluator.cache_hits) == (10, 4, 0)
    one_by_one = [(evaluator.value(s), evaluator.policy(s)) for s in states]
    np.testing.assert_allclose([v for v, _ in one_by_one], values, atol=1e-6)
    np.testing.assert_allclose(np.stack([p for _, p in one_by_one]), priors, atol=1e-6)
    assert net.training  # the evaluator restored the network's mode

    cached = NetworkEvaluator(net, C4, cache_size=4)
    first = cached.evaluate_batch(states[:4] + states[:2])  # duplicates inside a batch count as hits
    assert (cached.evaluations, cached.cache_hits, cached.batches) == (4, 2, 1)
    again = cached.evaluate_batch(states[:4])
    assert (cached.evaluations, cached.cache_hits) == (4, 6)
    assert np.array_equal(again[0], first[0][:4]) and np.array_equal(again[1], first[1][:4])
    cached.evaluate_batch(states[:2])  # now the most recently used
    cached.evaluate_batch(states[4:6])  # evicts the least recently used: states 2 and 3
    cached.evaluate_batch(states[:2])
    assert (cached.evaluations, cached.cache_hits) == (6, 10)
    cached.evaluate_batch(states[2:4])
    assert cached.evaluations == 8

    path = save_checkpoint(tmp_path / "c4.pt", network=net, game=C4)
    restored = NetworkEvaluator.from_checkpoint(path, C4, cache_size=0)
    np.testing.assert_array_equal(
        restored.evaluate_batch(states)[0], NetworkEvaluator(net, C4).evaluate_batch(states)[0]
    )


@pytest.mark.parametrize(
    "name, params, wdl",
    [("go", {"board_size": 9}, 0), ("othello", {}, 0), ("connect_four", {}, 0), ("connect_four", {}, 1)],
)
def test_folded_resnet_equals_the_module_in_eval_mode(name: str, params: dict, wdl: int) -> None:
    """Batch norms with trained statistics (not the identity) fold into the convolutions: the same logits
    and values to float rounding, masked logits included, a win/draw/loss value head's too."""
    game = rlgames.load_game(name, **params)
    net = build_network(game, "resnet", seed=1, blocks=2, channels=16, wdl=wdl)
    with torch.no_grad():  # statistics as training leaves them
        for norm in (m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)):
            norm.running_mean.uniform_(-0.5, 0.5), norm.running_var.uniform_(0.5, 2.0)
            norm.weight.uniform_(0.5, 1.5), norm.bias.uniform_(-0.2, 0.2)
    obs, mask = encode(random_states(game, np.random.default_rng(0), 12, 30))
    net.eval()
    with torch.inference_mode():
        expected, got = net(obs, mask), fold(net)(obs, mask)
    for a, b in zip(expected, got):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-5)
    assert torch.equal(got[0] == MASKED_LOGIT, ~mask)


def test_a_win_draw_loss_head_values_a_position_as_p_win_less_p_loss(tmp_path: Path) -> None:
    """With ``wdl=1`` the value head's three logits are the chances of a win, a draw and a loss for the
    side to move, the value is the first less the last, and the head survives a checkpoint."""
    net = build_network(C4, "resnet", seed=2, blocks=1, channels=8, wdl=1).eval()
    with torch.no_grad():
        net.value_fc[2].bias.copy_(torch.tensor([0.0, 3.0, -1.0]))  # a head leaning to the draw
    obs, mask = encode(random_states(C4, np.random.default_rng(3), 8, 20))
    with torch.inference_mode():
        heads = net.training_heads(obs, mask)
        logits, value = net(obs, mask)
    assert heads.wdl is not None and heads.wdl.shape == (8, 3) and heads.final is None
    chances = torch.softmax(heads.wdl, dim=1)
    torch.testing.assert_close(value, chances[:, 0] - chances[:, 2])
    torch.testing.assert_close(heads.value, value)
    torch.testing.assert_close(heads.logits, logits)
    assert bool((value.abs() < 1).all()) and bool((chances[:, 1] > 0.5).all())
    path = save_checkpoint(tmp_path / "wdl.pt", network=net, game=C4)
    restored = NetworkEvaluator.from_checkpoint(path, C4, cache_size=0)
    assert restored.network.config.args.wdl == 1 and "wdl=1" in restored.network.config.describe()
    states = random_states(C4, np.random.default_rng(4), 5, 20)
    np.testing.assert_allclose(
        restored.evaluate_batch(states)[1], NetworkEvaluator(net, C4).evaluate_batch(states)[1], atol=1e-6
    )


def test_the_evaluator_folds_again_when_the_cache_is_cleared() -> None:
    net = build_network(C4, "resnet", seed=0, **TINY)
    states = random_states(C4, np.random.default_rng(1), 6, 20)
    evaluator = NetworkEvaluator(net, C4, cache_size=0)
    before = evaluator.evaluate_batch(states)[0]
    with torch.no_grad():
        net.value_fc[2].bias.add_(0.5)  # the weights change, as a learner's step changes them
    np.testing.assert_array_equal(evaluator.evaluate_batch(states)[0], before)  # still the snapshot
    evaluator.clear_cache()
    after = evaluator.evaluate_batch(states)[0]
    net.eval()
    with torch.inference_mode():
        np.testing.assert_allclose(after, net(*encode(states))[1].numpy(), atol=1e-5)
    assert not np.allclose(after, before)


def test_evaluator_refuses_bad_states_and_networks() -> None:
    evaluator = NetworkEvaluator(build_network(TTT, **TINY), TTT)
    over = TTT.state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(ValueError, match="not terminal or chance"):
        evaluator.value(over)
    with pytest.raises(ValueError, match="this evaluator is for TicTacToe"):
        evaluator.value(C4.new_initial_state())
    with pytest.raises(ValueError, match="connect_four has"):
        NetworkEvaluator(build_network(TTT, **TINY), C4)
    assert evaluator.kernel is None


# --- batched alpha-beta ----------------------------------------------------------------------------
def evaluators(game: rlgames.Game) -> list:
    # One NetworkEvaluator with an unbounded cache per network: a position evaluated by both searches
    # gets the same value even though batches of different sizes may round differently.
    found = [
        NetworkEvaluator(build_network(game, seed=1, **TINY), game, cache_size=10**6),
        NetworkEvaluator(build_network(game, "mlp", seed=2, hidden=16, layers=1), game, cache_size=10**6),
    ]
    return found + ([OpenLinesEvaluator()] if game is TTT else [])


@pytest.mark.parametrize("game, max_plies", [(TTT, 6), (C4, 14)], ids=["tic_tac_toe", "connect_four"])
def test_batched_alphabeta_equals_reference(game: rlgames.Game, max_plies: int) -> None:
    states = random_states(game, np.random.default_rng(4), 5, max_plies)
    for evaluator in evaluators(game):
        for state in states:
            for depth in (1, 2, 3):
                result = batched_alphabeta(state, depth=depth, evaluator=evaluator)
                reference = reference_alphabeta(state, depth=depth, evaluator=evaluator)
                assert result.value == reference.value, (state, depth, evaluator)
                replay = state
                for action in result.principal_variation:
                    replay = replay.apply(action)
                assert len(result.principal_variation) == depth or replay.is_terminal()


def test_batched_alphabeta_scores_wins_by_distance() -> None:
    evaluator = OpenLinesEvaluator()
    proven = 0
    for state in random_states(TTT, np.random.default_rng(5), 12, 5):
        result = batched_alphabeta(state, depth=4, evaluator=evaluator)
        if result.plies_to_end is None:
            assert -1 < result.value < 1
            continue
        proven += 1
        end = state
        for action in result.principal_variation:
            end = end.apply(action)
        assert end.is_terminal() and len(result.principal_variation) == result.plies_to_end
        assert result.value == end.returns()[state.current_player()]
    assert proven > 0
    win_now = TTT.state_from_actions([0, 3, 1, 4])  # x completes the top row
    result = batched_alphabeta(win_now, depth=3, evaluator=evaluator)
    assert (result.action, result.value, result.plies_to_end) == (2, 1.0, 1)
    lost = TTT.state_from_actions([0, 3, 1, 5, 4])  # o cannot stop x's three threats
    result = batched_alphabeta(lost, depth=3, evaluator=evaluator)
    assert (result.value, result.plies_to_end) == (-1.0, 2)
    assert WIN == ALPHABETA_WIN


def test_batched_alphabeta_batches_siblings_and_orders_by_prior() -> None:
    evaluator = NetworkEvaluator(build_network(C4, seed=0, **TINY), C4, cache_size=0)
    root = C4.new_initial_state()
    result = batched_alphabeta(root, depth=1, evaluator=evaluator)
    assert (result.stats.extra["batches"], result.stats.extra["evaluations"]) == (1, 7)
    assert evaluator.evaluations == 7
    batches: list[list[rlgames.State]] = []

    class Recording(NetworkEvaluator):
        def evaluate_batch(self, states):
            batches.append(list(states))
            return super().evaluate_batch(states)

    recording = Recording(evaluator.network, C4)
    prior = np.array([0.0, 0.1, 0.2, 0.0, 0.1, 0.6, 0.0])
    deep = batched_alphabeta(root, depth=2, evaluator=recording, root_prior=prior)
    assert deep.stats.extra["batches"] == len(batches) == 7  # each child's leaves
    expanded = [batch[0].compact for batch in batches]  # the first leaf of each expanded child
    assert expanded == [root.apply(a).apply(0).compact for a in (5, 2, 1, 4, 0, 3, 6)]

    batches.clear()
    batched_alphabeta(root, depth=3, evaluator=recording, root_prior=prior)
    assert [s.compact for s in batches[0]] == [root.apply(a).compact for a in (5, 2, 1, 4, 0, 3, 6)]
    first_child = root.apply(5)
    best_reply = int(np.argmax(evaluator.policy(first_child)))  # the first child's children by its prior
    assert batches[1][0].compact == first_child.apply(best_reply).apply(0).compact
    with pytest.raises(ValueError, match="root_prior must have shape"):
        batched_alphabeta(root, depth=2, evaluator=evaluator, root_prior=np.ones(3))
    with pytest.raises(ValueError, match="depth must be in"):
        batched_alphabeta(root, depth=0, evaluator=evaluator)


def test_batched_alphabeta_node_budget_returns_the_deepest_completed_iteration() -> None:
    evaluator = NetworkEvaluator(build_network(C4, seed=3, **TINY), C4, cache_size=10**6)
    states = random_states(C4, np.random.default_rng(7), 8, 10)
    unproven = [
        state for state in states if batched_alphabeta(state, depth=4, evaluator=evaluator).plies_to_end is None
    ]
    assert len(unproven) >= 4
    for state in unproven:
        depths = []
        for max_nodes in (1, 60, 400, 3000):
            result = batched_alphabeta(state, depth=None, evaluator=evaluator, max_nodes=max_nodes)
            fixed = batched_alphabeta(state, depth=result.stats.depth, evaluator=evaluator)
            assert result.value == fixed.value
            depths.append(result.stats.depth)
        assert depths[0] == 1 and depths == sorted(depths) and depths[-1] >= 3  # the first iteration always completes
        capped = batched_alphabeta(state, depth=2, evaluator=evaluator, max_nodes=10**9)
        assert capped.value == batched_alphabeta(state, depth=2, evaluator=evaluator).value
        assert capped.stats.depth == 2 or capped.plies_to_end == 1  # a win at once ends the deepening


def test_batched_alphabeta_time_budget_stops_a_slow_evaluator() -> None:
    class Slow(NetworkEvaluator):
        def evaluate_batch(self, states):
            time.sleep(0.002)
            return super().evaluate_batch(states)

    evaluator = Slow(build_network(C4, seed=0, **TINY), C4)
    state = C4.state_from_moves("4453")
    started = time.perf_counter()
    result = batched_alphabeta(state, depth=None, evaluator=evaluator, time_limit=0.1)
    elapsed = time.perf_counter() - started
    assert elapsed < 0.1 + 0.05 and result.stats.depth >= 2 and result.action in state.legal_actions()
    assert result.value == batched_alphabeta(state, depth=result.stats.depth, evaluator=evaluator).value


def test_batched_alphabeta_does_not_import_torch() -> None:
    code = "import sys, rlgames.search.alphabeta.batched; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- rollout results are values --------------------------------------------------------------------------
class Prefers(Evaluator):
    """Value 0 and a policy with all its mass on one Tug action."""

    def __init__(self, action: int) -> None:
        self.action = action

    def value(self, state) -> float:
        return 0.0

    def policy(self, state) -> np.ndarray:
        prior = np.zeros(3)
        prior[self.action] = 1.0
        return prior


def test_policy_rollouts_scale_returns_into_values() -> None:
    """Tug's wins are worth 1 or 2 points (utility (-2, 2)): a rollout's result is the value, in [-1, 1]."""
    from tug import CASH, RIGHT, Tug

    tug = Tug()
    start, after_right = tug.new_initial_state(), tug.state_from_actions([RIGHT])  # player 0, player 1 to move
    to_goal = PolicyRolloutEvaluator(Prefers(RIGHT), mix=1.0, temperature=0.0)  # 2 points for player 0
    assert to_goal.rollout_results([start, after_right]).tolist() == [1.0, -1.0]
    cash = PolicyRolloutEvaluator(Prefers(CASH), mix=1.0, temperature=0.0)  # 1 point on player 0's side
    assert cash.rollout_results([after_right]).tolist() == [-0.5]
    values, _ = PolicyRolloutEvaluator(Prefers(RIGHT), mix=0.5, temperature=0.0).evaluate_batch([start])
    assert values.tolist() == [0.5]
