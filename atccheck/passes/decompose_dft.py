"""decompose-dft: DFT (opsets 17 and 20) into a MatMul with a DFT basis."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._graph import np_dtype
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

MAX_BASIS_ELEMENTS = 1 << 24
AXIS_AS_INPUT = 20  # DFT-20 reads the axis from its third input (default -2), DFT-17 from an attribute (default 1)


@register_pass
class DecomposeDft(Decomposition):
    """Rewrite DFT as one MatMul of the signal by a constant DFT basis.

    No CANN profile registers DFT. The signal axis (``axis``: attribute, default 1, at
    opset 17; input, default -2, from 20) is moved next to the last axis, which holds
    1 (real) or 2 (complex: real, imaginary) components; the two are flattened and multiplied
    by a constant [N * components, 2 * bins] basis whose columns are the real parts of bins
    0..bins-1, then the imaginary parts (``e^(-2 pi i k n / N)``; ``inverse`` uses
    ``e^(+2 pi i k n / N) / N``); the product is reshaped to [..., bins, 2] and the axis moved
    back. ``onesided`` keeps bins 0..N/2 (real forward transforms only). ``dft_length`` other
    than the signal length zero-pads or cuts the signal first. Needs the signal length, the
    rank, and ``dft_length`` and the axis as constants. Exact up to float rounding
    (tolerance as decompose-stft: onnxruntime's own error).
    """

    name = "decompose-dft"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "DFT"),
        FixLink("opset-not-registered", "DFT", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"DFT"})
    safe = True
    tolerance = 5e-3
    rtol = 1e-3
    counted = "DFT node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        x = site.input(0)
        elem = rw.float_type(x)
        info = rw.info(x)
        if info is None or info.shape is None or len(info.shape) < 2 or info.shape[-1] not in (1, 2):
            return "the input must be [..., signal, 1 or 2] with its rank and last axis known"
        rank, parts = len(info.shape), int(info.shape[-1])
        if rw.opset >= AXIS_AS_INPUT:
            axis_value = rw.const_value(site.input(2)) if site.input(2) else np.array(-2)
            if axis_value is None:
                return "the axis is computed at run time"
            axis = int(np.asarray(axis_value).reshape(-1)[0])
        else:
            axis = int(site.attr("axis", 1))
        axis %= rank
        if axis == rank - 1:
            return "the axis is the components axis"
        size = info.shape[axis]
        if not isinstance(size, int):
            return "the signal length must be static"
        length = size
        if site.input(1):
            value = rw.const_value(site.input(1))
            if value is None:
                return "dft_length is computed at run time"
            length = int(np.asarray(value).reshape(-1)[0])
        inverse, onesided = bool(site.attr("inverse", 0)), bool(site.attr("onesided", 0))
        if onesided and (inverse or parts == 2):
            return "onesided applies to real forward transforms only"
        bins = length // 2 + 1 if onesided else length
        if 2 * bins * parts * length > MAX_BASIS_ELEMENTS:
            return f"the DFT basis would hold {2 * bins * parts * length} values"
        em = Emitter(rw, site)
        order = [a for a in range(rank - 1) if a != axis] + [axis, rank - 1]
        signal = em.transpose(x, order)  # ..., N, parts
        if length < size:
            signal = em.slice(signal, [0], [length], [rank - 2])
        elif length > size:
            signal = em.pad(signal, [0] * rank + [0] * (rank - 2) + [length - size, 0])
        flat = em.reshape(signal, [0] * (rank - 2) + [length * parts])
        basis = em.const(dft_basis(length, bins, parts, inverse).astype(np_dtype(elem)), "dft_basis")
        spectrum = em.reshape(em.op("MatMul", [flat, basis]), [0] * (rank - 2) + [2, bins])
        spectrum = em.transpose(spectrum, list(range(rank - 2)) + [rank - 1, rank - 2])  # ..., bins, 2
        back = [0] * rank
        for position, source in enumerate(order):
            back[source] = position
        em.transpose(spectrum, back, out=site.output(0))
        return em


def dft_basis(length: int, bins: int, parts: int, inverse: bool):
    """[length * parts, 2 * bins]: row n * parts + c (component c of sample n), columns the real
    parts of the bins then the imaginary parts."""
    import numpy as np

    angle = 2.0 * np.pi * np.outer(np.arange(length), np.arange(bins)) / length
    sign = 1.0 if inverse else -1.0
    cos, sin = np.cos(angle), sign * np.sin(angle)  # e^(sign i angle) = cos + i sin
    if parts == 1:  # x real: (x cos) + i (x sin)
        basis = np.concatenate([cos, sin], axis=1)
    else:  # (a + i b)(cos + i sin) = (a cos - b sin) + i (a sin + b cos)
        basis = np.empty((2 * length, 2 * bins))
        basis[0::2] = np.concatenate([cos, sin], axis=1)
        basis[1::2] = np.concatenate([-sin, cos], axis=1)
    return basis / length if inverse else basis
