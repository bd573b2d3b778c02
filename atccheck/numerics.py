"""How a rewrite's outputs are judged against the model before it: the comparisons a pass declares.

``atccheck fix`` judges every rewrite this way. A pass declares its comparison
(``FixPass.comparison``): :class:`Allclose` (every element within
``atol + rtol * |old|``, plus a few units in the last place of the dtype) for rewrites that keep
the arithmetic, or :class:`Cosine` (each float output's direction) for a pass that changes
numerics on purpose. Each gives a :class:`Comparison`: whether the outputs pass, and the largest
absolute and relative error. Integer and bool outputs must match exactly; NaN matches NaN only.
Nothing here runs a model (``fixing/runtime.py``) or decides a step's verdict (``fixing/verifier.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

Outputs = dict[str, "np.ndarray"]


@dataclass(frozen=True)
class Comparison:
    """How far a model's outputs are from the reference's, and whether that is within tolerance."""

    ok: bool
    max_abs: float
    max_rel: float
    worst_output: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "max_abs_error": _finite(self.max_abs),
            "max_rel_error": _finite(self.max_rel),
            "worst_output": self.worst_output,
            "reason": self.reason,
        }


def _finite(value: float) -> float | str:
    return value if math.isfinite(value) else "inf"


# Float outputs may also differ by this many units in the last place of their own dtype: a
# rewrite of a float16 model is computed in float32 inside onnxruntime and rounded back, so
# exact rewrites still move float16 results by an ulp or two.
ULPS = 4


def compare(reference: Sequence[Outputs], candidate: Sequence[Outputs], atol: float, rtol: float) -> Comparison:
    """Allclose-style: every element ``|new - old| <= atol + rtol * |old| + ULPS * ulp(old)``;
    NaN matches NaN only."""
    import numpy as np

    max_abs = max_rel = 0.0
    worst: str | None = None
    failed: str | None = None
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            if name not in new_set:
                return Comparison(False, math.inf, math.inf, name, f"output '{name}' is gone")
            new = new_set[name]
            if ref.shape != new.shape:
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has shape {tuple(new.shape)}, was {tuple(ref.shape)}")
            if ref.size == 0:
                continue
            exact = not (np.issubdtype(ref.dtype, np.floating) or np.issubdtype(ref.dtype, np.complexfloating))
            a = ref.astype(np.float64)
            b = new.astype(np.float64)
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            if (nan_a != nan_b).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has NaN where the reference has none, or the reverse")
            inf_a, inf_b = np.isinf(a), np.isinf(b)
            same_inf = inf_a & inf_b & (np.sign(a) == np.sign(b))
            if ((inf_a | inf_b) & ~same_inf).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' is infinite where the reference is not, or the reverse")
            skip = nan_a | same_inf
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.where(skip, 0.0, np.abs(a - b))
                magnitude = np.where(skip, 0.0, np.abs(a))
                err = float(diff.max())
                rel = float((diff / np.maximum(magnitude, np.finfo(np.float32).tiny)).max())
                allowed = 0.0 if exact else atol + rtol * magnitude + ULPS * np.abs(np.spacing(ref)).astype(np.float64)
                beyond = bool((diff > allowed).any())
            if err > max_abs:
                max_abs, worst = err, name
            max_rel = max(max_rel, rel)
            if failed is None and beyond:
                failed = name
    if failed is not None:
        return Comparison(False, max_abs, max_rel, failed, f"output '{failed}' differs beyond the tolerance")
    return Comparison(True, max_abs, max_rel, worst)


def compare_cosine(reference: "Sequence[Outputs]", candidate: "Sequence[Outputs]", minimum: float) -> "Comparison":
    """Each float output's cosine similarity with the reference's must reach ``minimum``.

    For passes that change numerics on purpose (dequantizing an int8 model): the elementwise
    errors are reported too, but the verdict is the direction of each output as a whole.
    Integer and bool outputs must match exactly; NaN or infinity anywhere fails.
    """
    import numpy as np

    loose = compare(reference, candidate, math.inf, math.inf)
    if not loose.ok:  # with infinite tolerances: a missing output, a shape change, NaN or infinity
        return loose
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            new = new_set[name]
            if ref.size == 0:
                continue
            if not np.issubdtype(ref.dtype, np.floating):
                if not np.array_equal(ref, new):
                    return Comparison(False, loose.max_abs, loose.max_rel, name,
                                      f"output '{name}' ({ref.dtype}) changed")
                continue
            a, b = ref.astype(np.float64).ravel(), new.astype(np.float64).ravel()
            norms = float(np.linalg.norm(a) * np.linalg.norm(b))
            cosine = float(a @ b) / norms if norms > 0 else (1.0 if not a.any() and not b.any() else 0.0)
            if cosine < minimum:
                return Comparison(False, loose.max_abs, loose.max_rel, name,
                                  f"output '{name}' has cosine similarity {cosine:.4f} with the model before, below "
                                  f"{minimum:g}")
    return Comparison(True, loose.max_abs, loose.max_rel, loose.worst_output)


@dataclass(frozen=True)
class Allclose:
    """Every output element within ``atol + rtol * |old|`` (allclose-style) of the model before the pass."""

    atol: float = 1e-5
    rtol: float = 1e-5

    def judge(self, reference: Sequence[Outputs], candidate: Sequence[Outputs]) -> Comparison:
        return compare(reference, candidate, self.atol, self.rtol)


@dataclass(frozen=True)
class Cosine:
    """Each float output's cosine similarity with the model before the pass reaches ``minimum``; for a
    pass that changes numerics by design (dequantizing). The report shows no elementwise bound for it
    (``atol`` infinite, ``rtol`` 0): the verdict is the direction of each output as a whole."""

    minimum: float

    atol = math.inf
    rtol = 0.0

    def judge(self, reference: Sequence[Outputs], candidate: Sequence[Outputs]) -> Comparison:
        return compare_cosine(reference, candidate, self.minimum)


Judge = Allclose | Cosine
