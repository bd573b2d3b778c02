"""What gear options cost ``atccheck check``: every gear is checked as its own static model.

    python bench/bench_gears.py [--repeats 5] [--soc Ascend310P3]

On the ResNet-50-sized model of bench_check.py (generated into bench/out/ once), prints side by
side, from one run: the median in-process ``check`` time with a static ``--input-shape`` and
with ``--dynamic-batch`` of 2, 4 and 8 gears (-1 on the batch axis), each as a ratio to the
static time. One shape inference and one rule pass per gear: the ratio should stay near the
gear count (the model is loaded once).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_check import OUT, resnet50  # noqa: E402

GEARS = ("1,2", "1,2,4,8", "1,2,4,8,16,32,64,128")


def median_time(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--soc", default="Ascend310P3")
    args = parser.parse_args()

    from atccheck.api import check
    from atccheck.model.loading import load_model

    OUT.mkdir(exist_ok=True)
    path = OUT / "resnet50.onnx"
    if not path.exists():
        resnet50(path)
    loaded = load_model(path)
    check(loaded.model, args.soc)  # tables and imports warm
    static = median_time(lambda: check(loaded.model, args.soc, input_shapes="image:1,3,224,224"), args.repeats)
    print(f"model: {path.name}, {len(loaded.model.graph.node)} nodes, soc {args.soc}, median of {args.repeats}")
    print(f"{'static --input-shape':<34} {static * 1000:8.1f} ms   1.00x")
    for gears in GEARS:
        count = gears.count(",") + 1
        took = median_time(lambda gears=gears: check(loaded.model, args.soc, input_shapes="image:-1,3,224,224",
                                                     dynamic_batch=gears), args.repeats)
        print(f"{f'--dynamic-batch ({count} gears)':<34} {took * 1000:8.1f} ms {took / static:6.2f}x")


if __name__ == "__main__":
    main()
