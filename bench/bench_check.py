"""How fast and how lean ``atccheck check`` is, against the tools a user would otherwise run first.

    python bench/bench_check.py [--repeats 5] [--soc Ascend310P3] [--cann 8.0] [--only peers,scaling,inprocess,external]

Prints, from one run, side by side:

1. Peers, whole process. Two generated models with weights inside the file: a ResNet-50-sized
   one (real topology, 25.6M float32 parameters, ~102 MB) and a ViT-B/16-sized one (opset 13,
   LayerNormalization and Gelu decomposed as exporters leave them, 86.6M parameters, ~346 MB).
   For each, the commands run in turn, round after round (so background load hits all alike):
   ``atccheck check``, ``python -c 'import onnx; onnx.load(f)'``,
   ``python -c 'import onnx; onnx.checker.check_model(f)'`` and ``polygraphy inspect model f``
   (the ``bench`` extra; n/a when not installed). Printed: median wall time of each, the ratio
   check / peer of the medians (goal: below 1.0) and the same ratio in CPU time (user + sys of
   the child), then the peak RSS of each command (goal for check on the ViT-B model: under
   250 MB, stretch 150 MB).
2. Scaling: in-process ``check`` of a 1,000-node and a 10,000-node chain (MatMul, Add, Relu,
   Mul blocks), alternating; goal: the 10k-node time within 12x the 1k-node time.
3. In-process, same interpreter, every module imported and the tables read once: the median
   ``check`` time over the median ``onnx.load(path, load_external_data=False)`` on ResNet-50.
4. Memory with external data: a graph whose initializers are external-data records (more than
   2 GiB) pointing at a sparse file made with truncate, so no byte of it is ever written or
   needs reading. Peak RSS of ``atccheck check`` (goal: under 300 MB).

Generated files go to bench/out/ (git-ignored) and are reused by later runs.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
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


def vit_b16(path: Path) -> Path:
    """ViT-B/16 as an exporter at opset 13 leaves it (LayerNormalization and Gelu decomposed), random weights."""
    rng = np.random.default_rng(16)
    width, heads, mlp, layers, tokens = 768, 12, 3072, 12, 197
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(name: str, shape: tuple[int, ...]) -> str:
        return const(name, (rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)))

    def op(op_type: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    for name, value in (("two", np.float32(2.0)), ("eps", np.float32(1e-6)), ("sqrt2", np.float32(np.sqrt(2.0))),
                        ("one", np.float32(1.0)), ("half", np.float32(0.5)), ("scale", np.float32(64 ** -0.5)),
                        ("qkv_shape", np.array([1, tokens, 3, heads, width // heads], np.int64)),
                        ("merge_shape", np.array([1, tokens, width], np.int64)),
                        ("i0", np.array(0, np.int64)), ("i1", np.array(1, np.int64)), ("i2", np.array(2, np.int64)),
                        ("seq_shape", np.array([1, width, tokens - 1], np.int64))):
        const(name, value)

    def layer_norm(x: str, name: str) -> str:
        mean = op("ReduceMean", [x], f"{name}.mean", axes=[-1])
        centered = op("Sub", [x, mean], f"{name}.sub")
        var = op("ReduceMean", [op("Pow", [centered, "two"], f"{name}.pow")], f"{name}.var", axes=[-1])
        std = op("Sqrt", [op("Add", [var, "eps"], f"{name}.add_eps")], f"{name}.sqrt")
        normed = op("Div", [centered, std], f"{name}.div")
        scaled = op("Mul", [normed, const(f"{name}.weight", np.ones(width, np.float32))], f"{name}.mul")
        return op("Add", [scaled, const(f"{name}.bias", np.zeros(width, np.float32))], f"{name}.out")

    def linear(x: str, name: str, c_in: int, c_out: int) -> str:
        y = op("MatMul", [x, weight(f"{name}.weight", (c_in, c_out))], f"{name}.matmul")
        return op("Add", [y, const(f"{name}.bias", np.zeros(c_out, np.float32))], f"{name}.out")

    patches = op("Conv", ["image", weight("patch.weight", (width, 3, 16, 16)), const("patch.bias", np.zeros(width, np.float32))],
                 "patch.conv", kernel_shape=[16, 16], strides=[16, 16])
    seq = op("Transpose", [op("Reshape", [patches, "seq_shape"], "patch.flatten")], "patch.tokens", perm=[0, 2, 1])
    x = op("Concat", [weight("cls_token", (1, 1, width)), seq], "embed.concat", axis=1)
    x = op("Add", [x, weight("pos_embed", (1, tokens, width))], "embed.pos")
    for i in range(layers):
        name = f"encoder.{i}"
        h = layer_norm(x, f"{name}.ln1")
        qkv = op("Transpose", [op("Reshape", [linear(h, f"{name}.qkv", width, 3 * width), "qkv_shape"], f"{name}.split_heads")],
                 f"{name}.heads", perm=[2, 0, 3, 1, 4])
        q, k, v = (op("Gather", [qkv, f"i{j}"], f"{name}.{part}", axis=0) for j, part in enumerate("qkv"))
        scores = op("Mul", [op("MatMul", [q, op("Transpose", [k], f"{name}.kT", perm=[0, 1, 3, 2])], f"{name}.qk"), "scale"],
                    f"{name}.scaled")
        attn = op("MatMul", [op("Softmax", [scores], f"{name}.softmax", axis=-1), v], f"{name}.attn")
        merged = op("Reshape", [op("Transpose", [attn], f"{name}.merge_t", perm=[0, 2, 1, 3]), "merge_shape"], f"{name}.merge")
        x = op("Add", [x, linear(merged, f"{name}.proj", width, width)], f"{name}.res1")
        h = linear(layer_norm(x, f"{name}.ln2"), f"{name}.fc1", width, mlp)
        erf = op("Erf", [op("Div", [h, "sqrt2"], f"{name}.gelu_div")], f"{name}.gelu_erf")
        gelu = op("Mul", [op("Mul", [h, op("Add", [erf, "one"], f"{name}.gelu_add")], f"{name}.gelu_mul"), "half"],
                  f"{name}.gelu")
        x = op("Add", [x, linear(gelu, f"{name}.fc2", mlp, width)], f"{name}.res2")
    x = layer_norm(x, "final_ln")
    cls = op("Gather", [x, "i0"], "cls", axis=1)
    logits = linear(cls, "head", width, 1000)
    graph = helper.make_graph(
        nodes, "vit_b16",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info(logits, TensorProto.FLOAT, [1, 1000])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


def chain(path: Path, node_count: int) -> Path:
    """MatMul, Add, Relu, Mul blocks (72x72 weights, over the small-constant threshold) up to node_count nodes."""
    rng = np.random.default_rng(node_count)
    nodes, inits, x = [], [numpy_helper.from_array(np.float32(0.5), "half")], "x"
    for i in range(node_count // 4):
        inits.append(numpy_helper.from_array(rng.standard_normal((72, 72), dtype=np.float32), f"w{i}"))
        inits.append(numpy_helper.from_array(rng.standard_normal(72, dtype=np.float32), f"b{i}"))
        for op_type, inputs, out in (("MatMul", [x, f"w{i}"], f"mm{i}"), ("Add", [f"mm{i}", f"b{i}"], f"add{i}"),
                                     ("Relu", [f"add{i}"], f"relu{i}"), ("Mul", [f"relu{i}", "half"], f"h{i}")):
            nodes.append(helper.make_node(op_type, inputs, [out], name=out))
        x = f"h{i}"
    graph = helper.make_graph(
        nodes, f"chain{node_count}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 72])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 72])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


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


RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
    "if done.returncode not in (0, 1): sys.exit(done.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak RSS of cmd, from RUSAGE_CHILDREN of a fresh wrapper process that runs only cmd."""
    out = subprocess.run([sys.executable, "-c", RSS_WRAPPER, *cmd], capture_output=True, text=True, env=CHILD_ENV)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return int(out.stdout.strip()) / 1024  # Linux reports KiB


def atccheck_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("atccheck")
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "from atccheck.cli.main import main; main()"]


def bare_load_cmd(path: Path) -> list[str]:
    return [sys.executable, "-c", f"import onnx; onnx.load({str(path)!r}, load_external_data=False)"]


# --------------------------------------------------------------------------- main


def baseline_cmd(source: Path) -> list[str]:
    """atccheck run from another source tree (an earlier commit's ``atccheck/`` with its op_tables)."""
    return [sys.executable, "-c",
            f"import sys; sys.path.insert(0, {str(source)!r}); from atccheck.cli.main import main; main()"]


def peer_commands(path: Path, soc: str, cann: str, baseline: Path | None = None) -> dict[str, list[str] | None]:
    polygraphy = Path(sys.executable).with_name("polygraphy")
    check_args = ["check", str(path), "--soc", soc, "--cann", cann, "--format", "json"]
    return {
        "atccheck check": [*atccheck_cmd(), *check_args],
        **({"atccheck check, baseline": [*baseline_cmd(baseline), *check_args]} if baseline else {}),
        "onnx.load": [sys.executable, "-c", f"import onnx; onnx.load({str(path)!r})"],
        "onnx.checker": [sys.executable, "-c", f"import onnx; onnx.checker.check_model({str(path)!r})"],
        "polygraphy inspect model": [str(polygraphy), "inspect", "model", str(path)] if polygraphy.exists() else None,
    }


# Commands run as a user's would: with bytecode caches. PYTHONDONTWRITEBYTECODE (set in some CI
# and sandbox shells) would make every atccheck run compile its own sources again (~0.3 s), while
# onnx's and polygraphy's were compiled when pip installed them.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one run of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=CHILD_ENV)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peers(path: Path, args: argparse.Namespace) -> None:
    commands = peer_commands(path, args.soc, args.cann, args.baseline)
    runnable = {name: cmd for name, cmd in commands.items() if cmd is not None}
    walls: dict[str, list[float]] = {name: [] for name in runnable}
    cpus: dict[str, list[float]] = {name: [] for name in runnable}
    for cmd in runnable.values():  # one unmeasured run each: page cache warm for all alike
        run_once(cmd)
    for _ in range(args.repeats):
        for name, cmd in runnable.items():
            wall_s, cpu_s = run_once(cmd)
            walls[name].append(wall_s)
            cpus[name].append(cpu_s)
    check_wall = statistics.median(walls["atccheck check"])
    check_cpu = statistics.median(cpus["atccheck check"])
    print(f"    {'command':<26} {'wall':>9} {'cpu':>9} {'check/it wall':>14} {'check/it cpu':>13} {'peak RSS':>10}")
    for name, cmd in commands.items():
        if cmd is None:
            print(f"    {name:<26} {'n/a (not installed: pip install -e .[bench])':>60}")
            continue
        wall_m, cpu_m = statistics.median(walls[name]), statistics.median(cpus[name])
        ratios = ("" if name == "atccheck check" else f"{check_wall / wall_m:14.2f} {check_cpu / cpu_m:13.2f}")
        print(f"    {name:<26} {wall_m:8.2f}s {cpu_m:8.2f}s {ratios:>28} {peak_rss_mb(cmd):8.1f} MB")


def scaling(args: argparse.Namespace) -> None:
    from atccheck.api import check

    small, large = OUT / "chain1000.onnx", OUT / "chain10000.onnx"
    for path, count in ((small, 1000), (large, 10000)):
        if args.regenerate or not path.exists():
            chain(path, count)
    check(small, soc=args.soc, cann=args.cann)  # warm-up
    (small_t, large_t), _ = interleaved(
        [lambda: check(small, soc=args.soc, cann=args.cann), lambda: check(large, soc=args.soc, cann=args.cann)],
        max(3, args.repeats),
    )
    ratio = statistics.median(large_t) / statistics.median(small_t)
    verdict = "meets" if ratio <= 12 else "MISSES"
    print(f"    in-process check, 1,000 nodes ({small.stat().st_size / 1e6:.1f} MB)   {statistics.median(small_t) * 1000:8.1f} ms")
    print(f"    in-process check, 10,000 nodes ({large.stat().st_size / 1e6:.1f} MB) {statistics.median(large_t) * 1000:8.1f} ms")
    print(f"    10k / 1k = {ratio:.1f}  ({verdict} the goal of at most 12)")
    cli = [*atccheck_cmd(), "check", "--soc", args.soc, "--cann", args.cann, "--format", "json"]
    small_w = statistics.median(run_once([*cli, str(small)])[0] for _ in range(3))
    large_w = statistics.median(run_once([*cli, str(large)])[0] for _ in range(3))
    print(f"    whole process: {small_w:.2f} s vs {large_w:.2f} s ({large_w / small_w:.1f}x)")


def in_process(resnet: Path, args: argparse.Namespace) -> None:
    from atccheck.api import check

    params = sum(int(np.prod(t.dims)) for t in onnx.load(str(resnet), load_external_data=False).graph.initializer)
    report = check(resnet, soc=args.soc, cann=args.cann)  # warm-up: tables read, lazy imports done
    (load_all, check_all), (load_cpu, check_cpu) = interleaved(
        [lambda: onnx.load(str(resnet), load_external_data=False), lambda: check(resnet, soc=args.soc, cann=args.cann)],
        args.repeats,
    )
    load_med, check_med = statistics.median(load_all), statistics.median(check_all)
    ratio = check_med / load_med
    print(f"    {resnet.relative_to(HERE.parent)}: {params / 1e6:.1f}M params, {report.node_count} nodes, "
          f"{len(report.findings)} findings")
    print(f"    onnx.load(load_external_data=False) {ms(load_med)}   (all: {', '.join(f'{t * 1000:.0f}' for t in load_all)})")
    print(f"    atccheck check                      {ms(check_med)}   (all: {', '.join(f'{t * 1000:.0f}' for t in check_all)})")
    verdict = "meets" if ratio <= TIME_GOAL else "MISSES"
    print(f"    ratio check / load = {ratio:.2f}  ({verdict} the goal of at most {TIME_GOAL}); "
          f"in CPU time {statistics.median(check_cpu) / statistics.median(load_cpu):.2f}")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(check, resnet, soc=args.soc, cann=args.cann)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)


def external(args: argparse.Namespace) -> None:
    big = OUT / "big_external.onnx"
    if args.regenerate or not big.exists() or not big.with_suffix(".data").exists():
        big_external(big)
    external_bytes = big.with_suffix(".data").stat().st_size
    big_cli = [*atccheck_cmd(), "check", str(big), "--soc", args.soc, "--cann", args.cann, "--format", "json"]
    rss_check = peak_rss_mb(big_cli)
    rss_load = peak_rss_mb(bare_load_cmd(big))
    rss_python = peak_rss_mb([sys.executable, "-c", "import onnx"])
    print(f"    {big.relative_to(HERE.parent)}: {big.stat().st_size / 1e3:.1f} KB graph, "
          f"{external_bytes / 2**30:.2f} GiB external data in a sparse file (never read)")
    print(f"    peak RSS    python -c 'import onnx'                {rss_python:7.1f} MB")
    print(f"    peak RSS    onnx.load(load_external_data=False)    {rss_load:7.1f} MB")
    verdict = "meets" if rss_check < RSS_GOAL_MB else "MISSES"
    print(f"    peak RSS    atccheck check                         {rss_check:7.1f} MB  "
          f"({verdict} the goal of under {RSS_GOAL_MB} MB)")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


SECTIONS = ("peers", "scaling", "inprocess", "external")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--soc", default="Ascend310P3")
    parser.add_argument("--cann", default="8.0")
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections: " + ", ".join(SECTIONS))
    parser.add_argument("--regenerate", action="store_true", help="rebuild the models in bench/out/")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of one in-process check")
    parser.add_argument("--baseline", type=Path, help="in section 1, also time atccheck check run from this source "
                        "tree (a folder holding an earlier atccheck/ with atccheck/op_tables/), in the same rounds")
    parser.add_argument("--models", default="resnet50,vit_b16", help="section 1's models: resnet50, vit_b16")
    args = parser.parse_args()
    only = set(args.only.split(","))

    OUT.mkdir(exist_ok=True)
    models = {f"{name}.onnx": build for name, build in (("resnet50", resnet50), ("vit_b16", vit_b16))
              if name in args.models.split(",")}
    for name, build in models.items():
        if args.regenerate or not (OUT / name).exists():
            build(OUT / name)

    load_avg = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"atccheck check benchmark ({args.soc}, CANN {args.cann}, {args.repeats} rounds, medians; "
          f"{os.cpu_count()} CPUs, load average {load_avg})")
    if "peers" in only:
        for number, name in enumerate(models, start=1):
            path = OUT / name
            print(f"\n(1.{number}) whole process, {path.relative_to(HERE.parent)} ({path.stat().st_size / 1e6:.1f} MB, "
                  f"weights inside the file)")
            peers(path, args)
    if "scaling" in only:
        print("\n(2) scaling with the node count")
        scaling(args)
    if "inprocess" in only:
        print("\n(3) in-process, every module imported")
        if not (OUT / "resnet50.onnx").exists():
            resnet50(OUT / "resnet50.onnx")
        in_process(OUT / "resnet50.onnx", args)
    if "external" in only:
        print("\n(4) external data")
        external(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
