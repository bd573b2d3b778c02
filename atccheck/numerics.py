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
    # The figure the verdict rests on and its bound, so a report can say by how much a step
    # passed or failed: for ``allclose``, the error of the element nearest to (or furthest past)
    # its allowance and that allowance; for ``cosine``, the lowest cosine similarity and the
    # threshold; for ``rounding``, the largest difference of a rewritten value and its derived
    # float rounding bound (``RoundingBound``).
    method: str | None = None
    measured: float | None = None
    bound: float | None = None
    cosines: dict[str, float] | None = None  # per float output, when computed
    rounding: "RoundingBound | None" = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "max_abs_error": _finite(self.max_abs),
            "max_rel_error": _finite(self.max_rel),
            "worst_output": self.worst_output,
            "reason": self.reason,
            **self.basis(),
        }

    def basis(self) -> dict[str, Any]:
        """What the verdict rests on, as JSON: the method, the measured figure and its bound."""
        out: dict[str, Any] = {"method": self.method,
                               "measured": _finite(self.measured) if self.measured is not None else None,
                               "bound": _finite(self.bound) if self.bound is not None else None}
        if self.cosines is not None:
            out["cosine"] = {k: round(v, 6) for k, v in self.cosines.items()}
        if self.rounding is not None:
            out["rounding"] = self.rounding.to_dict()
        return out


@dataclass(frozen=True)
class RoundingBound:
    """The float rounding bound of a mathematically exact rewrite, at the values it rewrote.

    Two orders of the same arithmetic on ``terms`` rounded operations, each term at most
    ``magnitude``, differ by at most ``2 * gamma(terms) * magnitude`` (each order is within
    ``gamma(terms) * magnitude`` of the exact result; Higham, *Accuracy and Stability of
    Numerical Algorithms*, 3.1), with ``gamma(n) = n u / (1 - n u)`` and ``u`` the unit
    roundoff of the dtype (2^-24 for float32).
    """

    values: tuple[str, ...]  # the rewritten values compared (graph values both models compute)
    terms: int
    magnitude: float
    unit_roundoff: float
    measured: float  # the largest difference among those values
    bound: float

    def to_dict(self) -> dict[str, Any]:
        return {"values": list(self.values), "terms": self.terms, "magnitude": _finite(self.magnitude),
                "unit_roundoff": self.unit_roundoff, "measured": _finite(self.measured), "bound": _finite(self.bound)}


def gamma(terms: int, unit_roundoff: float) -> float:
    """Higham's gamma_n: the relative error bound of ``terms`` rounded operations in a row."""
    nu = terms * unit_roundoff
    return nu / (1.0 - nu) if nu < 1.0 else math.inf


def unit_roundoff(dtype: Any) -> float:
    """Half the machine epsilon of a float dtype (2^-24 for float32), 0 for exact dtypes."""
    import numpy as np

    if not np.issubdtype(dtype, np.floating):
        return 0.0
    return float(np.finfo(dtype).eps) / 2.0


def _finite(value: float) -> float | str:
    return value if math.isfinite(value) else "inf"


# Float outputs may also differ by this many units in the last place of their own dtype: a
# rewrite of a float16 model is computed in float32 inside onnxruntime and rounded back, so
# exact rewrites still move float16 results by an ulp or two.
ULPS = 4


def compare(reference: Sequence[Outputs], candidate: Sequence[Outputs], atol: float, rtol: float) -> Comparison:
    """Allclose-style: every element ``|new - old| <= atol + rtol * |old| + ULPS * ulp(old)``;
    NaN matches NaN only. ``measured`` / ``bound`` are the error and the allowance of the element
    that comes nearest to its allowance (or goes furthest past it)."""
    import numpy as np

    max_abs = max_rel = 0.0
    worst: str | None = None
    failed: str | None = None
    measured = bound = 0.0
    ratio_worst = -1.0
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            if name not in new_set:
                return Comparison(False, math.inf, math.inf, name, f"output '{name}' is gone", "allclose")
            new = new_set[name]
            if ref.shape != new.shape:
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has shape {tuple(new.shape)}, was {tuple(ref.shape)}", "allclose")
            if ref.size == 0:
                continue
            exact = not (np.issubdtype(ref.dtype, np.floating) or np.issubdtype(ref.dtype, np.complexfloating))
            a = ref.astype(np.float64)
            b = new.astype(np.float64)
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            if (nan_a != nan_b).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has NaN where the reference has none, or the reverse", "allclose")
            inf_a, inf_b = np.isinf(a), np.isinf(b)
            same_inf = inf_a & inf_b & (np.sign(a) == np.sign(b))
            if ((inf_a | inf_b) & ~same_inf).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' is infinite where the reference is not, or the reverse", "allclose")
            skip = nan_a | same_inf
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                diff = np.where(skip, 0.0, np.abs(a - b))
                magnitude = np.where(skip, 0.0, np.abs(a))
                err = float(diff.max())
                rel = float((diff / np.maximum(magnitude, np.finfo(np.float32).tiny)).max())
                allowed = (np.zeros_like(diff) if exact
                           else atol + rtol * magnitude + ULPS * np.abs(np.spacing(ref)).astype(np.float64))
                beyond = bool((diff > allowed).any())
                ratio = np.where(diff > 0, diff / allowed, 0.0)  # inf where nothing is allowed
                at = int(np.argmax(ratio))
                if float(ratio.flat[at]) > ratio_worst:
                    ratio_worst = float(ratio.flat[at])
                    measured, bound = float(diff.flat[at]), float(np.broadcast_to(allowed, diff.shape).flat[at])
            if err > max_abs:
                max_abs, worst = err, name
            max_rel = max(max_rel, rel)
            if failed is None and beyond:
                failed = name
    if failed is not None:
        return Comparison(False, max_abs, max_rel, failed, f"output '{failed}' differs beyond the tolerance",
                          "allclose", measured, bound)
    return Comparison(True, max_abs, max_rel, worst, None, "allclose", measured, bound)


def cosine_similarities(reference: "Sequence[Outputs]", candidate: "Sequence[Outputs]") -> dict[str, float]:
    """The cosine similarity of each float output with the reference's, the lowest over the input sets."""
    import numpy as np

    out: dict[str, float] = {}
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            new = new_set.get(name)
            if new is None or ref.size == 0 or ref.shape != new.shape or not np.issubdtype(ref.dtype, np.floating):
                continue
            a, b = ref.astype(np.float64).ravel(), new.astype(np.float64).ravel()
            if not (np.isfinite(a).all() and np.isfinite(b).all()):
                continue
            norms = float(np.linalg.norm(a) * np.linalg.norm(b))
            cosine = float(a @ b) / norms if norms > 0 else (1.0 if not a.any() and not b.any() else 0.0)
            out[name] = min(out.get(name, math.inf), cosine)
    return out


def compare_cosine(reference: "Sequence[Outputs]", candidate: "Sequence[Outputs]", minimum: float) -> "Comparison":
    """Each float output's cosine similarity with the reference's must reach ``minimum``.

    For passes that change numerics on purpose (dequantizing an int8 model): the elementwise
    errors are reported too, but the verdict is the direction of each output as a whole.
    Integer and bool outputs must match exactly; NaN or infinity anywhere fails.
    """
    import numpy as np

    loose = compare(reference, candidate, math.inf, math.inf)
    if not loose.ok:  # with infinite tolerances: a missing output, a shape change, NaN or infinity
        changed = _integer_change(reference, candidate)
        return loose if changed is None else Comparison(False, loose.max_abs, loose.max_rel, *changed)
    cosines = cosine_similarities(reference, candidate)
    lowest = min(cosines.values()) if cosines else None
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            new = new_set[name]
            if ref.size and not np.issubdtype(ref.dtype, np.floating) and not np.array_equal(ref, new):
                return Comparison(False, loose.max_abs, loose.max_rel, name, f"output '{name}' ({ref.dtype}) changed",
                                  "cosine", lowest, minimum, cosines)
    below = next((name for name, value in cosines.items() if value < minimum), None)
    if below is not None:
        return Comparison(False, loose.max_abs, loose.max_rel, below,
                          f"output '{below}' has cosine similarity {cosines[below]:.4f} with the model before, below "
                          f"{minimum:g}", "cosine", cosines[below], minimum, cosines)
    return Comparison(True, loose.max_abs, loose.max_rel, loose.worst_output, None, "cosine", lowest, minimum, cosines)


def _integer_change(reference: Sequence[Outputs], candidate: Sequence[Outputs]) -> tuple[str, str] | None:
    """The first integer output of the same shape whose values changed: its name, and by how much."""
    import numpy as np

    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            new = new_set.get(name)
            if new is None or ref.shape != new.shape or not np.issubdtype(ref.dtype, np.integer):
                continue
            if not np.array_equal(ref, new):
                differ = int((ref != new).sum())
                step = int(np.abs(ref.astype(np.int64) - new.astype(np.int64)).max())
                return name, (f"output '{name}' ({ref.dtype}) changed: {differ:,} of {ref.size:,} elements differ, by "
                              f"at most {step} (integer outputs must match exactly)")
    return None


@dataclass(frozen=True)
class Allclose:
    """Every output element within ``atol + rtol * |old|`` (allclose-style) of the model before the pass.

    ``exact``: the rewrite is mathematically exact (a safe pass), so outputs beyond the tolerance
    are judged again where it rewrote, against the float rounding bound of its arithmetic
    (``atccheck.fixing.rounding``): the nodes after a rewrite may magnify a rounding difference
    past any constant tolerance.
    """

    atol: float = 1e-5
    rtol: float = 1e-5
    exact: bool = False

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
