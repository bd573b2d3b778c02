"""Atomic file writes: a reader never sees a half-written file, and a failed write leaves no trace.

Writes go to a temporary file in the target's folder that is renamed over the target. With
``durable=True`` the data is also flushed to disk before the rename, so even a power loss
cannot leave the target empty: used when the write replaces the user's own model
(``fix --in-place``). Other writes skip the flush, which costs a large share of writing a
100 MB model (see bench/bench_fix.py).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: "str | os.PathLike[str]", data: bytes, *, durable: bool = False) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: "str | os.PathLike[str]", text: str, *, durable: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)
