"""Every shipped network exported to ONNX (`rlgames.models.onnx`) computes, under onnxruntime, what it
computes under torch, at any batch size; a bad checkpoint is one line and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from rlgames.models import load_network  # noqa: E402
from rlgames.models.onnx import check_onnx, export_onnx, main  # noqa: E402
from rlgames.records import load_manifest  # noqa: E402

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
SHIPPED = sorted(name for name in load_manifest(CHECKPOINTS / "manifest.json").files if name.endswith(".pt"))
"""The shipped networks (the manifest also lists learned rollout policies' weights, ``.npz``, not networks)."""


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_network_runs_the_same_under_onnxruntime(name, tmp_path):
    path = export_onnx(CHECKPOINTS / name, tmp_path / f"{name}.onnx")
    network, _ = load_network(CHECKPOINTS / name)
    assert check_onnx(network, path, batch=16) < 1e-4
    assert check_onnx(network, path, batch=1, seed=5) < 1e-4  # the batch size is free


def test_the_command_writes_the_file_or_says_what_is_wrong(tmp_path, capsys):
    assert main([str(CHECKPOINTS / "tic_tac_toe.pt"), str(tmp_path / "ttt.onnx")]) == 0
    assert (tmp_path / "ttt.onnx").stat().st_size > 0 and "onnxruntime agrees" in capsys.readouterr().out
    assert main([str(tmp_path / "missing.pt"), str(tmp_path / "x.onnx")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "missing.pt" in line
