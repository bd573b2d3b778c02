"""Whether ``atccheck fix`` fits in the memory this machine has: said before the run, not after it dies.

What fix holds at its peak is one onnxruntime session of the model (its weights, whether they
sit in the file or in external data files) plus, for weights inside the file, the parsed model
and the models the passes make of it. :func:`needed_bytes` estimates that from the factors
measured in ``bench/bench_fix_large.py`` (external weights) and ``bench/bench_fix.py`` (weights
in the file); :func:`shortfall` compares it with what the kernel says is available.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.model.loading import LoadedModel

# Peak resident set per byte of weights kept in external data files (one onnxruntime session
# holds them; the graph the passes rewrite holds none): measured 1.09 with the base on a 4.4 GB LLM.
EXTERNAL_FACTOR = 1.25
# Per byte of a model file with its weights inside: the parsed model, the one each pass makes
# of it, onnxsim's copies, the serialization onnxruntime gets and its sessions. Measured 8-10 on
# bench_fix.py's ResNet-50 with a Resize neck (1191 MiB peak for 98 MiB, less a base of 250-400
# MiB); the lower end, so that only a run clearly beyond the memory is refused.
INLINE_FACTOR = 8.0
# The interpreter, onnx, onnxruntime and the tables.
BASE_BYTES = 400 * 2**20

MEMINFO = Path("/proc/meminfo")
CGROUP = Path("/sys/fs/cgroup")


def needed_bytes(loaded: "LoadedModel") -> int:
    """About how much memory a fix of this model takes at its peak."""
    inline = loaded.file_size if loaded.file_size is not None else 0
    return int(EXTERNAL_FACTOR * loaded.external_bytes + INLINE_FACTOR * inline + BASE_BYTES)


def available_bytes(meminfo: Path = MEMINFO, cgroup: Path = CGROUP) -> int | None:
    """What the kernel says can be allocated without swapping (MemAvailable, within the cgroup's
    limit when there is one), or None where it does not say."""
    available = None
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError, IndexError):
        return None
    try:
        limit = (cgroup / "memory.max").read_text().strip()
        used = int((cgroup / "memory.current").read_text().strip())
        if limit.isdigit() and available is not None:
            available = min(available, int(limit) - used)
    except (OSError, ValueError):
        pass
    return available


def shortfall(loaded: "LoadedModel", available: int | None = None) -> str | None:
    """One line saying the machine lacks the memory this fix needs, or None when it has it (or cannot tell)."""
    free = available if available is not None else available_bytes()
    if free is None:
        return None
    need = needed_bytes(loaded)
    if need <= free:
        return None
    weights = loaded.external_bytes + (loaded.file_size or 0)
    return (f"fix needs about {need / 2**30:.1f} GiB of memory for this model ({weights / 2**30:.1f} GiB of weights, "
            f"which onnxruntime holds while it verifies and loads the result), and {max(free, 0) / 2**30:.1f} GiB are "
            "available; free memory or run it on a machine with more")
