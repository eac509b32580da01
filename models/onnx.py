"""A network exported to ONNX, the format that inference engines outside Python read (onnxruntime,
TensorRT, a browser): ``python -m rlgames.models.onnx CHECKPOINT OUT.onnx`` (the ``onnx`` extra).

The exported graph is the network's `forward`: inputs ``observation`` (float32, ``[B, *input shape]``: the
observation planes, or for an NNUE that reads feature sets their dense vector) and ``legal_mask`` (float32
``[B, A]``, 1 for a legal action), outputs ``logits`` (``[B, A]``, illegal actions at -1e9) and ``value``
(``[B]``, in [-1, 1] from the side to move); the batch size is free. `check_onnx` runs the file with
onnxruntime beside torch on the same inputs.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

from rlgames.models.checkpoint import CheckpointError, load_network
from rlgames.models.networks import PolicyValueNet


def export_onnx(checkpoint: str | Path, out: str | Path) -> Path:
    """Writes the network of ``checkpoint`` to ``out`` as ONNX; returns ``out``."""
    network, _ = load_network(checkpoint)
    observation, legal_mask = example_inputs(network, batch=2, seed=0)
    out = Path(out)
    batch = torch.export.Dim("batch", min=1)
    quiet = logging.getLogger("torch.onnx")  # its notes on optional packages (torchvision) and on its own
    level = quiet.level  # internals: nothing the caller can act on
    quiet.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (FutureWarning, UserWarning))
            torch.onnx.export(
                network,
                (torch.from_numpy(observation), torch.from_numpy(legal_mask)),
                str(out),
                input_names=["observation", "legal_mask"],
                output_names=["logits", "value"],
                dynamic_shapes=({0: batch}, {0: batch}),
                dynamo=True,
                verbose=False,
            )
    finally:
        quiet.setLevel(level)
    return out


def example_inputs(network: PolicyValueNet, *, batch: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A batch of inputs of ``network``'s shape: values in [0, 1], and legal masks with at least one
    legal action each."""
    rng = np.random.default_rng(seed)
    observation = rng.random((batch, *network.config.observation_shape)).astype(np.float32)
    legal_mask = (rng.random((batch, network.config.num_actions)) < 0.5).astype(np.float32)
    legal_mask[:, 0] = 1.0
    return observation, legal_mask


def check_onnx(network: PolicyValueNet, onnx_path: str | Path, *, batch: int = 16, seed: int = 1) -> float:
    """The largest difference between torch's and onnxruntime's outputs (logits of legal actions and values)
    on a batch of `example_inputs`."""
    import onnxruntime

    observation, legal_mask = example_inputs(network, batch=batch, seed=seed)
    with torch.no_grad():
        logits, value = network(torch.from_numpy(observation), torch.from_numpy(legal_mask))
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    onnx_logits, onnx_value = session.run(["logits", "value"], {"observation": observation, "legal_mask": legal_mask})
    legal = legal_mask == 1
    return float(
        max(np.abs(onnx_logits[legal] - logits.numpy()[legal]).max(), np.abs(onnx_value - value.numpy()).max())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlgames.models.onnx", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a checkpoint of rlgames.models (e.g. checkpoints/connect_four.pt)")
    parser.add_argument("out", help="the ONNX file to write")
    args = parser.parse_args(argv)
    try:
        path = export_onnx(args.checkpoint, args.out)
        difference = check_onnx(load_network(args.checkpoint)[0], path)
    except (CheckpointError, OSError, ValueError) as error:
        print(f"python -m rlgames.models.onnx: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}; onnxruntime agrees with torch to {difference:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
