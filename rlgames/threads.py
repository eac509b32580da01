"""One thread per process for the libraries that keep thread pools, so that results do not depend on the
environment's thread settings.

A sum split among threads is added in another order, and floating-point addition is not associative: a
network's output, and so a search value, a training label and a checkpoint, would change in the last bits
with ``OMP_NUM_THREADS`` or the number of cores. rlgames parallelises by processes instead
(`rlgames.parallel`), each single-threaded. `pin_threads` is called first by every command-line entry
point (``rlgames``, the trainers) and by every worker process: it sets the pools' variables to 1, which
the processes spawned later and the libraries imported later (torch is imported on first use) read when
their pools start, and sets torch's own pool where torch is already imported. An AlphaZero trainer may
still ask for more torch threads (``--threads``), giving up bit-identical runs for speed.
"""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")
"""The variables from which OpenMP (torch), MKL, OpenBLAS (numpy) and numba size their pools."""


def pin_threads() -> None:
    """Every pool of this process and of the processes it spawns to one thread (see the module's docstring)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
