"""decompose-gelu: ONNX Gelu (opset 20) into Erf or Tanh arithmetic every profile registers."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._formulas import gelu_erf, gelu_tanh
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass


@register_pass
class DecomposeGelu(Decomposition):
    """Rewrite Gelu as its defining formula.

    Applies to every standard-domain ``Gelu`` node the target profile does not register at
    the model opset (no CANN profile registers Gelu at all), or that a finding names this
    pass for. ``approximate="none"`` becomes ``0.5 * x * (1 + Erf(x / sqrt(2)))`` and
    ``approximate="tanh"`` becomes ``0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 x^3)))``,
    the two function bodies of the ONNX Gelu-20 definition, with constants in the input's
    float type. Exact up to float rounding. Other ``approximate`` values are left untouched.
    """

    name = "decompose-gelu"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "Gelu"),
        FixLink("opset-not-registered", "Gelu", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"Gelu"})
    safe = True
    tolerance = 1e-5
    counted = "Gelu node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        approximate = site.attr("approximate", "none")
        if approximate not in ("none", "tanh"):
            return f"approximate='{approximate}' is not a Gelu-20 mode"
        x, y = site.input(0), site.output(0)
        elem = rw.float_type(x)
        em = Emitter(rw, site)
        (gelu_tanh if approximate == "tanh" else gelu_erf)(em, x, elem, out=y)
        return em
