#!/usr/bin/env python3
"""The precision preflight: its cost next to one onnxruntime run, and what it finds on real models.

Usage::

    .venv/bin/python bench/bench_numerics.py [--repeats 5] [--only cost,real] [--soc Ascend310P3,Ascend910B1]

1. **Cost** (per model, in one interpreter, alternating, median of ``--repeats`` rounds after one
   unmeasured round): ``check`` alone; ``check --numerics`` without the keep-list search (what a
   finding costs); ``check --numerics`` with it; and one onnxruntime run of the same model on the
   same inputs (a session made from the model's bytes plus one run, with onnxruntime's default
   options, as a user runs a model once). Printed: the added time of ``--numerics`` (numerics minus
   check) over the one run (**goal: at most 3x**), and the keep-list search on top.
2. **Real models**: every model of ``../shared/models`` and ``models/`` under force_fp16 on each
   ``--soc``: whether it is flagged, each output's relative error and cosine, the keep list and
   whether it restores the outputs, and the bfloat16 alternative.

The models of section 1 are the hazard models of the tests (built here with the same recipes)
and the real models, so the figures cover small graphs, where session set-up dominates, and the
largest real model at hand.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

SHARED_MODELS = REPO.parent / "shared" / "models"
SAMPLE_MODELS = REPO / "models"


def real_models() -> list[Path]:
    found = sorted(SHARED_MODELS.glob("*.onnx")) + sorted(SAMPLE_MODELS.glob("*.onnx"))
    return [p for p in found if p.is_file()]


def built_models(out: Path) -> list[Path]:
    import onnx

    import precision_models as recipes

    out.mkdir(parents=True, exist_ok=True)
    made = []
    for name, model in (("layernorm_gain1000", recipes.layernorm_after_gain(1000.0)),
                        ("attention_scores", recipes.attention_scores()),
                        ("long_reduce_sum", recipes.long_reduce_sum()),
                        ("cancellation", recipes.cancellation()),
                        ("conv_block", recipes.conv_block())):
        path = out / f"{name}.onnx"
        onnx.save(model, str(path))
        made.append(path)
    return made


def one_ort_run(path: Path, feeds: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one onnxruntime session made from the file's bytes and one run. The
    threads are set as the simulation sets them (two, not spinning), graph optimizations are
    onnxruntime's default, as a user runs a model."""
    import onnxruntime as ort

    started, cpu = time.perf_counter(), time.process_time()
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 2
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(path.read_bytes(), options, providers=["CPUExecutionProvider"])
    session.run(None, feeds)
    return time.perf_counter() - started, time.process_time() - cpu


def feeds_for(path: Path) -> dict | None:
    from atccheck.fixing.inputs import make_inputs
    from atccheck.fixing.runtime import RunError
    from atccheck.model.loading import load_model
    from atccheck.precision.preflight import planned_dims

    model = load_model(path).model
    try:
        return make_inputs(model, planned_dims(model, {})).sets[0]
    except RunError:
        return None


def timed(func) -> tuple[float, float]:
    """(wall, CPU) seconds; CPU time (all threads of this process) moves less with the machine's load."""
    started, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - started, time.process_time() - cpu


def cost(paths: list[Path], soc: str, repeats: int) -> None:
    import atccheck
    from atccheck.precision.preflight import NumericsRequest

    print(f"\n## 1. Cost of --numerics next to one onnxruntime run ({soc}, force_fp16, median of {repeats})\n")
    print("CPU seconds (wall in parentheses); ratio = (check --numerics - check) / one ORT run, on CPU time.\n")
    print("| model | nodes | check | check --numerics (finding) | + keep search | one ORT run | "
          "ratio (goal <= 3x) | search adds |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for path in paths:
        feeds = feeds_for(path)
        if feeds is None:
            continue
        try:
            first = atccheck.check(str(path), soc=soc, numerics=NumericsRequest(search=False))
        except Exception as exc:  # a model check refuses
            print(f"| {path.name} | refused: {exc} |")
            continue
        if first.numerics is None or first.numerics.error:
            continue
        rounds: dict[str, list[tuple[float, float]]] = {"check": [], "numerics": [], "search": [], "ort": []}
        atccheck.check(str(path), soc=soc, numerics=True)
        one_ort_run(path, feeds)
        for _ in range(repeats):
            name = str(path)
            rounds["check"].append(timed(lambda: atccheck.check(name, soc=soc)))  # noqa: B023
            rounds["numerics"].append(timed(lambda: atccheck.check(name, soc=soc,  # noqa: B023
                                                                   numerics=NumericsRequest(search=False))))
            rounds["search"].append(timed(lambda: atccheck.check(name, soc=soc, numerics=True)))  # noqa: B023
            rounds["ort"].append(one_ort_run(path, feeds))
        wall = {k: statistics.median(w for w, _ in v) for k, v in rounds.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in rounds.items()}
        ratio = (cpu["numerics"] - cpu["check"]) / cpu["ort"]
        ratios.append(ratio)
        extra = cpu["search"] - cpu["numerics"]

        def ms(key: str, cpu: dict = cpu, wall: dict = wall) -> str:
            return f"{cpu[key] * 1000:.0f} ms ({wall[key] * 1000:.0f})"

        print(f"| {path.name} | {first.node_count} | {ms('check')} | {ms('numerics')} | {ms('search')} | {ms('ort')} | "
              f"{ratio:.2f}x | {extra * 1000:+.0f} ms |")
    if ratios:
        print(f"\nmedian ratio {statistics.median(ratios):.2f}x over {len(ratios)} models")


def real(paths: list[Path], socs: list[str]) -> None:
    import atccheck

    print("\n## 2. Real models under force_fp16\n")
    print("| model | soc | lowered | outputs (relative error, cosine) | findings | keep list | restored | bf16 alternative |")
    print("|---|---|---|---|---|---|---|---|")
    flagged = restored = ran = 0
    for path in paths:
        for soc in socs:
            try:
                report = atccheck.check(str(path), soc=soc, numerics=True)
            except Exception as exc:
                print(f"| {path.name} | {soc} | refused: {str(exc)[:80]} | | | | | |")
                continue
            result = report.numerics
            if result is None or result.error:
                print(f"| {path.name} | {soc} | not run: {(result.error if result else '')[:90]} | | | | | |")
                continue
            ran += 1
            outs = "; ".join(f"{e.name}: {e.describe()}" for e in result.before[:3])
            if len(result.before) > 3:
                outs += f" (+{len(result.before) - 3})"
            found = [f"{f.name}@{f.location.node}" for f in report.findings if f.name.startswith("float16-")]
            keep = result.keep
            if found:
                flagged += 1
                restored += bool(keep and keep.restored)
            alt = result.alternative
            print(f"| {path.name} | {soc} | {result.lowered}/{result.nodes} | {outs} | {', '.join(found) or '-'} | "
                  f"{', '.join(keep.nodes) if keep else '-'} | {('yes' if keep.restored else 'no') if keep else '-'} | "
                  f"{(alt.mode + (' ok' if alt.ok else ' fails')) if alt else '-'} |")
    print(f"\n{ran} model x chip runs; {flagged} flagged; the keep list restores {restored} of them.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="cost,real")
    parser.add_argument("--soc", default="Ascend310P3,Ascend910B1")
    args = parser.parse_args(argv)
    socs = args.soc.split(",")
    parts = set(args.only.split(","))
    models = real_models()
    if "cost" in parts:
        cost(built_models(HERE / "out" / "numerics") + models, socs[0], args.repeats)
    if "real" in parts:
        real(models, socs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
