"""The arithmetic of a network's forwards and backwards: float32, or bfloat16 under torch's autocast.

bfloat16 keeps float32's exponent range with an 8-bit mantissa, so a network's weights stay float32 (the
optimizer's updates are not lost to rounding) and autocast runs the convolutions and matrix products in
bfloat16, where the hardware multiplies it natively: Intel's AMX tiles (Sapphire Rapids and later), the
AVX-512 BF16 instructions (Cooper Lake, AMD Zen 4), and CUDA GPUs from Ampere on. Elsewhere bfloat16 is
emulated and slower than float32, which is what ``"auto"`` (`settle`) avoids. Self-play's search needs
values and priors to a few decimals, far coarser than bfloat16's rounding (about 0.4% of a value);
`benchmarks/bench_precision.py` times the two on the machine at hand.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

PRECISIONS = ("float32", "bfloat16")
"""The arithmetics a network runs in."""


def native_bfloat16(device_type: str) -> bool:
    """Whether ``device_type``'s hardware multiplies bfloat16 natively (on the CPU: AMX or AVX-512 BF16,
    as torch's CPU capability checks report them)."""
    if device_type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    cpu = torch.cpu
    checks = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")  # private in torch: absent means no
    return any(getattr(cpu, check, lambda: False)() for check in checks)


def settle(precision: str, device_type: str) -> str:
    """``precision`` with ``"auto"`` settled: bfloat16 where ``device_type`` multiplies it natively, else
    float32. Raises ValueError for a name that is neither ``"auto"`` nor one of `PRECISIONS`."""
    check(precision, allow_auto=True)
    if precision != "auto":
        return precision
    return "bfloat16" if native_bfloat16(device_type) else "float32"


def check(precision: str, *, allow_auto: bool = False) -> None:
    """Raises ValueError unless ``precision`` names an arithmetic (or, with ``allow_auto``, is ``"auto"``)."""
    names = (*PRECISIONS, "auto") if allow_auto else PRECISIONS
    if precision not in names:
        raise ValueError(f"precision must be one of {', '.join(names)}, got {precision!r}")


@contextlib.contextmanager
def autocast(precision: str, device: torch.device) -> Iterator[None]:
    """The context a forward (and its backward) runs in: torch's bfloat16 autocast, or nothing for float32.
    Outputs of autocast regions may be bfloat16: cast them before losses and softmaxes."""
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bfloat16"):
        yield
