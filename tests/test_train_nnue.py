"""`python -m rlgames.train.nnue`: a smoke run trains, its checkpoint is an NNUE evaluator with a compiled kernel,
a resumed run equals an uninterrupted one, and bad input is one line with exit status 2."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from rlgames.models.checkpoint import load_checkpoint
from rlgames.models.evaluator import NetworkEvaluator, NNUEvaluator
from rlgames.models.networks import build_network, network_record
from rlgames.train import nnue, td
from rlgames.train.alphazero.config import TrainConfig
from rlgames.train.nnue import data as nnue_data
from rlgames.train.nnue import learning
from rlgames.train.nnue import run as nnue_run
from rlgames.train.nnue.learning import factorize, initial_network
from rlgames.train.settings import field_docs, settings_help

import rlgames
from rlgames.evaluators import load_evaluator

LEARN_ONLY = ["--set", "eval_games=0"]
"""A run without its measuring matches: each compiles a search for the generation's new network (its
weights are constants of the code), and the tests of resuming and relearning read none of their scores."""


def play(game, config, seed=0, teacher=None) -> nnue_data.Positions:
    """``config.games`` games of the hand-crafted evaluator (`nnue_data.play_games`), seeded from ``seed``."""
    return nnue_data.play_games(game, load_evaluator("heuristic", game), teacher, config, (seed,), range(config.games))


def weights(path) -> dict[str, torch.Tensor]:
    return load_checkpoint(path).model_state


@pytest.mark.slow  # two training runs (about 40 s)
def test_resume_equals_an_uninterrupted_run(tmp_path, capsys):
    straight, split = tmp_path / "straight", tmp_path / "split"
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "3"]
    assert nnue.main([*args, "--run-dir", str(straight)]) == 0
    assert nnue.main([*args, "--run-dir", str(split), "--generations", "1"]) == 0
    assert nnue.main([*args, "--run-dir", str(split), "--resume", "--out", str(tmp_path / "t.nnue.pt")]) == 0
    a, b = weights(straight / "latest.nnue.pt"), weights(split / "latest.nnue.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    out = capsys.readouterr().out
    assert "generation 2/2" in out and "generation 2: 8/8 games played" in out

    evaluator = NetworkEvaluator.from_checkpoint(tmp_path / "t.nnue.pt", rlgames.load_game("tic_tac_toe"))
    assert isinstance(evaluator, NNUEvaluator) and evaluator.kernel is not None


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tic_tac_toe", "--preset", "huge"], "unknown preset"),
        (["chesss"], "chesss"),
        (["pig"], "chance"),
        (["tic_tac_toe", "--set", "depth"], "KEY=VALUE"),
        (["tic_tac_toe", "--set", "depht=3"], "unknown setting 'depht' in preset tic_tac_toe"),
        (["tic_tac_toe", "--set", "depth=deep"], "must be a number"),
        (["tic_tac_toe", "--set", "depth=2.5"], "depth"),
        (["tic_tac_toe", "--set", "adjudicate=1.5"], "adjudicate must be in [0, 1], got 1.5"),
        (["tic_tac_toe", "--set", "eval_games=-2"], "eval_games must be 0 or more, got -2"),
        (["tic_tac_toe", "--workers", "0"], "--workers must be at least 1"),
        (
            ["tic_tac_toe", "--relearn", "runs/no-such-run", "--out", "x.nnue.pt"],
            "runs/no-such-run/window.npz does not exist",
        ),
        (["tic_tac_toe", "--relearn", "runs/no-such-run"], "--relearn writes its network to --out FILE"),
        (["tic_tac_toe", "--init", "x.nnue.pt"], "x.nnue.pt: no such checkpoint file"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, argv, message):
    assert nnue.main([*argv, "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_settings_override_the_preset():
    args = nnue.parse_args(["connect_four", "--set", "depth=10", "--set", "games=16000", "--generations", "3"])
    config = nnue.make_config(args)
    assert (config.depth, config.games, config.generations, config.seed) == (10, 16000, 3, 0)
    assert dataclasses.replace(config, depth=8, games=32000, generations=2) == nnue.PRESETS["connect_four"]


def test_a_second_run_in_the_same_directory_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.nnue.pt").write_bytes(b"")
    assert nnue.main(["tic_tac_toe", "--preset", "smoke", "--run-dir", str(run)]) == 2
    assert "--resume" in capsys.readouterr().err


@pytest.mark.slow  # two training runs (about 100 s on a busy machine)
def test_a_run_resumes_across_a_setting_added_since_with_its_default_but_not_with_other_settings(tmp_path, capsys):
    """A run saved before a setting existed (its checkpoint's config lacks the key) continues when the
    preset keeps the setting's default; a run with another value of a setting is refused."""
    from rlgames.models import checkpoint

    run = tmp_path / "run"
    args = ["tic_tac_toe", "--preset", "smoke", "--run-dir", str(run)]
    assert nnue.main([*args, "--generations", "1"]) == 0
    payload, _ = checkpoint._read(run / "latest.nnue.pt", "cpu")
    del payload["config"]["psqt"]  # as a run saved before the PSQT unit existed
    checkpoint._write(run / "latest.nnue.pt", payload)
    assert nnue.main([*args, "--resume"]) == 0
    out = capsys.readouterr().out
    assert "generation 2/2" in out and "generation 2: 8/8 games played" in out
    payload["config"]["epochs"] = 5
    checkpoint._write(run / "latest.nnue.pt", payload)
    assert nnue.main([*args, "--resume", "--generations", "3"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_a_teacher_labels_the_positions_and_their_random_children():
    import numpy as np

    game = rlgames.load_game("tic_tac_toe")
    teacher = NetworkEvaluator.from_checkpoint("checkpoints/tic_tac_toe.pt", game)
    config = nnue.NNUEConfig(games=3, depth=2, random_plies=2, lam=1.0, siblings=1.0)
    data = play(game, config, 0, teacher)
    siblings = data.moves == -1
    assert siblings.any() and (~siblings).any()
    # lam = 1: every label is the teacher's value of its position, siblings included
    with torch.no_grad():
        _, values = teacher.network(
            torch.from_numpy(data.observations), torch.from_numpy(data.legal_masks(game.num_actions))
        )
    np.testing.assert_allclose(data.labels(1.0), values.numpy(), atol=1e-5)
    np.testing.assert_array_equal(data.values[siblings], data.results[siblings])  # no game: any lam gives the teacher's
    plain = play(game, config, 0)
    assert not (plain.moves == -1).any() and len(plain) == (~siblings).sum()


@pytest.mark.parametrize("name", ["tic_tac_toe"])
def test_augmented_positions_are_the_positions_of_the_symmetric_boards(name):
    """Each copy under a symmetry is a real position of the transformed board: its legal moves are
    the images of the original's, the searched move maps onto a legal move, labels are unchanged."""
    import numpy as np

    game = rlgames.load_game(name)
    config = nnue.NNUEConfig(games=2, depth=1, random_plies=4)
    data = play(game, config, 1)
    symmetries = game.symmetries()
    augmented = data.under(symmetries)
    n = len(data)
    assert len(augmented) == len(symmetries) * n and len(symmetries) > 1
    for k, symmetry in enumerate(symmetries):
        part = slice(k * n, (k + 1) * n)
        np.testing.assert_array_equal(augmented.values[part], data.values)
        np.testing.assert_array_equal(augmented.results[part], data.results)
        masks, images = data.legal_masks(game.num_actions), augmented.legal_masks(game.num_actions, part)
        for i in range(n):
            assert set(np.flatnonzero(images[i])) == set(symmetry.action_map[np.flatnonzero(masks[i])])
            assert images[i, augmented.moves[part][i]] == 1
        planes, height, width = game.observation_shape  # the transform moves each cell where the action map does
        original = data.observations.reshape(n, planes, height * width)
        image = augmented.observations[part].reshape(n, planes, height * width)
        np.testing.assert_array_equal(image[:, :, symmetry.action_map[: height * width]], original)


def test_sparse_features_cannot_be_augmented():
    """Symmetries transform observations; connect four's network reads line patterns instead."""

    game = rlgames.load_game("connect_four")
    data = play(game, nnue.NNUEConfig(games=1, depth=1), 1)
    with pytest.raises(ValueError, match="sparse features"):
        data.under(game.symmetries())


def test_the_factorizer_folds_into_the_first_layer_exactly():
    """Each run of ``size`` inputs shares a learned column while training; folding it in leaves the
    layer computing the same function, with the same weight tensor (the optimizer's state stays valid)."""
    generator = torch.Generator().manual_seed(0)
    layer = torch.nn.Linear(12, 5)
    weight = layer.weight
    shared = factorize(layer, 4)
    with torch.no_grad():
        shared.shared.copy_(torch.randn(5, 3, generator=generator))
    x = torch.randn(7, 12, generator=generator)
    expected = x @ (weight + shared.shared.repeat_interleave(4, dim=1)).T + layer.bias
    torch.testing.assert_close(layer(x), expected)
    # the shared column of the second run of four inputs moves inputs 4..7 alike
    torch.testing.assert_close(layer.weight[:, 4:8] - weight[:, 4:8], shared.shared[:, 1:2].expand(5, 4))
    torch.nn.utils.parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
    assert layer.weight is weight and not torch.nn.utils.parametrize.is_parametrized(layer)
    torch.testing.assert_close(layer(x), expected)
    with pytest.raises(ValueError, match="does not divide"):
        factorize(torch.nn.Linear(10, 2), 4)


def test_learning_with_a_factorizer_and_no_policy_leaves_a_plain_network():

    game = rlgames.load_game("tic_tac_toe")
    config = nnue.NNUEConfig(
        games=2, depth=1, random_plies=2, accumulator=8, hidden=4, epochs=2, factor=9, policy_weight=0.0, one_cycle=True
    )
    data = play(game, config, 0)
    network = build_network(game, "nnue", seed=0, accumulator=8, hidden=4)
    policy = network.policy.weight.detach().clone()
    optimizer = torch.optim.Adam(network.parameters(), lr=config.lr)
    losses = nnue.learn(network, optimizer, data, config, torch.Generator().manual_seed(0))
    assert losses["loss/value"] > 0
    assert not torch.nn.utils.parametrize.is_parametrized(network.accumulator)
    assert set(network.state_dict()) == set(build_network(game, "nnue", accumulator=8, hidden=4).state_dict())
    torch.testing.assert_close(network.policy.weight, policy)  # policy_weight 0: the policy head learns nothing


def test_quiet_self_play_keeps_only_positions_whose_searched_move_is_quiet():
    """Chess with ``quiet``: the same game (the same seed) as without it, less the positions whose
    searched move captures or promotes (read off the next position: fewer pieces, or fewer pawns of
    the side that moved, which the next position's inputs hold as the opponent's, inputs 384..447)."""
    import numpy as np

    game = rlgames.load_game("chess")
    config = nnue.NNUEConfig(games=1, depth=1, quiescence=4, random_plies=6, quiet=True)
    quiet = play(game, config, 4)
    every = play(game, dataclasses.replace(config, quiet=False), 4)
    assert every.sparse  # chess's networks read its 768 features, stored as the indices of the pieces
    x = np.zeros((len(every), 768), dtype=np.float32)
    for row, active in zip(x, every.observations):
        row[active[active >= 0]] = 1.0
    tactical = [x[i + 1].sum() < x[i].sum() or x[i + 1, 384:448].sum() < x[i, :64].sum() for i in range(len(x) - 1)]
    expected = every.values[:-1][~np.array(tactical)]
    assert 0 < len(expected) < len(tactical) and len(quiet) - len(expected) in (0, 1)
    np.testing.assert_array_equal(quiet.values[: len(expected)], expected)


def test_sparse_positions_are_the_active_features_and_read_as_the_dense_inputs():
    """Where a network reads the game's sparse features (connect four's line patterns, chess's
    pieces, and its threat inputs), positions hold the indices of the active ones; the network reads
    them (`forward_active`) as it reads the vector of ones and zeros, and positions stored densely (a
    window saved before) join sparse ones as sparse."""
    import numpy as np
    from rlgames.models.evaluator import network_inputs

    chess_sets = (("pieces",), ("pieces", "threats"), ("pieces", "threats", "positional"))
    for name, inputs in (("connect_four", ("lines",)), *(("chess", sets) for sets in chess_sets)):
        game = rlgames.load_game(name)
        states = [game.new_initial_state()]
        rng = np.random.default_rng(1)
        while len(states) < 12:
            child = states[-1].apply(int(rng.choice(states[-1].legal_actions())))
            states.append(game.new_initial_state() if child.is_terminal() else child)
        active = nnue_data.active_features(game, states, inputs=inputs)
        dense = network_inputs(game, "nnue", states, inputs=inputs)
        assert active.dtype == np.int32 and [set(a[a >= 0]) for a in active] == [set(np.flatnonzero(d)) for d in dense]
        counts = [game.feature_sets[set_name].inputs for set_name in inputs]
        assert (active.max() >= counts[0]) == (len(inputs) > 1)
        assert (active.max() >= sum(counts[:2])) == (len(inputs) > 2)
        network = build_network(game, "nnue", seed=2, accumulator=8, hidden=4, inputs=inputs)
        masks = torch.ones(len(states), game.num_actions)
        for sparse_out, dense_out in zip(
            network.forward_active(torch.from_numpy(active), masks), network(torch.from_numpy(dense), masks)
        ):
            torch.testing.assert_close(sparse_out, dense_out)
        old = nnue_data.Positions(
            dense,
            np.ones((12, game.num_actions), np.int8),
            np.zeros(12, np.int64),
            np.zeros(12, np.float32),
            np.zeros(12, np.float32),
        )
        new = dataclasses.replace(old, observations=active)
        joined = nnue_data.Positions.concatenate([old, new])
        assert joined.sparse and len(joined) == 24
        assert [set(a[a >= 0]) for a in joined.observations] == [set(a[a >= 0]) for a in (*active, *active)]
    game = rlgames.load_game("connect_four")
    config = nnue.NNUEConfig(games=1, depth=1, random_plies=2)
    played = play(game, config, 0)
    assert played.sparse and played.observations.shape[1] == 69


def test_workers_play_the_same_positions_as_one_process():
    """Game ``i`` is seeded by its number, so splitting a generation among processes changes nothing."""
    import numpy as np

    game = rlgames.load_game("tic_tac_toe")
    config = nnue.NNUEConfig(games=6, depth=2, random_plies=2, random_moves=0.3)
    here = nnue_data.play_generation(game, config, 1, None)
    played = []
    apart = nnue_data.play_generation(game, config, 1, None, workers=2, progress=played.append)
    assert played == sorted(set(played)) and played[-1] == 6
    for field in dataclasses.fields(nnue_data.Positions):
        np.testing.assert_array_equal(getattr(apart, field.name), getattr(here, field.name))
    assert len(nnue_data.play_generation(game, config, 2, None)) != len(here)  # another generation, other games


def test_a_worker_rebuilds_the_network_that_plays_from_its_record():
    """(Its compiled kernel may differ from the parent's in the last bit: numba compiles it with fastmath.)"""
    game = rlgames.load_game("tic_tac_toe")
    network = build_network(game, "nnue", seed=1, accumulator=8, hidden=4)
    _, player, teacher = nnue_data._players(game, nnue.NNUEConfig(), network_record(network))
    assert isinstance(player, NNUEvaluator) and teacher is None
    rebuilt = player.network.state_dict()
    assert all(torch.equal(rebuilt[k], v) for k, v in network.state_dict().items())
    _, hand_crafted, _ = nnue_data._players(game, nnue.NNUEConfig(), None)
    assert not isinstance(hand_crafted, NetworkEvaluator)


def test_adjudication_ends_a_game_once_the_search_is_sure_and_scores_it_for_the_side_it_favours():
    import numpy as np

    game = rlgames.load_game("connect_four")
    config = nnue.NNUEConfig(games=1, depth=4, random_plies=6, random_moves=0.2)
    whole = play(game, config, 3)
    limit = 0.5
    assert (np.abs(whole.values) >= limit).any()  # else the test would test nothing
    ended = play(game, dataclasses.replace(config, adjudicate=limit), 3)
    n = len(ended)
    assert np.flatnonzero(np.abs(whole.values) >= limit)[0] == n - 1  # the first sure position is the last
    np.testing.assert_array_equal(ended.values, whole.values[:n])
    # the results, from each side to move, alternate and make the last position's side the winner if its value says so
    assert ended.results[-1] == np.sign(ended.values[-1])
    np.testing.assert_array_equal(ended.results[:-1], -ended.results[1:])


def test_legal_masks_are_kept_eight_to_a_byte():
    import numpy as np

    masks = np.random.default_rng(0).integers(
        0, 2, size=(5, 4674), dtype=np.int8
    )  # chess's actions: not a multiple of 8
    packed = nnue_data.pack_masks(masks)
    assert packed.shape == (5, 585) and packed.dtype == np.uint8
    np.testing.assert_array_equal(nnue_data.unpack_masks(packed, 4674), masks)


def test_a_window_saved_before_loads_its_mixed_labels_as_value_and_result_and_packs_its_masks(tmp_path):
    import numpy as np

    game = rlgames.load_game("tic_tac_toe")
    data = play(game, nnue.NNUEConfig(games=2, depth=1, random_plies=2))
    nnue_data.save_window(tmp_path / "window.npz", [data, data])
    again = nnue_data.load_window(tmp_path / "window.npz", game)
    assert len(again) == 2 and np.array_equal(again[1].results, data.results)
    legacy = {
        "0/observations": data.observations,
        "0/masks": data.legal_masks(game.num_actions),
        "0/moves": data.moves,
        "0/labels": data.labels(0.25),
    }  # masks not packed, one mixed label
    np.savez(tmp_path / "old.npz", **legacy)
    [old] = nnue_data.load_window(tmp_path / "old.npz", game)
    for lam in (0.0, 0.7, 1.0):
        np.testing.assert_allclose(old.labels(lam), data.labels(0.25))
    np.testing.assert_array_equal(old.masks, data.masks)


def test_a_run_killed_while_learning_resumes_without_playing_its_games_again(tmp_path, monkeypatch, capsys):
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "5", "--generations", "1", *LEARN_ONLY]
    assert nnue.main([*args, "--run-dir", str(tmp_path / "straight")]) == 0
    killed = tmp_path / "killed"

    def interrupted(*_, **__):
        raise KeyboardInterrupt

    monkeypatch.setattr(learning, "learn", interrupted)
    with pytest.raises(KeyboardInterrupt):
        nnue.main([*args, "--run-dir", str(killed)])
    assert (killed / "played-1.npz").exists() and load_checkpoint(killed / "latest.nnue.pt").counters["generation"] == 0
    monkeypatch.undo()

    def not_again(*_, **__):
        raise AssertionError("the games were played before")

    monkeypatch.setattr(nnue_run, "play_generation", not_again)
    assert nnue.main([*args, "--run-dir", str(killed), "--resume"]) == 0
    assert "its games were played before the run stopped" in capsys.readouterr().out
    a, b = weights(tmp_path / "straight" / "latest.nnue.pt"), weights(killed / "latest.nnue.pt")
    assert all(torch.equal(a[k], b[k]) for k in a) and not (killed / "played-1.npz").exists()


def test_relearning_a_runs_positions_with_its_settings_gives_its_network(tmp_path, capsys):
    """The first generation's games do not depend on the network, so learning them again as the run
    did gives the run's network; with another lambda, another network."""
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "4", "--generations", "1", *LEARN_ONLY]
    assert nnue.main([*args, "--run-dir", str(tmp_path / "run")]) == 0
    assert nnue.main([*args, "--relearn", str(tmp_path / "run"), "--out", str(tmp_path / "same.nnue.pt")]) == 0
    assert "generation 1/1: " in capsys.readouterr().out
    a, b = weights(tmp_path / "run" / "latest.nnue.pt"), weights(tmp_path / "same.nnue.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert (
        nnue.main(
            [*args, "--relearn", str(tmp_path / "run"), "--out", str(tmp_path / "other.nnue.pt"), "--set", "lam=0"]
        )
        == 0
    )
    c = weights(tmp_path / "other.nnue.pt")
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert load_checkpoint(tmp_path / "other.nnue.pt").config["lam"] == 0


def test_relearning_from_a_network_learns_it_further(tmp_path, capsys):
    """``--init``: the run's network is where learning starts (with a learning rate of 0 it comes out
    unchanged; else it learns further); one of another size, or no file, is refused in one line."""
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "4", "--generations", "1", *LEARN_ONLY]
    assert nnue.main([*args, "--run-dir", str(tmp_path / "run")]) == 0
    start = tmp_path / "run" / "latest.nnue.pt"
    relearn = [*args, "--relearn", str(tmp_path / "run"), "--init", str(start)]
    assert nnue.main([*relearn, "--out", str(tmp_path / "still.nnue.pt"), "--set", "lr=0"]) == 0
    assert f"starting from {start}" in capsys.readouterr().out
    a, b = weights(start), weights(tmp_path / "still.nnue.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert nnue.main([*relearn, "--out", str(tmp_path / "further.nnue.pt")]) == 0
    c = weights(tmp_path / "further.nnue.pt")
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert nnue.main([*relearn, "--out", str(tmp_path / "x.nnue.pt"), "--set", "hidden=8"]) == 2
    err = capsys.readouterr().err
    assert (
        "is a network nnue(accumulator=8, hidden=4, psqt=0, inputs=observation); the settings ask for "
        "nnue(accumulator=8, hidden=8, psqt=0, inputs=observation): pass --set to match it"
    ) in err
    assert err.count("\n") == 1
    missing = [*args, "--relearn", str(tmp_path / "run"), "--init", str(tmp_path / "none.nnue.pt")]
    assert nnue.main([*missing, "--out", str(tmp_path / "y.nnue.pt")]) == 2
    assert "none.nnue.pt: no such checkpoint file" in capsys.readouterr().err
    assert not (tmp_path / "x.nnue.pt").exists() and not (tmp_path / "y.nnue.pt").exists()


def test_a_run_started_from_a_network_plays_its_first_games_with_it(tmp_path, capsys):
    """``--init`` without ``--relearn``: the run's first generation is played by that network, not the
    hand-crafted evaluator (other positions than the same seed's run from scratch), its settings record the
    network, and it resumes only with it."""
    args = ["tic_tac_toe", "--preset", "smoke", "--seed", "4", "--generations", "1"]
    assert nnue.main([*args, "--run-dir", str(tmp_path / "scratch"), *LEARN_ONLY]) == 0
    start = str(tmp_path / "scratch" / "latest.nnue.pt")
    capsys.readouterr()
    assert nnue.main([*args, "--run-dir", str(tmp_path / "on"), "--init", start]) == 0
    assert "score_vs_hand_crafted" in capsys.readouterr().out  # each generation measured (eval_games)
    game = rlgames.load_game("tic_tac_toe")
    scratch = nnue_data.load_window(tmp_path / "scratch" / "window.npz", game)[0]
    on = nnue_data.load_window(tmp_path / "on" / "window.npz", game)[0]
    assert scratch.observations.tobytes() != on.observations.tobytes()
    assert load_checkpoint(tmp_path / "on" / "latest.nnue.pt").config["init"] == start
    further = [*args[:-1], "2", "--run-dir", str(tmp_path / "on"), "--resume"]
    assert nnue.main(further) == 2
    assert "was trained with other settings" in capsys.readouterr().err
    assert nnue.main([*further, "--init", start]) == 0


def test_relearning_several_runs_learns_their_generations_together(tmp_path):
    game = rlgames.load_game("tic_tac_toe")
    for seed in ("6", "7"):
        assert (
            nnue.main(
                [
                    "tic_tac_toe",
                    "--preset",
                    "smoke",
                    "--seed",
                    seed,
                    "--generations",
                    "1",
                    *LEARN_ONLY,
                    "--run-dir",
                    str(tmp_path / seed),
                ]
            )
            == 0
        )
    args = ["tic_tac_toe", "--preset", "smoke", "--generations", "1", "--out", str(tmp_path / "both.nnue.pt")]
    assert nnue.main([*args, "--relearn", str(tmp_path / "6"), str(tmp_path / "7")]) == 0
    [a], [b] = (nnue_data.load_window(tmp_path / seed / "window.npz", game) for seed in ("6", "7"))
    config = nnue.make_config(nnue.parse_args(args))
    together = nnue.relearn(game, config, [nnue_data.Positions.concatenate([a, b])], echo=lambda _: None)
    assert all(torch.equal(together.state_dict()[k], v) for k, v in weights(tmp_path / "both.nnue.pt").items())
    alone = nnue.relearn(game, config, [a], echo=lambda _: None)
    assert not all(torch.equal(alone.state_dict()[k], v) for k, v in weights(tmp_path / "both.nnue.pt").items())


def test_held_out_games_are_not_learnt_and_measure_the_network():
    game = rlgames.load_game("tic_tac_toe")
    config = nnue.NNUEConfig(games=6, depth=2, random_plies=2, epochs=2, accumulator=8, hidden=4)
    data = play(game, config)
    learnt, held = nnue.held_out(data, 0.25)
    assert len(held) == round(0.25 * len(data)) > 0 and len(learnt) + len(held) == len(data)
    assert (held.observations == data.observations[len(learnt) :]).all()  # the last games' positions

    def learnt_from(window, holdout):
        network, optimizer = nnue.new_network(game, dataclasses.replace(config, holdout=holdout))
        losses = nnue.learn_generation(
            network, optimizer, game, window, dataclasses.replace(config, holdout=holdout), 0
        )
        return network, losses

    with_holdout, losses = learnt_from([data], 0.25)
    without, plain = learnt_from([learnt], 0.0)
    assert all(torch.equal(with_holdout.state_dict()[k], v) for k, v in without.state_dict().items())
    assert "loss/value_holdout" not in plain
    assert losses["loss/value_holdout"] == pytest.approx(nnue.value_loss(without, held, config.lam))
    assert losses["loss/value_holdout"] > 0


def test_learning_with_no_policy_loss_skips_the_policy_head_and_learns_the_same_values(monkeypatch):
    game = rlgames.load_game("tic_tac_toe")
    config = nnue.NNUEConfig(games=4, depth=2, random_plies=2, epochs=2, accumulator=8, hidden=4, policy_weight=0.0)
    data = play(game, config)

    def learnt():
        network, optimizer = nnue.new_network(game, config)
        losses = nnue.learn(network, optimizer, data, config, torch.Generator().manual_seed(0))
        return network, losses

    fast, losses = learnt()
    assert set(losses) == {"loss/value"}
    monkeypatch.setattr(type(fast), "value_only", lambda net, x, active: net(x)[1])  # the whole network's value
    whole, _ = learnt()
    assert all(torch.equal(whole.state_dict()[k], v) for k, v in fast.state_dict().items())


def test_chess_positions_with_threat_inputs_are_relearnt_only_by_a_network_that_reads_them(tmp_path, capsys):
    """Reading the threats, self-play stores each position's threat inputs after its pieces (the same games:
    the hand-crafted evaluator plays them), `--relearn` learns a network that reads them, and refuses
    them to a network that does not, in one line naming the setting (and the converse)."""
    import numpy as np

    game = rlgames.load_game("chess")
    config = dataclasses.replace(nnue.PRESETS["chess"], depth=1, inputs=("pieces", "threats"))
    player = load_evaluator("heuristic", game)
    with_threats = nnue_data.play_games(game, player, None, config, (1, 0), range(2))
    plain = nnue_data.play_games(game, player, None, dataclasses.replace(config, inputs=("pieces",)), (1, 0), range(2))
    np.testing.assert_array_equal(with_threats.values, plain.values)
    assert (with_threats.observations >= 768).any() and (plain.observations < 768).all()
    for name, positions in (("threats", with_threats), ("plain", plain)):
        (tmp_path / name).mkdir()
        nnue_data.save_window(tmp_path / name / "window.npz", [positions])
    args = ["chess", "--generations", "1", "--set", "epochs=1", "--set", "accumulator=8"]  # the preset reads them
    assert (
        nnue.main(
            [
                *args,
                "--set",
                'inputs=["pieces"]',
                "--out",
                str(tmp_path / "a.nnue.pt"),
                "--relearn",
                str(tmp_path / "threats"),
            ]
        )
        == 2
    )
    assert (
        "holds positions with the inputs of pieces+threats; the network reads pieces: relearn them with "
        '--set \'inputs=["pieces","threats"]\'' in capsys.readouterr().err
    )
    assert nnue.main([*args, "--out", str(tmp_path / "b.nnue.pt"), "--relearn", str(tmp_path / "plain")]) == 2
    assert "--set 'inputs=[\"pieces\"]'" in capsys.readouterr().err
    assert nnue.main([*args, "--out", str(tmp_path / "d.nnue.pt"), "--relearn", str(tmp_path / "threats")]) == 2
    assert (
        "the network reads pieces+threats+positional: relearn them with "
        '--set \'inputs=["pieces","threats"]\'' in capsys.readouterr().err
    )  # the preset reads positional too
    assert (
        nnue.main(
            [
                *args,
                "--set",
                'inputs=["pieces", "threats"]',
                "--out",
                str(tmp_path / "c.nnue.pt"),
                "--relearn",
                str(tmp_path / "threats"),
            ]
        )
        == 0
    )
    assert load_checkpoint(tmp_path / "c.nnue.pt").network.observation_shape == (768 + 1280,)


def test_a_network_grows_into_one_reading_more_inputs(tmp_path):
    """``--init`` of a network that reads fewer feature sets (chess: pieces and threats) into settings that
    read more (the positional inputs too): the same weights, the new inputs' rows zero, so the same values
    on the same positions; the other way is refused."""
    import numpy as np
    from rlgames.models.checkpoint import save_checkpoint
    from rlgames.models.evaluator import network_inputs

    game = rlgames.load_game("chess")
    small = build_network(game, "nnue", seed=3, accumulator=8, hidden=4, psqt=1, inputs=("pieces", "threats"))
    save_checkpoint(tmp_path / "small.nnue.pt", network=small, game=game)
    config = dataclasses.replace(
        nnue.PRESETS["chess"], accumulator=8, hidden=4, inputs=("pieces", "threats", "positional")
    )
    grown = initial_network(str(tmp_path / "small.nnue.pt"), game, config)
    assert grown.config.args.inputs == ("pieces", "threats", "positional") and grown.accumulator.weight.shape == (
        9,
        768 + 1280 + 448,
    )
    assert not grown.accumulator.weight[:, 2048:].any()
    states = [game.new_initial_state()]
    rng = np.random.default_rng(2)
    while len(states) < 10:
        states.append(states[-1].apply(int(rng.choice(states[-1].legal_actions()))))
    with torch.no_grad():
        before = small.value_only(
            torch.from_numpy(network_inputs(game, "nnue", states, inputs=("pieces", "threats"))), active=False
        )
        after = grown.value_only(
            torch.from_numpy(network_inputs(game, "nnue", states, inputs=("pieces", "threats", "positional"))),
            active=False,
        )
    torch.testing.assert_close(before, after)
    save_checkpoint(tmp_path / "grown.nnue.pt", network=grown, game=game)
    with pytest.raises(
        ValueError,
        match="inputs=pieces\\+threats\\+positional\\); the settings ask for nnue\\(.*inputs=pieces\\+threats\\)",
    ):
        initial_network(
            str(tmp_path / "grown.nnue.pt"), game, dataclasses.replace(config, inputs=("pieces", "threats"))
        )


@pytest.mark.parametrize("config_class", [nnue.NNUEConfig, td.TDConfig, TrainConfig])
def test_every_trainer_setting_has_a_docstring_in_help(config_class, capsys):
    """Each field of a trainer's config (and of its nested tables) carries a one-line docstring, which its
    --help lists with the default."""
    help_text = settings_help(config_class)
    for cls, prefix in [(config_class, "")] + [
        (type(getattr(config_class(), f.name)), f"{f.name}.")
        for f in dataclasses.fields(config_class)
        if dataclasses.is_dataclass(getattr(config_class(), f.name))
    ]:
        docs = field_docs(cls)
        assert list(docs) == [f.name for f in dataclasses.fields(cls)] and all(docs.values()), cls
        assert all(
            f"  {prefix}{name} = " in help_text for name in docs if not dataclasses.is_dataclass(getattr(cls(), name))
        )
