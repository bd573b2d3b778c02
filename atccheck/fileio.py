"""Atomic file writes: a reader never sees a half-written file, and a failed write leaves no trace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: "str | os.PathLike[str]", data: bytes) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: "str | os.PathLike[str]", text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
