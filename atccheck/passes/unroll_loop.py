"""unroll-loop: a Loop with a constant trip count and a condition that stays true, body inlined N times."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from atccheck.passes._rewrite import Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# Unrolling multiplies the body: refuse beyond these sizes (the graph would grow too much).
MAX_TRIP_COUNT = 64
MAX_UNROLLED_NODES = 5000


@register_pass
class UnrollLoop(FixPass):
    """Replace a Loop by N copies of its body (ATC has no Loop plugin in any profile).

    Applies to a standard-domain ``Loop`` whose trip count ``M`` is a constant N (stored, or
    computed from constants and static input dims, such as ``range(x.shape[1])`` once
    --input-shape fixes the dim: it is evaluated here) and whose condition is provably true
    throughout: the ``cond`` input is empty or a constant true, and the body's condition
    output is its condition input (directly or through Identity) or a constant true.
    Iteration i gets ``iter_num`` = i and ``cond`` = true as constants; loop-carried values
    flow from one copy to the next; body initializers are hoisted once; values the body reads
    from outer scopes stay as they are. Scan outputs are each iteration's value Unsqueezed on
    axis 0 and Concatenated. Refused, with a note that says whether the loop is
    data-dependent (M computed from input values, or a condition the body computes: a while
    loop; no unrolling can help) or waits for --input-shape (M computed from dims left
    dynamic): a missing or non-constant trip count, a condition that may turn false, N above
    ``MAX_TRIP_COUNT`` (64) or N x body nodes above ``MAX_UNROLLED_NODES`` (5000), a body
    holding subgraphs (nested Loop/If; an inner Loop that qualifies is unrolled first), and
    zero iterations with scan outputs. Unsafe: exact, but the graph grows N-fold and the
    rewrite fixes the iteration count into the model, so it runs only with --unsafe-fixes.
    """

    name = "unroll-loop"
    stage = "decompose"
    answers = (FixLink("unsupported-op", "Loop"),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Loop"})
    safe = False
    tolerance = 1e-5

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        rw = Rewriter(model, ctx, self.name)
        rw.run(lambda site: _unroll(rw, site) if rw.wanted(site) else None, self.op_types or ())
        return rw.result("Loop node(s)")


def _unroll(rw: Rewriter, site: Site) -> Emitter | str:
    import numpy as np
    from onnx import AttributeProto, helper

    body = site.attr("body")
    if not site.input(0):
        return "it has no trip count (M is empty): a while loop, data-dependent; it cannot be unrolled"
    trip = _known(rw, site.input(0))
    if isinstance(trip, str):
        return f"its trip count M {trip}"
    if trip.size != 1:
        return "its trip count M is not a single number"
    trips = int(trip.reshape(-1)[0])
    if site.input(1):
        start = _known(rw, site.input(1))
        if isinstance(start, str):
            return f"its initial condition {start}"
        if not bool(start.reshape(-1)[0]):
            return "its initial condition is false (it runs zero times); left as is"
    if not _stays_true(rw, body):
        return ("its body computes the condition to go on at run time (a while loop): data-dependent, the number "
                "of iterations is not known before it runs; it cannot be unrolled")
    if trips > MAX_TRIP_COUNT or trips * len(body.node) > MAX_UNROLLED_NODES:
        return (f"{trips} iterations of {len(body.node)} nodes exceed the unroll limits "
                f"({MAX_TRIP_COUNT} iterations, {MAX_UNROLLED_NODES} nodes)")
    if any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for n in body.node for a in n.attribute):
        return "its body holds subgraphs (a nested Loop or If)"
    carried = list(site.node.input[2:])
    scans = [o.name for o in body.output[1 + len(carried):]]
    if trips == 0 and scans:
        return "it runs zero times and has scan outputs (empty tensors of unknown shape)"

    em = Emitter(rw, site)
    hoisted = {t.name: em.tensor(t, "body_const") for t in body.initializer}
    true = em.const(np.array(True), "cond_true")
    values = carried
    scanned: list[list[str]] = [[] for _ in scans]
    for i in range(trips):
        scope = dict(hoisted)
        scope[body.input[0].name] = em.const(np.array(i, dtype=np.int64), f"iter{i}")
        scope[body.input[1].name] = true
        scope.update({vi.name: v for vi, v in zip(body.input[2:], values)})
        for node in body.node:
            copy = helper.make_node(
                node.op_type,
                [scope.get(x, x) for x in node.input],
                [_bind(em, scope, out, i) for out in node.output],
                name=em.name(f"it{i}/{node.name or node.op_type}"),
                domain=node.domain,
            )
            copy.attribute.extend(node.attribute)
            em.nodes.append(copy)
        values = [scope.get(o.name, o.name) for o in body.output[1 : 1 + len(carried)]]
        for column, name in zip(scanned, scans):
            column.append(scope.get(name, name))
    outputs = list(site.node.output)
    for value, out in zip(values, outputs[: len(carried)]):
        if out:
            em.op("Identity", [value], out)
    for column, out in zip(scanned, outputs[len(carried):]):
        if out:
            parts = [em.unsqueeze(v, [0]) for v in column]
            if len(parts) > 1:
                em.op("Concat", parts, out, axis=0)
            else:
                em.finish(parts[0], out)
    return em


def _known(rw: Rewriter, name: str) -> "np.ndarray | str":
    """The value of a Loop input from constants and static shapes, or why it is not known.

    The reason says whether the value depends on input values (data-dependent: no unrolling
    can help) or only on input dims left dynamic (give --input-shape).
    """
    from atccheck.model.graph import GraphIndex
    from atccheck.passes.fold_resize_scales import NotFoldable, fold

    value = rw.const_value(name)
    if value is not None:
        return value
    index = GraphIndex(rw.model)
    try:
        return fold(name, index, rw.shapes, rw.opset)
    except NotFoldable as exc:
        reason = str(exc)
    if not index.is_foldable(name, lambda _value: True):
        return (f"depends on input values, not only on shapes ({reason}): data-dependent, the number of iterations "
                "is not known before it runs; it cannot be unrolled")
    dynamic = [vi.name for vi in rw.model.graph.input
               if (info := rw.info(vi.name)) is not None and not info.is_static and vi.name not in index.initializers]
    return (f"depends on input dims left dynamic ({reason}): give --input-shape for "
            f"{', '.join(dynamic) or 'the inputs'} and it becomes a constant")


def _bind(em: Emitter, scope: dict[str, str], name: str, iteration: int) -> str:
    if not name:
        return ""
    scope[name] = em.name(f"it{iteration}/{name}")
    return scope[name]


def _stays_true(rw: Rewriter, body: "onnx.GraphProto") -> bool:
    """The body's condition output is its condition input, or a constant true."""
    from onnx import numpy_helper

    cond_in, cond_out = body.input[1].name, body.output[0].name
    producers = {o: n for n in body.node for o in n.output}
    while cond_out in producers and producers[cond_out].op_type == "Identity":
        cond_out = producers[cond_out].input[0]
    if cond_out == cond_in:
        return True
    node = producers.get(cond_out)
    if node is not None and node.op_type == "Constant":
        tensors = [a.t for a in node.attribute if a.name == "value"]
        return bool(tensors) and bool(numpy_helper.to_array(tensors[0]).reshape(-1)[0])
    local = {t.name: t for t in body.initializer}
    if cond_out in local:
        return bool(numpy_helper.to_array(local[cond_out]).reshape(-1)[0])
    value = rw.const_value(cond_out) if cond_out not in producers else None
    return value is not None and bool(value.reshape(-1)[0])
