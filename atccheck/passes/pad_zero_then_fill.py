"""pad-zero-then-fill: a constant Pad with a non-zero value, as a zero Pad and a Where that puts the value back."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._graph import np_dtype
from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site, Unsupported
from atccheck.passes.base import FixLink, register_pass

# Where and ConstantOfShape exist from opset 9; Pad takes pads and value as inputs from 11
FIRST_OPSET = 11


@register_pass
class PadZeroThenFill(NodeRewrite):
    """Pad with 0, then put the fill value back on the padded border.

    For a constant-mode Pad that a pad-value-not-zero finding names, with a constant fill
    value c (opset 11 on): ``Where(mask, Pad(x, pads, 0), c)``, where ``mask`` is
    ``Pad(ones, pads, 0)`` cast to bool and ``ones`` is ``ConstantOfShape(Shape(x))`` of x's
    type. The pads (and, from opset 18, the axes) are the node's own inputs, so negative pads
    crop both alike. With static shapes the mask folds to a constant in ATC. Exact: each
    element is taken from x or is c, never computed.
    """

    name = "pad-zero-then-fill"
    stage = "repair"
    answers = (FixLink("pad-value-not-zero"),)
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Pad"})
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "Pad node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter:
        import numpy as np
        import onnx
        from onnx import numpy_helper

        if rw.opset < FIRST_OPSET:
            raise Unsupported(f"opset {rw.opset} keeps pads in attributes (opset {FIRST_OPSET} on is handled)")
        x = site.input(0)
        elem = rw.elem_type(x)
        if elem is None:
            raise Unsupported(f"the element type of '{x}' is unknown")
        if np_dtype(elem) == np.dtype(object):
            raise Unsupported(f"'{x}' holds text (STRING): there is no zero of text to pad with")
        value = rw.const_value(site.input(2))
        if value is None or value.size != 1:
            raise Unsupported("its fill value is not a constant scalar")
        tail = [site.input(3)] if site.input(3) else []  # the axes input (opset 18)
        em = Emitter(rw, site)
        zero = em.const(np.zeros((), dtype=np_dtype(elem)), "zero")
        padded = em.op("Pad", [x, site.input(1), zero, *tail], mode="constant")
        ones = em.op("ConstantOfShape", [em.op("Shape", [x])],
                     value=numpy_helper.from_array(np.ones(1, dtype=np_dtype(elem))))
        inside = em.op("Cast", [em.op("Pad", [ones, site.input(1), zero, *tail], mode="constant")],
                       to=onnx.TensorProto.BOOL)
        fill = em.const(value.reshape(()).astype(np_dtype(elem)), "fill")
        em.op("Where", [inside, padded, fill], site.output(0))
        return em
