"""How `atccheck atc-cmd --lint-file` scales with the length of the script.

Lints scripts of N and 2N atc command lines (every line a different mix of valid, glued,
unknown and misspelled flags, so every line has findings), one atc command continued with
backslashes over N and 2N such lines, and a single command with an --input_shape of N and 2N
entries, in-process, and prints the time of each and the ratio 2N / N: about 2 when linting
is linear in the script, about 4 when it is quadratic.

    .venv/bin/python bench/bench_lint.py [--lines 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
MODEL = PROJECT / "models" / "convnet_clean.onnx"

WORDS = ["--framework=5", "--model=convnet_clean.onnx", "--output=out", "--soc_version=Ascend310P3",
         "--soc_version=ascend310p3", "--input_shape=input:1,3,32,32", "--input_format=NHWC", "-framework=5",
         "--framwork=5", "--bogus", "<model>", "--precision_mode=force_fp32", "--dynamic_batch_size=1,2",
         "--log=debug", "--out_nodes=a:0", "$MODEL"]


def script(lines: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "\n".join("atc " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12)))
                     for _ in range(lines)) + "\n"


def continued(lines: int, seed: int = 0) -> str:
    """One atc command continued with a backslash over ``lines`` lines of the same mix of words."""
    rng = random.Random(seed)
    body = [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12))) for _ in range(lines)]
    return "atc " + " \\\n  ".join(body) + "\n"


def long_shape(entries: int) -> str:
    shape = ";".join(f"in{i}:1,3" for i in range(entries))
    return f'atc --framework=5 --model=convnet_clean.onnx --soc_version=Ascend310P3 --input_shape="{shape}"\n'


def timed(text: str, model, repeats: int) -> float:
    from atccheck.atc.lint import lint_command

    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        lint_command(text, model, model_path=str(MODEL), soc=None, cann="8.0")
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    import onnx

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    model = onnx.load(str(MODEL))
    timed(script(10), model, 1)  # warm-up: tables read, regexes compiled
    n = args.lines
    print(f"atc-cmd --lint-file scaling (medians of {args.repeats})")
    for label, make in (("script lines", script), ("continued lines", continued),
                        ("--input_shape entries", long_shape)):
        small, large = timed(make(n), model, args.repeats), timed(make(2 * n), model, args.repeats)
        print(f"  {label:22} {n:>6}: {small * 1000:8.1f} ms   {2 * n:>6}: {large * 1000:8.1f} ms   "
              f"ratio {large / small:.2f}  (2 = linear, 4 = quadratic)")


if __name__ == "__main__":
    main()
