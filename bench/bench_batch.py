"""Directory mode: wall time of ``atccheck check FOLDER -j N`` for several N.

    python bench/bench_batch.py [--copies 8] [--jobs 1,2,4] [--soc Ascend310P3] [--repeats 3]

Two folders:

1. ``bench/out/batch/``: ``--copies`` hard links to the ResNet-50-sized model that
   ``bench_check.py`` generates (~100 MB each, one copy on disk), so every model costs the same.
2. ``../shared/models/`` when present: nine small real models (28 KiB to 4.6 MiB).

For each folder and each N, the median wall time of the whole command (interpreter start,
imports, worker start-up, rendering) over ``--repeats`` runs. Worker processes are started
with ``spawn`` and import atccheck, numpy and onnx's two leaf modules themselves (not the onnx
package: see ``atccheck/model/onnxpb.py``), a fixed cost per worker that small models do not
pay back. CPU time (the command plus its workers) is printed beside wall
time: on a machine shared with other work it is the steadier figure. Also prints one model x two chips against one chip, to show
what the matrix costs on top of one load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
SHARED_MODELS = HERE.parent.parent / "shared" / "models"


def atccheck(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its worker processes)."""
    code = "import sys; from atccheck.cli.main import main; sys.argv[0] = 'atccheck'; main()"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in (0, 1):
        raise SystemExit(f"atccheck {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def median_time(args: list[str], repeats: int) -> tuple[float, float]:
    runs = [atccheck(args) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def copies_folder(copies: int) -> Path:
    sys.path.insert(0, str(HERE))
    try:
        from bench_check import resnet50
    except ImportError:
        raise SystemExit("bench/bench_check.py (the ResNet-50 generator) is missing") from None

    source = OUT / "resnet50.onnx"
    if not source.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        resnet50(source)
    folder = OUT / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.onnx"):
        old.unlink()
    for i in range(copies):
        os.link(source, folder / f"resnet50_{i:02d}.onnx")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--jobs", default="1,2,4")
    parser.add_argument("--soc", default="Ascend310P3")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    folders = [("resnet50 copies", copies_folder(args.copies))]
    if SHARED_MODELS.is_dir():
        folders.append(("shared/models", SHARED_MODELS))
    print(f"CPUs: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.1f}")
    for label, folder in folders:
        count = len(list(folder.glob("*.onnx")))
        print(f"\n{label}: {count} models")
        base = None
        for j in jobs:
            wall, cpu = median_time(["check", str(folder), "--soc", args.soc, "-j", str(j), "--format", "json",
                                     "-o", os.devnull, "--no-config"], args.repeats)
            base = base or wall
            print(f"  -j {j}: wall {wall:6.2f} s ({base / wall:4.2f}x of -j {jobs[0]}), CPU {cpu:6.2f} s")
    model = str(next(folders[0][1].glob("*.onnx")))
    one, _ = median_time(["check", model, "--soc", args.soc, "--format", "json", "-o", os.devnull, "--no-config"], args.repeats)
    two, _ = median_time(["check", model, "--soc", args.soc, "--soc", "Ascend910B3", "--format", "json", "-o", os.devnull,
                       "--no-config"], args.repeats)
    print(f"\none model, one chip: {one:.2f} s; two chips: {two:.2f} s (+{two - one:.2f} s for the second chip)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
