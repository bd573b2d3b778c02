"""flatten-softmax-input: a (Log)Softmax before opset 13 written on a 2-D view, as ONNX means its axis."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class FlattenSoftmaxInput(NodeRewrite):
    """Write a (Log)Softmax before opset 13 as Flatten, the op on the 2-D result, Reshape back.

    Before opset 13, ONNX's Softmax, LogSoftmax and Hardmax coerce their input to 2-D at
    ``axis`` and work over every axis from there; a parser plugin that passes ``axis`` on as
    one axis computes something else (``axis-not-flattened``). For each node such a finding
    names this pass for, the input is flattened at the axis the finding gives
    (``Flatten(axis)``: [d0*...*d(a-1), da*...*d(r-1)]), the op runs on the 2-D value with
    ``axis=1``, its last axis, where ONNX and the plugin agree, and the result is reshaped to
    the input's shape (``Shape`` of the input: dynamic dims stay dynamic). Exact: the same
    values are normalized together.
    """

    name = "flatten-softmax-input"
    stage = "repair"
    answers = (FixLink("axis-not-flattened"),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"LogSoftmax", "Softmax", "Hardmax"})
    safe = True
    tolerance = 1e-6
    rtol = 1e-6
    counted = "(Log)Softmax node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str | None:
        found = [f for f in rw.findings_at(site) if isinstance(f.data.get("axis"), int)]
        if not found:
            return None
        x = site.input(0)
        em = Emitter(rw, site)
        flat = em.op("Flatten", [x], axis=found[0].data["axis"])
        y = em.op(site.node.op_type, [flat], axis=1)
        em.op("Reshape", [y, em.op("Shape", [x])], site.output(0))
        return em
