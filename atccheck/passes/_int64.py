"""Shared by int64-to-int32 and int64-to-int32-unproven: value bounds and the node rewrite.

:class:`Bounds` is an interval analysis over int64 values: constants give their min and max,
``Shape``/``Size``/``ArgMax``-like ops give sizes of static shapes, casts from narrower types
give the type's range, and value-moving or arithmetic ops combine their inputs' intervals. A
value whose interval fits int32 provably keeps its value in int32; an unknown value (a graph
input, a data-dependent result) has no interval.

:func:`rewrite` makes one node compute in int32: the int64 inputs of the type group the
finding names become int32 (constants rewritten, others cast), and the outputs of that group
are cast back to int64, so nothing downstream changes. A final peephole joins consecutive
rewritten nodes: ``Cast(int32)`` of a ``Cast(int64)`` of an int32 value is that value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import ShapeIndex
    from atccheck.passes._graph import Names

INT32 = (-(2**31), 2**31 - 1)
INT64_TYPE = 7
INT32_TYPE = 6
FINDING_RULES = frozenset({"dtype-not-supported"})
# Ops whose outputs only hold values taken from these inputs (by position; None = every input).
MOVES = {
    "Identity": (0,), "Reshape": (0,), "Squeeze": (0,), "Unsqueeze": (0,), "Flatten": (0,), "Transpose": (0,),
    "Expand": (0,), "Tile": (0,), "Slice": (0,), "Gather": (0,), "GatherElements": (0,), "GatherND": (0,),
    "Concat": None, "Split": (0,), "Where": (1, 2), "Max": None, "Min": None, "ReduceMax": (0,), "ReduceMin": (0,),
}
# Integer types and their ranges, for Cast into int64.
NARROW = {2: (0, 255), 3: (-128, 127), 4: (0, 65535), 5: (-32768, 32767), 6: INT32, 9: (0, 1), 12: (0, 2**32 - 1)}
Interval = tuple[int, int]


def fits(bounds: Interval | None) -> bool:
    return bounds is not None and INT32[0] <= bounds[0] and bounds[1] <= INT32[1]


class Bounds:
    """Intervals of integer values, computed on demand and remembered."""

    def __init__(self, index: "GraphIndex", shapes: "ShapeIndex") -> None:
        self.index = index
        self.shapes = shapes
        self.memo: dict[str, Interval | None] = {}

    def of(self, name: str, depth: int = 0) -> Interval | None:
        if name in self.memo:
            return self.memo[name]
        self.memo[name] = None  # cycles and deep chains stay unknown
        value = self._compute(name, depth) if depth < 400 else None
        self.memo[name] = value
        return value

    def _constant(self, name: str) -> Interval | None:
        import numpy as np
        from onnx import numpy_helper

        tensor = self.index.initializers.get(name)
        try:
            array = numpy_helper.to_array(tensor) if tensor is not None else self.index.const_value(name)
        except Exception:  # malformed payload
            return None
        if array is None or not np.issubdtype(np.asarray(array).dtype, np.integer):
            return None
        array = np.asarray(array)
        return (int(array.min()), int(array.max())) if array.size else (0, 0)

    def _static_dims(self, name: str) -> list[int] | None:
        info = self.shapes.get(name)
        if info is None or not info.is_static:
            return None
        assert info.shape is not None  # is_static: a known shape of int dims only
        return [int(d) for d in info.shape if isinstance(d, int)]

    def _compute(self, name: str, depth: int) -> Interval | None:
        if self.index.is_constant(name):
            return self._constant(name)
        producer = self.index.producer.get(name)
        if producer is None:
            return None  # a graph input: anything
        node = producer.node
        op = node.op_type
        out_pos = list(node.output).index(name)
        ins = [i for i in node.input]

        def b(pos: int) -> Interval | None:
            return self.of(ins[pos], depth + 1) if pos < len(ins) and ins[pos] else None

        if op in ("Shape", "Size", "ArgMax", "ArgMin", "NonZero") or (op == "TopK" and out_pos == 1):
            dims = self._static_dims(ins[0])
            if dims is None:
                return None
            if op == "Size":
                total = 1
                for d in dims:
                    total *= d
                return (total, total)
            top = max(dims, default=1)
            return (0, top) if op == "Shape" else (0, max(top - 1, 0))
        if op == "Cast":
            to = next((a.i for a in node.attribute if a.name == "to"), None)
            if to != INT64_TYPE:
                return None
            source = self.shapes.get(ins[0])
            elem = source.elem_type if source is not None else 0
            return b(0) if elem == INT64_TYPE else NARROW.get(elem)
        if op in MOVES:
            moved = MOVES[op]
            positions = moved if moved is not None else range(len(ins))
            parts = [b(p) for p in positions if p < len(ins) and ins[p]]
            return _hull(parts)
        if op in ("Add", "Sub", "Mul") and len(ins) == 2:
            x, y = b(0), b(1)
            if x is None or y is None:
                return None
            if op == "Add":
                return (x[0] + y[0], x[1] + y[1])
            if op == "Sub":
                return (x[0] - y[1], x[1] - y[0])
            corners = [x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1]]
            return (min(corners), max(corners))
        if op == "Neg":
            x = b(0)
            return None if x is None else (-x[1], -x[0])
        if op == "Abs":
            x = b(0)
            if x is None:
                return None
            low = 0 if x[0] <= 0 <= x[1] else min(abs(x[0]), abs(x[1]))
            return (low, max(abs(x[0]), abs(x[1])))
        if op in ("ReduceSum", "CumSum"):
            x, dims = b(0), self._static_dims(ins[0])
            if x is None or dims is None:
                return None
            count = 1
            for d in dims:
                count *= d
            return (min(0, x[0] * count), max(0, x[1] * count))
        return None


def _hull(parts: Iterable[Interval | None]) -> Interval | None:
    parts = list(parts)
    if not parts or any(p is None for p in parts):
        return None
    return (min(p[0] for p in parts), max(p[1] for p in parts))  # type: ignore[index]


@dataclass
class Plan:
    """One node's int32 rewrite: which inputs and outputs move, and whether every value provably fits."""

    node: "onnx.NodeProto"
    graph: "onnx.GraphProto"
    position: int  # of the node in its graph
    inputs: list[int]
    outputs: list[int]
    proved: bool
    why: str | None = None


def plan(node: "onnx.NodeProto", graph: "onnx.GraphProto", position: int, index: int, opset: int | None,
         bounds: Bounds, shapes: "ShapeIndex") -> Plan | str:
    """How to run ``node`` in int32 for its input ``index``, or why it cannot be."""
    import onnx.defs

    try:
        schema = onnx.defs.get_schema(node.op_type, opset or 1, "")
    except Exception:
        return "no ONNX schema at the model opset"
    formal_in = list(schema.inputs)
    if not formal_in:
        return "the schema has no inputs"
    slot = formal_in[min(index, len(formal_in) - 1)]
    param = slot.type_str
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    if "tensor(int32)" not in allowed.get(param, set()):
        return f"its input {slot.name} cannot be int32"

    def formal_type(formals, pos: int) -> str:
        return formals[min(pos, len(formals) - 1)].type_str if formals else ""

    inputs = [p for p, v in enumerate(node.input) if v and formal_type(formal_in, p) == param]
    outputs = [p for p, v in enumerate(node.output) if v and formal_type(list(schema.outputs), p) == param]
    for p in inputs:
        info = shapes.get(node.input[p])
        if info is None or info.elem_type != INT64_TYPE:
            return f"input {p} is not int64"
    values = [node.input[p] for p in inputs] + [node.output[p] for p in outputs]
    unproved = [v for v in values if not fits(bounds.of(v))]
    why = None
    if unproved:
        why = f"nothing bounds '{unproved[0]}' within int32" + (f" (and {len(unproved) - 1} more)" if len(unproved) > 1 else "")
    return Plan(node, graph, position, inputs, outputs, not unproved, why)


def rewrite(item: Plan, index: "GraphIndex", names: "Names") -> list[str]:
    """Apply a plan: int32 constants or casts on the way in, casts back to int64 on the way out.

    Plans of one graph must be applied from the last node to the first (positions stay valid).
    Returns the names of the int32 values the node now writes.
    """
    import numpy as np
    from onnx import helper, numpy_helper

    graph = item.graph
    node = graph.node[item.position]  # the live element: earlier rewrites rebuilt the node list
    assert node.op_type == item.node.op_type and list(node.output) == list(item.node.output)
    label = node.name or node.op_type
    added_before: list["onnx.NodeProto"] = []
    added_after: list["onnx.NodeProto"] = []
    narrowed: list[str] = []
    for p in item.inputs:
        value = node.input[p]
        tensor = index.initializers.get(value)
        if tensor is not None:
            array = numpy_helper.to_array(tensor)
            if array.size == 0 or (int(array.min()) >= INT32[0] and int(array.max()) <= INT32[1]):
                narrow_tensor = numpy_helper.from_array(array.astype(np.int32), names.fresh(f"{value}/int32"))
                graph.initializer.append(narrow_tensor)
                node.input[p] = narrow_tensor.name
                continue
        cast = names.fresh(f"{label}/in{p}_int32")
        added_before.append(helper.make_node("Cast", [value], [cast], to=INT32_TYPE, name=names.fresh(f"{label}/CastIn{p}")))
        node.input[p] = cast
    for p in item.outputs:
        value = node.output[p]
        narrow = names.fresh(f"{value}/int32")
        node.output[p] = narrow
        narrowed.append(narrow)
        added_after.append(helper.make_node("Cast", [narrow], [value], to=INT64_TYPE, name=names.fresh(f"{label}/CastOut{p}")))
    nodes = list(graph.node)
    nodes[item.position:item.position + 1] = added_before + [nodes[item.position]] + added_after
    del graph.node[:]
    graph.node.extend(nodes)
    return narrowed


def join_casts(model: "onnx.ModelProto", narrowed: set[str]) -> int:
    """Skip ``Cast(int32)(Cast(int64)(v))`` where v is a value this rewrite made int32; returns how many."""
    from atccheck.passes._graph import graph_reads, iter_graphs

    joined = 0
    for graph in iter_graphs(model.graph):
        widen = {n.output[0]: n.input[0] for n in graph.node
                 if n.op_type == "Cast" and _to(n) == INT64_TYPE and n.input[0] in narrowed}
        shortcut = {n.output[0]: widen[n.input[0]] for n in graph.node
                    if n.op_type == "Cast" and _to(n) == INT32_TYPE and n.input[0] in widen}
        if not shortcut:
            continue
        for n in graph.node:
            for i, value in enumerate(n.input):
                if value in shortcut:
                    n.input[i] = shortcut[value]
                    joined += 1
        ours = set(widen) | set(shortcut)
        while True:  # drop the casts of ours that nothing reads any more
            used = graph_reads(graph)
            keep = [n for n in graph.node if not (n.op_type == "Cast" and n.output[0] in ours and n.output[0] not in used)]
            if len(keep) == len(graph.node):
                break
            del graph.node[:]
            graph.node.extend(keep)
    return joined


def _to(node: "onnx.NodeProto") -> int | None:
    return next((a.i for a in node.attribute if a.name == "to"), None)


def wanted(findings) -> bool:
    """A dtype finding names an int64 input that int32 would do for."""
    return bool(targets(findings))


def targets(findings) -> dict[tuple[str, str], set[int]]:
    """(graph path, node label) -> int64 input positions named by dtype findings."""
    out: dict[tuple[str, str], set[int]] = {}
    for f in findings:
        data = dict(f.data or {})
        if f.name not in FINDING_RULES or data.get("dtype") != "int64" or not isinstance(data.get("input"), int):
            continue
        allowed = data.get("allowed")
        if allowed is not None and len(allowed) and "int32" not in allowed:
            continue
        out.setdefault((f.location.graph, f.location.node or ""), set()).add(int(data["input"]))
    return out


def graphs_by_path(model: "onnx.ModelProto") -> dict[str, "onnx.GraphProto"]:
    """Every graph by the path findings use (``main``, ``main/If_0:then_branch``)."""
    from atccheck.findings import ROOT_GRAPH
    from atccheck.passes._graph import nested_graphs

    found: dict[str, "onnx.GraphProto"] = {}

    def walk(graph: "onnx.GraphProto", path: str) -> None:
        found[path] = graph
        for position, node in enumerate(graph.node):
            for sub_path, sub in nested_graphs(node, position, path):
                walk(sub, sub_path)

    walk(model.graph, ROOT_GRAPH)
    return found


def run_pass(model: "onnx.ModelProto", ctx, require_proof: bool):
    """The body of both passes: rewrite the nodes dtype findings name, proved ones only if asked."""
    from atccheck.model.graph import GraphIndex
    from atccheck.passes._graph import Names, opset_of, shapes_of
    from atccheck.passes.base import PassResult, left

    shapes = shapes_of(model, ctx)
    index = GraphIndex(model)
    bounds = Bounds(index, shapes)
    wanted = targets(ctx.findings)
    if not wanted:
        return PassResult(model, False, [])
    opset = opset_of(model)
    graphs = graphs_by_path(model)
    plans: list[Plan] = []
    notes: list[str] = []
    for gnode in index.nodes:
        positions = wanted.get((gnode.graph, gnode.label))
        if not positions or gnode.graph not in graphs:
            continue
        outcome = plan(gnode.node, graphs[gnode.graph], gnode.index, min(positions), opset, bounds, shapes)
        if isinstance(outcome, str):
            notes.append(left(f"{gnode.op_type} '{gnode.label}' left as is: {outcome}", gnode.label))
        elif require_proof and not outcome.proved:
            notes.append(left(f"{gnode.op_type} '{gnode.label}' left as is: {outcome.why} (int64-to-int32-unproven, "
                              "with --unsafe-fixes, casts it anyway)", gnode.label))
        else:
            plans.append(outcome)
    if not plans:
        return PassResult(model, False, notes)
    names = Names(model)
    narrowed: set[str] = set()
    for item in sorted(plans, key=lambda p: (id(p.graph), -p.position)):
        narrowed.update(rewrite(item, index, names))
    joined = join_casts(model, narrowed)
    labels = [p.node.name or p.node.op_type for p in plans]
    head = f"{len(plans)} node(s) now compute in int32, values cast back to int64 after them: " + ", ".join(labels[:5])
    if len(labels) > 5:
        head += " ..."
    if joined:
        head += f"; {joined} cast pair(s) between them dropped"
    unproved = [p for p in plans if not p.proved]
    if unproved:
        notes.insert(0, f"{len(unproved)} of them without a proof that their values fit int32 (unsafe): "
                        + "; ".join(p.why or "" for p in unproved[:3]))
    notes.insert(0, head)
    return PassResult(model, True, notes)
