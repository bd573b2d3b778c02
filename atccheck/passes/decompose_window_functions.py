"""decompose-window-functions: HannWindow/HammingWindow/BlackmanWindow of a constant size into a constant."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._graph import np_dtype
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

# Cosine-sum coefficients a_k of w[n] = sum_k (-1)^k a_k cos(2 pi k n / N) (the ONNX function bodies).
COEFFICIENTS = {
    "HannWindow": (0.5, 0.5),
    "HammingWindow": (25.0 / 46.0, 21.0 / 46.0),
    "BlackmanWindow": (0.42, 0.5, 0.08),
}
MAX_WINDOW = 1 << 20


@register_pass
class DecomposeWindowFunctions(Decomposition):
    """Replace HannWindow, HammingWindow and BlackmanWindow of a constant size by the constant window.

    No CANN profile registers these opset-17 ops; audio exports write them to build the
    STFT window, whose size is a constant. The ONNX definitions are cosine sums over
    ``N = size`` (``periodic`` 1) or ``size - 1`` (0): Hann ``0.5 - 0.5 cos(2 pi n / N)``,
    Hamming ``25/46 - 21/46 cos(2 pi n / N)``, Blackman ``0.42 - 0.5 cos(2 pi n / N) + 0.08
    cos(4 pi n / N)``, computed in float64 and stored in ``output_datatype``. Once the window
    is a constant, decompose-stft can build its DFT basis. Left with a note: a size computed
    at run time. Exact up to float rounding.
    """

    name = "decompose-window-functions"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "HannWindow"),
        FixLink("unsupported-op", "HammingWindow"),
        FixLink("unsupported-op", "BlackmanWindow"),
        FixLink("opset-not-registered", "BlackmanWindow", named=False),
        FixLink("opset-not-registered", "HammingWindow", named=False),
        FixLink("opset-not-registered", "HannWindow", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset(COEFFICIENTS)
    safe = True
    tolerance = 1e-6
    rtol = 1e-6
    counted = "window node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        size = rw.const_value(site.input(0))
        if size is None:
            return "its size is computed at run time"
        count = int(np.asarray(size).reshape(-1)[0])
        if not 0 <= count <= MAX_WINDOW:
            return f"a window of {count} values"
        span = count if site.attr("periodic", 1) else count - 1
        n = np.arange(count, dtype=np.float64)
        window = np.zeros(count)
        for k, a in enumerate(COEFFICIENTS[site.node.op_type]):
            angle = 2.0 * np.pi * k * n / span if span > 0 else np.zeros(count)
            window += (-1) ** k * a * np.cos(angle)
        from onnx import numpy_helper

        em = Emitter(rw, site)
        values = window.astype(np_dtype(int(site.attr("output_datatype", 1))))
        if site.output(0) in {o.name for o in site.graph.output}:
            em.op("Identity", [em.const(values, "window")], site.output(0))
        else:  # the output itself becomes the constant, so later passes read it as one
            em.initializers.append(numpy_helper.from_array(values, site.output(0)))
        self.replaced.append(site.input(0))
        return em
