"""How fast and how lean ``atccheck check`` is, measured against a bare ``onnx.load``.

    python bench/bench_check.py [--repeats 11] [--soc Ascend310P3] [--cann 8.0]

Prints, from one run, side by side:

1. Time. A ResNet-50-sized model (real topology: 7x7 stem, bottleneck stages 3-4-6-3,
   ~25.6M float32 parameters in one ~100 MB file, opset 13) is generated into bench/out/.
   In-process: the median ``check`` time divided by the median
   ``onnx.load(path, load_external_data=False)`` time of the same file, both in this
   interpreter with every module imported and the tables read once before timing, the two
   calls alternating (goal: at most 1.5). Also the wall time of the ``atccheck check`` command and of a
   ``python -c 'import onnx; onnx.load(...)'`` process, imports included.
2. Memory. A graph whose initializers are external-data records (more than 2 GiB) pointing
   at a sparse file made with truncate, so no byte of it is ever written or needs reading.
   Peak RSS (``ru_maxrss`` of RUSAGE_CHILDREN, each command in its own wrapper process) of
   ``atccheck check`` (goal: under 300 MB) next to a bare ``onnx.load`` of the same file.

Generated files go to bench/out/ (git-ignored) and are reused by later runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TIME_GOAL = 1.5
RSS_GOAL_MB = 300
BIG_LAYERS = 9  # 9 x 8192 x 8192 float32 = 2.25 GiB of external data
BIG_WIDTH = 8192


# --------------------------------------------------------------------------- models


def resnet50(path: Path) -> Path:
    """torchvision-style ResNet-50 (BatchNormalization kept as nodes), seeded random weights."""
    rng = np.random.default_rng(50)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def weight(name: str, shape: tuple[int, ...]) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        array = rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        inits.append(numpy_helper.from_array(array, name))
        return name

    def conv_bn(x: str, name: str, c_in: int, c_out: int, k: int, stride: int, relu: bool) -> str:
        y = f"{name}.conv"
        nodes.append(helper.make_node(
            "Conv", [x, weight(f"{name}.weight", (c_out, c_in, k, k))], [y], name=y,
            kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4,
        ))
        bn = [f"{name}.bn.{p}" for p in ("scale", "bias", "mean", "var")]
        for p, value in zip(bn, (np.ones(c_out), np.zeros(c_out), np.zeros(c_out), np.ones(c_out))):
            inits.append(numpy_helper.from_array(value.astype(np.float32), p))
        out = f"{name}.bn"
        nodes.append(helper.make_node("BatchNormalization", [y, *bn], [out], name=out, epsilon=1e-5))
        if relu:
            nodes.append(helper.make_node("Relu", [out], [f"{name}.relu"], name=f"{name}.relu"))
            out = f"{name}.relu"
        return out

    x = conv_bn("image", "stem", 3, 64, 7, 2, relu=True)
    nodes.append(helper.make_node("MaxPool", [x], ["stem.pool"], name="stem.pool", kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    x, c_in = "stem.pool", 64
    for stage, (blocks, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512)), start=1):
        for block in range(blocks):
            name = f"layer{stage}.{block}"
            stride = 2 if block == 0 and stage > 1 else 1
            y = conv_bn(x, f"{name}.conv1", c_in, width, 1, 1, relu=True)
            y = conv_bn(y, f"{name}.conv2", width, width, 3, stride, relu=True)
            y = conv_bn(y, f"{name}.conv3", width, width * 4, 1, 1, relu=False)
            shortcut = conv_bn(x, f"{name}.downsample", c_in, width * 4, 1, stride, relu=False) if block == 0 else x
            nodes.append(helper.make_node("Add", [y, shortcut], [f"{name}.add"], name=f"{name}.add"))
            nodes.append(helper.make_node("Relu", [f"{name}.add"], [f"{name}.out"], name=f"{name}.out"))
            x, c_in = f"{name}.out", width * 4
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flat", axis=1))
    nodes.append(helper.make_node("Gemm", ["flat", weight("fc.weight", (1000, 2048)), weight("fc.bias", (1000,))],
                                  ["logits"], name="fc", transB=1))
    graph = helper.make_graph(
        nodes, "resnet50",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def big_external(path: Path) -> tuple[Path, int]:
    """MatMul chain whose weights are >2 GiB of external data in a sparse (never written) file."""
    data_name = path.stem + ".data"
    nodes, inits = [], []
    x, offset = "x", 0
    length = BIG_WIDTH * BIG_WIDTH * 4
    for i in range(BIG_LAYERS):
        tensor = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[BIG_WIDTH, BIG_WIDTH])
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", data_name), ("offset", str(offset)), ("length", str(length))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        inits.append(tensor)
        offset += length
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"mm{i}"], name=f"mm{i}"))
        nodes.append(helper.make_node("Relu", [f"mm{i}"], [f"h{i}"], name=f"relu{i}"))
        x = f"h{i}"
    graph = helper.make_graph(
        nodes, "big_external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, BIG_WIDTH])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, BIG_WIDTH])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    data = path.parent / data_name
    with open(data, "wb"):
        pass
    os.truncate(data, offset)  # sparse: the size is there, the blocks are not
    return path, offset


# --------------------------------------------------------------------------- measuring


def interleaved(fns: list, repeats: int) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU seconds per call of each fn, alternating them so background load hits both alike."""
    walls: list[list[float]] = [[] for _ in fns]
    cpus: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, wall_out, cpu_out in zip(fns, walls, cpus):
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            cpu_out.append(time.process_time() - start_cpu)
            wall_out.append(time.perf_counter() - start)
    return walls, cpus


def wall(cmd: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return statistics.median(times)


RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "if done.returncode not in (0, 1): sys.exit(done.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak RSS of cmd, from RUSAGE_CHILDREN of a fresh wrapper process that runs only cmd."""
    out = subprocess.run([sys.executable, "-c", RSS_WRAPPER, *cmd], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return int(out.stdout.strip()) / 1024  # Linux reports KiB


def atccheck_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("atccheck")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from atccheck.cli.main import main; main()"]


def bare_load_cmd(path: Path) -> list[str]:
    return [sys.executable, "-c", f"import onnx; onnx.load({str(path)!r}, load_external_data=False)"]


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--soc", default="Ascend310P3")
    parser.add_argument("--cann", default="8.0")
    parser.add_argument("--regenerate", action="store_true", help="rebuild the models in bench/out/")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of one in-process check")
    args = parser.parse_args()

    from atccheck.engine import check

    OUT.mkdir(exist_ok=True)
    resnet = OUT / "resnet50.onnx"
    if args.regenerate or not resnet.exists():
        resnet50(resnet)
    big = OUT / "big_external.onnx"
    if args.regenerate or not big.exists() or not big.with_suffix(".data").exists():
        big_external(big)
    external_bytes = big.with_suffix(".data").stat().st_size

    # ---- (1) time
    params = sum(int(np.prod(t.dims)) for t in onnx.load(str(resnet), load_external_data=False).graph.initializer)
    report = check(resnet, soc=args.soc, cann=args.cann)  # warm-up: tables read, lazy imports done
    (load_all, check_all), (load_cpu, check_cpu) = interleaved(
        [lambda: onnx.load(str(resnet), load_external_data=False), lambda: check(resnet, soc=args.soc, cann=args.cann)],
        args.repeats,
    )
    load_med, check_med = statistics.median(load_all), statistics.median(check_all)
    ratio = check_med / load_med
    cpu_ratio = statistics.median(check_cpu) / statistics.median(load_cpu)
    cli = [*atccheck_cmd(), "check", str(resnet), "--soc", args.soc, "--cann", args.cann, "--format", "json"]
    cli_wall = wall(cli, max(3, args.repeats // 2))
    load_wall = wall(bare_load_cmd(resnet), max(3, args.repeats // 2))

    # ---- (2) memory
    big_cli = [*atccheck_cmd(), "check", str(big), "--soc", args.soc, "--cann", args.cann, "--format", "json"]
    rss_check = peak_rss_mb(big_cli)
    rss_load = peak_rss_mb(bare_load_cmd(big))
    rss_python = peak_rss_mb([sys.executable, "-c", "import onnx"])

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:8.1f} ms"

    load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"atccheck check benchmark ({args.soc}, CANN {args.cann}, {args.repeats} repeats, medians; "
          f"{os.cpu_count()} CPUs, load average {load_avg})")
    print()
    print(f"(1) {resnet.relative_to(HERE.parent)}: {resnet.stat().st_size / 1e6:.1f} MB, {params / 1e6:.1f}M params, "
          f"{report.node_count} nodes, {len(report.findings)} findings")
    print(f"    in-process  onnx.load(load_external_data=False) {ms(load_med)}   "
          f"(all: {', '.join(f'{t * 1000:.0f}' for t in load_all)})")
    print(f"    in-process  atccheck check                      {ms(check_med)}   "
          f"(all: {', '.join(f'{t * 1000:.0f}' for t in check_all)})")
    verdict = "meets" if ratio <= TIME_GOAL else "MISSES"
    print(f"    ratio check / load = {ratio:.2f}  ({verdict} the goal of at most {TIME_GOAL})")
    print(f"    best-of-{args.repeats} ratio = {min(check_all) / min(load_all):.2f}  "
          f"({min(load_all) * 1000:.1f} ms vs {min(check_all) * 1000:.1f} ms; the least disturbed runs)")
    print(f"    same ratio in CPU time (process_time medians: {statistics.median(load_cpu) * 1000:.1f} ms vs "
          f"{statistics.median(check_cpu) * 1000:.1f} ms) = {cpu_ratio:.2f}  (steadier on a busy machine)")
    print(f"    wall time   python -c 'onnx.load(...)'           {ms(load_wall)}   (interpreter start + import onnx)")
    print(f"    wall time   atccheck check --format json         {ms(cli_wall)}   (interpreter start + imports + tables)")
    print()
    print(f"(2) {big.relative_to(HERE.parent)}: {big.stat().st_size / 1e3:.1f} KB graph, "
          f"{external_bytes / 2**30:.2f} GiB external data in a sparse file (never read)")
    print(f"    peak RSS    python -c 'import onnx'                {rss_python:7.1f} MB")
    print(f"    peak RSS    onnx.load(load_external_data=False)    {rss_load:7.1f} MB")
    verdict = "meets" if rss_check < RSS_GOAL_MB else "MISSES"
    print(f"    peak RSS    atccheck check                         {rss_check:7.1f} MB  "
          f"({verdict} the goal of under {RSS_GOAL_MB} MB)")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(check, resnet, soc=args.soc, cann=args.cann)
        print()
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
