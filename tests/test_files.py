"""`rlgames.files.atomic_write`: a file holds its old or its complete new content, never half of one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rlgames.files import atomic_write


def test_atomic_write_replaces_the_file_and_creates_its_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "data.bin"
    with atomic_write(path) as handle:
        handle.write(b"first")
        assert not path.exists()  # nothing under the name until the block ends
    assert path.read_bytes() == b"first"
    with atomic_write(str(path)) as handle:
        handle.write(b"second, longer")
    assert path.read_bytes() == b"second, longer"
    assert os.listdir(path.parent) == ["data.bin"]


def test_atomic_write_gives_the_permissions_open_gives(tmp_path: Path) -> None:
    with atomic_write(tmp_path / "atomic") as handle:
        handle.write(b"x")
    (tmp_path / "plain").write_bytes(b"x")
    assert (tmp_path / "atomic").stat().st_mode == (tmp_path / "plain").stat().st_mode


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_a_failure_mid_write_keeps_the_old_content_and_no_temporary(tmp_path: Path, error: BaseException) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"old content")
    with pytest.raises(type(error)):
        with atomic_write(path) as handle:
            handle.write(b"half of the new")
            raise error
    assert path.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["data.bin"]


def test_a_failure_on_a_new_file_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bad data"):
        with atomic_write(tmp_path / "sub" / "new.bin") as handle:
            handle.write(b"partial")
            raise ValueError("bad data")
    assert os.listdir(tmp_path / "sub") == []
