"""How fast and how large the HTML report of a big model is.

    python bench/bench_html.py [--nodes 10000] [--findings 500] [--repeats 3]

Builds (in memory) a model of ``--nodes`` nodes: a chain of elementwise ops with a skip
connection every 10 nodes and a wide fan-out every 250, and ``--findings / 2`` custom ops,
each of a different op type, hanging off the chain. Each custom op gives two findings with
messages of their own (unsupported op, data-dependent shape), so the report has
``--findings`` sections, each with its own picture: the worst case for size. Then, side by side from one run:

- ``check`` time (loading, shape inference, rules), for scale;
- ``render`` time of ``--format html`` (median of ``--repeats``; goal: under 2 s), with the
  graph taken from the report's context, and with the model read again from a file (what
  directory mode does with reports from worker processes);
- the size of the page (goal: under 5 MB) and of the JSON report of the same findings;
- the same page for one finding group with 500 nodes (identical messages are one section).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import onnx
from onnx import TensorProto, helper

TIME_GOAL = 2.0
SIZE_GOAL_MB = 5.0


def big_model(nodes: int, findings: int, distinct: bool = True) -> onnx.ModelProto:
    ops = ("Relu", "Sigmoid", "Neg", "Abs", "Tanh")
    graph_nodes = []
    outputs = []
    prev, history = "x", ["x"]
    customs = findings // 2  # two findings each
    chain = int((nodes - customs) / (1 + 11 / 250))  # a fan-out of 11 nodes every 250
    every = max(1, chain // max(customs, 1))
    custom = 0
    for i in range(chain):
        out = f"t{i}"
        if i % 10 == 9:
            graph_nodes.append(helper.make_node("Add", [prev, history[-6]], [out], name=f"block{i // 10}/add"))
        elif i % 250 == 249:
            graph_nodes.append(helper.make_node("Relu", [prev], [out], name=f"hub{i}"))
        else:
            graph_nodes.append(helper.make_node(ops[i % len(ops)], [prev], [out], name=f"block{i // 10}/op{i % 10}"))
        if i % 250 == 0 and i > 250:  # a wide fan-out: ten readers of one value, joined again
            hub = history[-1]
            readers = []
            for k in range(10):
                graph_nodes.append(helper.make_node("Relu", [hub], [f"{out}_fan{k}"], name=f"fan{i}_{k}"))
                readers.append(f"{out}_fan{k}")
            graph_nodes.append(helper.make_node("Sum", readers + [out], [f"{out}_sum"], name=f"sum{i}"))
            out = f"{out}_sum"
        if custom < customs and i % every == every - 1:
            op_type = f"CustomOp{custom}" if distinct else "CustomOp"
            graph_nodes.append(helper.make_node(op_type, [out], [f"c{custom}"], name=f"custom{custom}"))
            outputs.append(helper.make_tensor_value_info(f"c{custom}", TensorProto.FLOAT, None))
            custom += 1
        prev = out
        history.append(out)
    outputs.insert(0, helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 64]))
    graph = helper.make_graph(graph_nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def median_time(func, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--findings", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--soc", default="Ascend310P3")
    args = parser.parse_args()

    import atccheck
    from atccheck.emit import render

    ok = True
    rows = []
    for distinct in (True, False):
        model = big_model(args.nodes, args.findings, distinct)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "big.onnx"
            onnx.save(model, path)
            check_s, report = median_time(lambda path=path: atccheck.check(str(path), soc=args.soc), 1)
            render_s, page = median_time(lambda report=report: render("html", [report]), args.repeats)
            context = report.context
            report.context = None
            reread_s, _ = median_time(lambda report=report: render("html", [report]), args.repeats)
            report.context = context
            json_size = len(render("json", [report]).encode())
        size = len(page.encode())
        sections = page.count('<details class="f ')
        pictures = page.count('<svg class="nb"')
        label = "distinct messages" if distinct else "one message"
        rows.append((label, len(model.graph.node), len(report.findings), sections, pictures, check_s, render_s,
                     reread_s, size, json_size))
        if distinct:
            ok = render_s < TIME_GOAL and size < SIZE_GOAL_MB * 1e6
    print(f"{'case':<18} {'nodes':>6} {'findings':>8} {'sections':>8} {'pictures':>8} {'check s':>8} "
          f"{'html s':>7} {'reread s':>8} {'html MB':>8} {'json MB':>8}")
    for label, nodes, found, sections, pictures, check_s, render_s, reread_s, size, json_size in rows:
        print(f"{label:<18} {nodes:>6} {found:>8} {sections:>8} {pictures:>8} {check_s:>8.2f} {render_s:>7.2f} "
              f"{reread_s:>8.2f} {size / 1e6:>8.2f} {json_size / 1e6:>8.2f}")
    print(f"goal (distinct messages): html under {TIME_GOAL:g} s and under {SIZE_GOAL_MB:g} MB: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
