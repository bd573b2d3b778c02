"""How long ``atccheck fix`` takes next to onnxsim alone on the same ResNet-50-sized model.

    python bench/bench_fix.py [--repeats 3] [--soc Ascend310P3] [--cann 8.0]

The model is bench_check.py's ResNet-50 (real topology, ~25.6M float32 parameters, ~100 MB,
BatchNormalization kept as nodes, opset 13), made the way exporters leave it: a dynamic batch
dim and PyTorch's ``x.view(x.size(0), -1)`` head (Shape -> Gather -> Unsqueeze -> Concat ->
Reshape) instead of Flatten. ``fix`` then has real work: make-inputs-static fixes the batch,
simplify folds the head and the BatchNormalizations, and both steps are verified (the first
structurally, the second with onnxruntime on the original and the result).

Measured side by side in this one interpreter (imports done and tables read before timing),
alternating runs, medians reported:

- onnxsim alone: ``onnx.load`` + ``onnxsim.simplify(model, overwrite_input_shapes=...)`` +
  ``onnx.save``, onnxsim's documented Python usage, to get a static, simplified model.
- fix: ``atccheck.fix(path, soc, output=...)``: load with weights, check, passes, verification,
  re-check, atomic write, atc command. Also ``fix(..., verify=False)`` for reference: what
  the two onnxruntime runs of verification cost.
- for reference, when the installed onnxsim offers it: ``onnxsim.simplify(path,
  output_path=...)``, which reads and writes the files in C++ and so skips serializing the
  model in Python. It is the fastest way to run onnxsim alone here; fix cannot take that route
  for its own simplify step (it hands onnxsim the model the earlier passes made).

Two exported models are measured (``--models``): ``view`` as above, where fix, folding the head at
the static batch, finds nothing left for simplify (make-inputs-static is its one pass), and
``upsample``, the same plus what detector necks write (``F.interpolate(x, size=skip.shape[-2:])``):
a Resize whose ``sizes`` come from Shape/Slice/Concat, which check flags (non-constant-input), so
fix runs onnxsim inside its pipeline too: the like-for-like comparison.

Goal: fix / onnxsim-alone at most 1.3 (wall time). The ratio is given two ways: of the medians,
and the median of the per-round ratios (each fix run over the onnxsim run just before it, which
cancels slow drifts in machine load), with their range. CPU time (user+sys of this process, all
threads) is printed too: the verification runs onnxruntime on a second thread, so fix's wall
time hides part of its CPU time on a machine with idle cores. ``--cli`` also times the two
commands a user types, ``onnxsim IN OUT --overwrite-input-shape ...`` and ``atccheck fix``,
interpreter start included.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import onnx
from onnx import helper, numpy_helper

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
GOAL = 1.3


def _bench_check():
    source = HERE / "bench_check.py"
    if not source.exists():
        raise SystemExit(f"bench_fix.py builds its model with {source}'s ResNet-50 generator, which is missing")
    spec = importlib.util.spec_from_file_location("bench_check", source)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def exported_resnet50(path: Path) -> Path:
    """bench_check's ResNet-50 with a dynamic batch and a view() head, as exporters write it."""
    if path.exists():
        return path
    static = _bench_check().resnet50(OUT / "resnet50_static.onnx")
    model = onnx.load(str(static))
    graph = model.graph
    graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    graph.output[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    flatten = next(n for n in graph.node if n.op_type == "Flatten")
    source, target = flatten.input[0], flatten.output[0]
    head = [
        helper.make_node("Shape", [source], ["head.shape"], name="head.shape"),
        helper.make_node("Gather", ["head.shape", "head.zero"], ["head.n"], name="head.gather", axis=0),
        helper.make_node("Unsqueeze", ["head.n", "head.axes"], ["head.n1"], name="head.unsqueeze"),
        helper.make_node("Concat", ["head.n1", "head.minus1"], ["head.dims"], name="head.concat", axis=0),
        helper.make_node("Reshape", [source, "head.dims"], [target], name="head.reshape"),
    ]
    nodes = []
    for node in graph.node:
        nodes.extend(head if node is flatten else [node])
    del graph.node[:]
    graph.node.extend(nodes)
    import numpy as np

    graph.initializer.extend([
        numpy_helper.from_array(np.array(0, np.int64), "head.zero"),
        numpy_helper.from_array(np.array([0], np.int64), "head.axes"),
        numpy_helper.from_array(np.array([-1], np.int64), "head.minus1"),
    ])
    path.write_bytes(model.SerializeToString())
    return path


def exported_upsample(path: Path) -> Path:
    """The view() model plus a neck-style Resize to the size of a skip tensor, read from its shape."""
    if path.exists():
        return path
    import numpy as np

    model = onnx.load(str(exported_resnet50(OUT / "resnet50_exported.onnx")))
    graph = model.graph
    pool = next(n for n in graph.node if n.op_type == "GlobalAveragePool")
    source = pool.input[0]
    neck = [
        helper.make_node("Shape", [source], ["neck.shape"], name="neck.shape"),
        helper.make_node("Slice", ["neck.shape", "neck.from", "neck.to"], ["neck.hw"], name="neck.slice"),
        helper.make_node("Shape", [source], ["neck.nshape"], name="neck.nshape"),
        helper.make_node("Slice", ["neck.nshape", "neck.zero", "neck.from"], ["neck.nc"], name="neck.nslice"),
        helper.make_node("Concat", ["neck.nc", "neck.hw"], ["neck.sizes"], name="neck.concat", axis=0),
        helper.make_node("Resize", [source, "", "", "neck.sizes"], ["neck.up"], name="neck.resize", mode="nearest"),
    ]
    pool.input[0] = "neck.up"
    nodes = []
    for node in graph.node:
        nodes.extend([*neck, node] if node is pool else [node])
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend([
        numpy_helper.from_array(np.array([0], np.int64), "neck.zero"),
        numpy_helper.from_array(np.array([2], np.int64), "neck.from"),
        numpy_helper.from_array(np.array([4], np.int64), "neck.to"),
    ])
    path.write_bytes(model.SerializeToString())
    return path


MODELS = {"view": ("resnet50_exported.onnx", exported_resnet50), "upsample": ("resnet50_upsample.onnx", exported_upsample)}


def input_shape(path: Path) -> dict[str, list[int]]:
    model = onnx.load(str(path), load_external_data=False)
    vi = model.graph.input[0]
    dims = [d.dim_value if d.HasField("dim_value") else 1 for d in vi.type.tensor_type.shape.dim]
    return {vi.name: dims}


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def run_onnxsim(path: Path, out: Path, shapes: dict[str, list[int]]) -> tuple[float, float]:
    import onnxsim

    start, start_cpu = time.perf_counter(), cpu()
    model = onnx.load(str(path))
    simplified, ok = onnxsim.simplify(model, overwrite_input_shapes=shapes, check_n=0, certify=False)
    onnx.save(simplified, str(out))
    assert ok
    return time.perf_counter() - start, cpu() - start_cpu


def onnxsim_takes_paths() -> bool:
    """Whether the installed onnxsim can simplify file to file (``simplify(path, output_path=...)``)."""
    import inspect

    import onnxsim

    return "output_path" in inspect.signature(onnxsim.simplify).parameters


def run_onnxsim_paths(path: Path, out: Path, shapes: dict[str, list[int]]) -> float:
    import onnxsim

    start = time.perf_counter()
    _, ok = onnxsim.simplify(str(path), overwrite_input_shapes=shapes, check_n=0, output_path=str(out))
    assert ok
    return time.perf_counter() - start


def run_clis(path: Path, shapes: dict[str, list[int]], soc: str, cann: str) -> tuple[float, float]:
    """Wall time of ``onnxsim IN OUT --overwrite-input-shape ...`` and of ``atccheck fix``, each a fresh process."""
    import subprocess

    bindir = Path(sys.executable).parent
    shape_args = [f"{name}:{','.join(map(str, dims))}" for name, dims in shapes.items()]
    commands = [
        [str(bindir / "onnxsim"), str(path), str(OUT / "resnet50.cli.sim.onnx"), "--overwrite-input-shape", *shape_args],
        [str(bindir / "atccheck"), "fix", str(path), "-o", str(OUT / "resnet50.cli.atc.onnx"), "--soc", soc,
         "--cann", cann],
    ]
    times = []
    for command in commands:
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times[0], times[1]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} (range {min(values):.2f}-{max(values):.2f})"


def run_fix(path: Path, out: Path, soc: str, cann: str, verify: bool = True):
    import atccheck

    start, start_cpu = time.perf_counter(), cpu()
    outcome = atccheck.fix(path, soc=soc, cann=cann, output=out, verify=verify)
    return time.perf_counter() - start, cpu() - start_cpu, outcome


def measure(path: Path, args: argparse.Namespace) -> None:
    """Time onnxsim alone and fix, alternating, on one model; print the ratios and what fix did."""
    shapes = input_shape(path)
    size_mb = path.stat().st_size / 2**20

    # warm up: imports, tables, onnxruntime and onnxsim initialisation
    import onnxruntime  # noqa: F401
    import onnxsim  # noqa: F401

    import atccheck
    from atccheck.tables import tables

    tables()
    atccheck.fix(path, soc=args.soc, cann=args.cann, output=OUT / "warmup.atc.onnx")

    paths_api = onnxsim_takes_paths()
    if paths_api:
        run_onnxsim_paths(path, OUT / "resnet50.sim_paths.onnx", shapes)  # warm up this route too
    sim_wall, sim_cpu, fix_wall, fix_cpu, nov_wall, nov_cpu, paths_wall = [], [], [], [], [], [], []
    cli_sim, cli_fix = [], []
    outcome = None
    for _ in range(args.repeats):
        w, c = run_onnxsim(path, OUT / "resnet50.sim.onnx", shapes)
        sim_wall.append(w)
        sim_cpu.append(c)
        w, c, outcome = run_fix(path, OUT / "resnet50.atc.onnx", args.soc, args.cann)
        fix_wall.append(w)
        fix_cpu.append(c)
        w, c, _ = run_fix(path, OUT / "resnet50.noverify.atc.onnx", args.soc, args.cann, verify=False)
        nov_wall.append(w)
        nov_cpu.append(c)
        if paths_api:
            paths_wall.append(run_onnxsim_paths(path, OUT / "resnet50.sim_paths.onnx", shapes))
        if args.cli:
            a, b = run_clis(path, shapes, args.soc, args.cann)
            cli_sim.append(a)
            cli_fix.append(b)
    assert outcome is not None

    sim_w, fix_w = statistics.median(sim_wall), statistics.median(fix_wall)
    sim_c, fix_c = statistics.median(sim_cpu), statistics.median(fix_cpu)
    ratio = fix_w / sim_w
    pairs = [f / s for f, s in zip(fix_wall, sim_wall)]
    print(f"model: {path.name}, {size_mb:.1f} MB, {outcome.before.node_count} nodes, inputs {shapes}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end; {args.repeats} runs each")
    print(f"onnxsim alone (load + simplify + save): wall {sim_w:.2f} s, cpu {sim_c:.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in sim_wall)})")
    print(f"atccheck fix:                            wall {fix_w:.2f} s, cpu {fix_c:.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in fix_wall)})")
    print(f"ratio fix / onnxsim (wall, of the medians): {ratio:.2f}  goal <= {GOAL}: "
          f"{'met' if ratio <= GOAL else 'NOT met'}")
    print(f"ratio fix / onnxsim (wall, median of the per-round ratios): {spread(pairs)}")
    print(f"ratio fix / onnxsim (cpu):  {fix_c / sim_c:.2f}")
    nov_w, nov_c = statistics.median(nov_wall), statistics.median(nov_cpu)
    print(f"for reference, fix --no-verify (onnx.checker only): wall {nov_w:.2f} s ({nov_w / sim_w:.2f}x), "
          f"cpu {nov_c:.2f} s ({nov_c / sim_c:.2f}x)")
    if paths_api:
        paths_w = statistics.median(paths_wall)
        print(f"for reference, onnxsim file to file (simplify(path, output_path=...)): wall {paths_w:.2f} s; "
              f"fix / that = {fix_w / paths_w:.2f}, fix --no-verify / that = {nov_w / paths_w:.2f}")
    if args.cli:
        print(f"commands (fresh processes): onnxsim {spread(cli_sim)} s, atccheck fix {spread(cli_fix)} s; "
              f"ratio {statistics.median(cli_fix) / statistics.median(cli_sim):.2f}")
    applied = [p.name for p in outcome.passes if p.status.value == "applied"]
    print(f"last fix run, per pass (simplify {'ran' if 'simplify' in applied else 'was not needed'}):")
    for p in outcome.passes:
        if p.status.value == "skipped":
            continue
        err = f", max abs err {p.max_abs_error:.3g}" if p.max_abs_error is not None else ""
        print(f"  {p.status.value:<9} {p.name:<20} {p.seconds or 0:.2f} s, {p.nodes_before} -> {p.nodes_after} nodes, "
              f"{p.verification}{err}")
    print(f"  verification: {outcome.verification.status}, max abs error against the original "
          f"{outcome.verification.max_abs_error}")
    print(f"  after: {outcome.after.counts()}, {outcome.after.node_count} nodes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--soc", default="Ascend310P3")
    parser.add_argument("--cann", default="8.0")
    parser.add_argument("--cli", action="store_true", help="also time the onnxsim and atccheck fix commands")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    args = parser.parse_args(argv)

    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.models.split(","):
        filename, build = MODELS[name.strip()]
        measure(build(OUT / filename), args)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
