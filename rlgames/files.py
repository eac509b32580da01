"""Writing files so that a crash never leaves half of one: `atomic_write`."""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


@contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Yields a binary file that replaces ``path`` when the block ends without an exception.

    The file is a new temporary one beside ``path`` (missing parent directories are created), with the
    permissions ``open`` would give; on success it is flushed, fsynced and ``os.replace``d into ``path``;
    on any exception it is removed and the exception propagates. Either way ``path`` holds its previous
    content or the complete new one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
