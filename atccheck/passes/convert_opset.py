"""convert-opset: move the model to the ai.onnx opset that leaves the fewest parser-lookup findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atccheck.domains import AI_ONNX, STANDARD_DOMAINS, is_standard
from atccheck.lookup import lookup_score
from atccheck.model.schema import attribute_type_mismatches, onnx_schema
from atccheck.passes._graph import Names, iter_graphs, opset_of
from atccheck.passes._onnx_tools import refusal
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.model.shapes import ShapeIndex

# onnx's version converter has adapters from opset 7 up; older opsets are not worth a candidate.
LOWEST_CANDIDATE = 7


@dataclass(frozen=True)
class Candidate:
    opset: int
    errors: int = 0
    warnings: int = 0
    blocked_by: tuple[str, ...] = ()  # ops with no definition at this opset
    failure: str | None = None  # why the converter could not reach it

    @property
    def reachable(self) -> bool:
        return not self.blocked_by and self.failure is None


@register_pass
class ConvertOpset(FixPass):
    """Convert the model to the ai.onnx opset where the target registers the most of its ops.

    ATC looks every node up by ``ai.onnx::<model opset>::<OpType>`` with no fallback, so a
    model exported at an opset the CANN profile does not register fails on every node.
    This pass scores every opset the profile registers by what check would report about the
    parser lookups at that opset (``atccheck.lookup.lookup_score``: the findings of
    unsupported-op, opset-not-registered and malformed-attribute), then converts the
    model to the best one it can reach (fewest errors, then warnings; ties go to the opset
    closest to the current one) with ``onnx.version_converter``. Where the converter lacks
    an adapter (it has few for going down: Relu-14 to 13, say), each node is converted on
    its own, and a node whose definition at the target only accepts fewer types or lacks an
    attribute the node leaves at its default is kept as it is; ops whose meaning changed
    under the same signature (Softmax at 13) are never kept that way. An op that has no
    definition at a lower opset (LayerNormalization-17 for a profile that stops at 15)
    blocks that opset: it is left to its decompose pass, after which this pass runs again.
    A model nested near protobuf's depth limit, which the converter cannot parse, is left as
    it is, with a note. Exact: adapters rewrite attributes and inputs, not arithmetic
    (onnxruntime checks it).
    """

    name = "convert-opset"
    stage = "convert-opset"
    answers = (FixLink("opset-not-registered"),)
    safe = True
    tolerance = 1e-6
    rtol = 1e-6

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from atccheck.model.graph import GraphIndex
        from atccheck.tables import tables

        current = opset_of(model)
        if current is None:
            return PassResult(model, False, ["the model imports no ai.onnx opset"])
        problem = refusal(model, "onnx's version converter")
        if problem is not None:
            return PassResult(model, False, [f"left as is: {problem}"])
        tbl = tables()
        registry = tbl.registry(ctx.target.profile.id)
        standard = [r for r in registry if r.domain == AI_ONNX and r.opsets]
        low = max(LOWEST_CANDIDATE, min((min(r.opsets) for r in standard), default=LOWEST_CANDIDATE))
        high = registry.max_opset(AI_ONNX) or current
        graph = ctx.context.graph if ctx.context is not None else GraphIndex(model)

        def score(opset: int) -> Candidate:
            found = lookup_score(graph, opset, tbl, registry)
            return Candidate(opset, errors=found.errors, warnings=found.warnings)

        baseline = score(current)
        candidates = [baseline]
        standard_ops = {g.op_type for g in graph.nodes if is_standard(g.domain)}
        for opset in range(low, high + 1):
            if opset == current:
                continue
            blocked = _blockers(standard_ops, opset)
            candidates.append(Candidate(opset, blocked_by=blocked) if blocked else score(opset))
        ranked = sorted((c for c in candidates if c.reachable and c.opset != current),
                        key=lambda c: (c.errors, c.warnings, abs(c.opset - current), -c.opset))
        failures: list[Candidate] = []
        shapes: "ShapeIndex | None" = ctx.context.shapes if ctx.context is not None else None
        for cand in ranked:
            if (cand.errors, cand.warnings) >= (baseline.errors, baseline.warnings):
                break
            try:
                converted, kept = convert_model(model, current, cand.opset, shapes)
            except ConvertError as exc:
                failures.append(Candidate(cand.opset, failure=str(exc)))
                continue
            notes = [f"ai.onnx opset {current} -> {cand.opset}: parser-lookup findings {baseline.errors} -> "
                     f"{cand.errors} error(s), {baseline.warnings} -> {cand.warnings} warning(s)"]
            if kept:
                notes.append("kept as they are (their newer definition only widened types or added attributes "
                             f"the node leaves at the default; the converter has no adapter): {', '.join(kept)}")
            notes += _blocked_notes(candidates + failures)
            return PassResult(converted, True, notes)
        notes = [f"no opset the converter reaches leaves fewer findings than {current} "
                 f"({baseline.errors} error(s), {baseline.warnings} warning(s))"]
        notes += _blocked_notes(candidates + failures)
        return PassResult(model, False, notes)


class ConvertError(Exception):
    """The model cannot be brought to the opset; the message says which op stops it."""


# Ops whose meaning changed at this opset while their inputs and attributes kept the same
# names (onnx docs/Changelog.md): keeping such a node across the boundary would change its
# result, so only a converter adapter may move it.
SEMANTICS_CHANGED = {"Softmax": 13, "LogSoftmax": 13, "Hardmax": 13, "GridSample": 20}

# Attributes a later opset added, with the value that means what the op did before it (onnx
# docs/Changelog.md: the reductions gained noop_with_empty_axes at 18, ReduceSum at 13). onnx's
# version converter copies them down unchanged when it moves the axes back from an input into
# the attribute, and the checker then rejects the node (ReduceMean-18 to 13).
ADDED_ATTRIBUTES = {"noop_with_empty_axes": 0}


def convert_model(
    model: "onnx.ModelProto", current: int, target: int, shapes: "ShapeIndex | None" = None
) -> tuple["onnx.ModelProto", list[str]]:
    """The model at ``target``: onnx's version converter, node by node where it lacks an adapter.

    Returns the converted model and the op types kept as they were (their definitions at the
    two opsets differ only in accepted types or in attributes the node leaves at the default).
    ``shapes`` are the model's inferred shapes when the caller has them (else inferred here).
    """
    from onnx import version_converter

    from atccheck.model.graph import iter_nodes
    from atccheck.model.shapes import impossible_dims_hidden

    for node in iter_nodes(model.graph):
        bad = attribute_type_mismatches(node.node, current)
        if bad:  # onnx's C++ converter assumes schema types: a mistyped attribute crashes the process
            name, got, want = bad[0]
            raise ConvertError(f"node '{node.label}' has attribute '{name}' of type {got}, not {want}; "
                               "the converter cannot take it")
    _refuse_inexpressible(model, target)
    try:
        with impossible_dims_hidden(model):  # a dim of -7 aborts the converter's C++ shape inference
            converted = version_converter.convert_version(model, target)
    except Exception:  # a missing adapter for some op: convert what can be converted, keep what may be kept
        converted, kept = _convert_by_node(model, current, target, shapes)
    else:
        kept = []
    _drop_added_attributes(converted, target)
    return converted, kept


def _refuse_inexpressible(model: "onnx.ModelProto", target: int) -> None:
    """Stop before the converter on a node whose ADDED_ATTRIBUTES value the target cannot express
    (a reduction without axes and noop_with_empty_axes=1): onnx 1.16's converter crashes the
    process on it, later ones convert it into a node that means something else."""
    for node, attr in _added_attributes(model, target):
        if not _droppable(node, attr) and not (len(node.input) > 1 and node.input[1]):
            raise _inexpressible(node, attr, target)  # (axes given as an input are checked after conversion)


def _drop_added_attributes(model: "onnx.ModelProto", target: int) -> None:
    """Remove the attributes of ADDED_ATTRIBUTES the target opset does not define where removing
    them keeps the meaning (see _droppable)."""
    for node, attr in _added_attributes(model, target):
        if not _droppable(node, attr):
            raise _inexpressible(node, attr, target)
        node.attribute.remove(attr)


def _added_attributes(model: "onnx.ModelProto", target: int) -> list[tuple["onnx.NodeProto", "onnx.AttributeProto"]]:
    """(node, attribute) for each ADDED_ATTRIBUTES attribute a standard node holds that its op
    at the target opset does not define."""
    found = []
    for graph in iter_graphs(model.graph):
        for node in graph.node:
            if node.domain not in STANDARD_DOMAINS:
                continue
            for attr in node.attribute:
                if attr.name not in ADDED_ATTRIBUTES:
                    continue
                schema = onnx_schema(node.op_type, target)
                if schema is not None and attr.name not in schema.attributes:
                    found.append((node, attr))
    return found


def _droppable(node: "onnx.NodeProto", attr: "onnx.AttributeProto") -> bool:
    """The node means the same without the attribute: it holds the old-meaning value, or
    (noop_with_empty_axes) it names its axes, so the empty-axes case cannot arise."""
    axes = next((a for a in node.attribute if a.name == "axes"), None)
    return attr.i == ADDED_ATTRIBUTES[attr.name] or (axes is not None and len(axes.ints) > 0)


def _inexpressible(node: "onnx.NodeProto", attr: "onnx.AttributeProto", target: int) -> ConvertError:
    return ConvertError(f"node '{node.name or node.op_type}' sets {attr.name}={attr.i} without axes, "
                        f"which {node.op_type} at opset {target} cannot express")


def _convert_by_node(
    model: "onnx.ModelProto", current: int, target: int, shapes: "ShapeIndex | None"
) -> tuple["onnx.ModelProto", list[str]]:
    import onnx

    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import infer_shapes

    result = onnx.ModelProto()
    result.CopyFrom(model)
    if shapes is None:
        shapes = infer_shapes(result)
    index = GraphIndex(result)
    names = Names(result)
    kept: set[str] = set()
    for graph in list(iter_graphs(result.graph)):
        nodes: list["onnx.NodeProto"] = []
        for node in graph.node:
            if node.domain not in STANDARD_DOMAINS:
                nodes.append(node)
                continue
            old, new = onnx_schema(node.op_type, current), onnx_schema(node.op_type, target)
            if new is None:
                raise ConvertError(f"{node.op_type} has no definition at opset {target}")
            if old is not None and old.since_version == new.since_version:
                nodes.append(node)
                continue
            pieces = _adapt(node, result, current, target, shapes, index, names)
            if pieces is not None:
                nodes.extend(pieces[0])
                graph.initializer.extend(pieces[1])
                continue
            if old is not None and _keepable(node, old, new, shapes, current, target):
                nodes.append(node)
                kept.add(node.op_type)
                continue
            raise ConvertError(f"{node.op_type} cannot go from opset {current} to {target}: onnx's converter has no "
                               "adapter and its definition changed")
        del graph.node[:]
        graph.node.extend(nodes)
    for entry in result.opset_import:
        if entry.domain in STANDARD_DOMAINS:
            entry.version = target
    return result, sorted(kept)


def _keepable(node, old, new, shapes, current: int, target: int) -> bool:
    """The node means the same under the target opset's definition."""
    boundary = SEMANTICS_CHANGED.get(node.op_type)
    if boundary is not None and min(current, target) < boundary <= max(current, target):
        return False
    if [(i.name, i.option) for i in old.inputs] != [(i.name, i.option) for i in new.inputs]:
        return False
    if [(o.name, o.option) for o in old.outputs] != [(o.name, o.option) for o in new.outputs]:
        return False
    for attr in node.attribute:
        spec = new.attributes.get(attr.name)
        if spec is None or spec.type != attr.type:
            return False
    for name, spec in new.attributes.items():
        before = old.attributes.get(name)
        changed = before is not None and before.default_value != spec.default_value
        if changed and not any(a.name == name for a in node.attribute):
            return False  # the default the node relies on changed
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in new.type_constraints}
    for position, value in enumerate(node.input):
        if not value or position >= len(new.inputs):
            continue
        info = shapes.get(value)
        if info is None or not info.elem_type:
            return False
        type_str = new.inputs[position].type_str
        if type_str in allowed and _tensor_type(info.elem_type) not in allowed[type_str]:
            return False
    return True


def _tensor_type(elem_type: int) -> str:
    import onnx

    name = onnx.TensorProto.DataType.Name(elem_type).lower()
    return "tensor(" + {"float": "float", "double": "double"}.get(name, name) + ")"


def _adapt(node, model, current: int, target: int, shapes, index, names):
    """Convert one node with onnx's converter on a model of that node alone; None when it cannot."""
    import onnx
    from onnx import helper, version_converter

    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
        return None
    inputs, inits = [], []
    for value in dict.fromkeys(i for i in node.input if i):
        constant = index.const_value(value) if index.is_constant(value) else None
        if constant is not None:
            inits.append(onnx.numpy_helper.from_array(constant, value))
            continue
        info = shapes.get(value)
        if info is None or not info.elem_type:
            return None
        dims = None if info.shape is None else [d if isinstance(d, (int, str)) else None for d in info.shape]
        inputs.append(helper.make_tensor_value_info(value, info.elem_type, dims))
    outputs = []
    for value in node.output:
        if not value:
            continue
        info = shapes.get(value)
        outputs.append(helper.make_tensor_value_info(value, info.elem_type if info else 0, None))
    mini = helper.make_model(helper.make_graph([node], "node", inputs, outputs, inits),
                             opset_imports=[helper.make_opsetid("", current)])
    mini.ir_version = model.ir_version or mini.ir_version
    try:
        converted = version_converter.convert_version(mini, target)
    except Exception:  # no adapter for this op between these opsets
        return None
    known = set(node.input) | set(node.output)
    rename = {}
    for new_node in converted.graph.node:
        for value in new_node.output:
            if value and value not in known:
                rename[value] = names.fresh(f"{node.name or node.op_type}/{value}")
    new_inits = []
    for tensor in converted.graph.initializer:
        if tensor.name in known:
            continue  # the original constant, still in the graph
        rename.setdefault(tensor.name, names.fresh(f"{node.name or node.op_type}/{tensor.name}"))
        tensor.name = rename[tensor.name]
        new_inits.append(tensor)
    out_nodes = []
    for new_node in converted.graph.node:
        for i, value in enumerate(new_node.input):
            if value in rename:
                new_node.input[i] = rename[value]
        for i, value in enumerate(new_node.output):
            if value in rename:
                new_node.output[i] = rename[value]
        if not new_node.name:
            new_node.name = names.fresh(f"{node.name or node.op_type}/{new_node.op_type}")
        out_nodes.append(new_node)
    return out_nodes, new_inits


def _blockers(types: set[str], opset: int) -> tuple[str, ...]:
    """Standard ops of the model that have no definition at or below this opset."""
    import onnx.defs

    return tuple(sorted(t for t in types if onnx.defs.has(t, "") and not onnx.defs.has(t, opset, "")))


def _blocked_notes(candidates: list[Candidate]) -> list[str]:
    """Say which ops kept better opsets out of reach (those go to their decompose pass)."""
    notes: list[str] = []
    by_ops: dict[tuple[str, ...], list[int]] = {}
    for c in candidates:
        if c.blocked_by:
            by_ops.setdefault(c.blocked_by, []).append(c.opset)
    for ops, opsets in by_ops.items():
        span = f"{min(opsets)}-{max(opsets)}" if len(opsets) > 1 else str(opsets[0])
        verb = "has" if len(ops) == 1 else "have"
        notes.append(f"opset {span} out of reach: {', '.join(ops)} {verb} no definition there (a decompose pass "
                     "may rewrite it, then convert-opset runs again)")
    failures = [c for c in candidates if c.failure]
    if failures:
        first = failures[0]
        notes.append(left(f"opset {first.opset} left out of reach" + (f" (and {len(failures) - 1} more)"
                          if len(failures) > 1 else "") + f": {first.failure}"))
    return notes
