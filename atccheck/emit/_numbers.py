"""The numbers a fix step was judged by, in words: shared by the text and HTML reports of ``fix``.

Each says the method (elementwise tolerance, cosine similarity, or the float rounding bound of
an exact rewrite), the figure the verdict rests on and its bound, so that a reverted step says
by how much it failed and an applied one by how much it held. The JSON report carries the same
figures (``judged_by`` of a pass, ``cosine`` / ``cosine_threshold`` of the verification).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.fixing.outcome import PassOutcome, Verification
    from atccheck.numerics import RoundingBound

DTYPE_BY_ROUNDOFF = {2.0**-24: "float32", 2.0**-11: "float16", 2.0**-53: "float64", 2.0**-8: "bfloat16"}


def num(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3g}" if math.isfinite(value) else "inf"


def tolerance_text(atol: float | None, rtol: float | None) -> str:
    if not atol and not rtol:
        from atccheck.numerics import ULPS

        return f"exact up to {ULPS} ulps"
    return f"{atol or 0:g} + {rtol or 0:g}*|x|"


def cosines_text(cosines: dict[str, float], threshold: float | None) -> str:
    shown = ", ".join(f"{name} {value:.6f}" for name, value in list(cosines.items())[:6])
    more = f" (+{len(cosines) - 6} more)" if len(cosines) > 6 else ""
    return f"cosine {shown}{more}" + (f" (threshold {threshold:g})" if threshold is not None else "")


def rounding_text(r: "RoundingBound") -> str:
    dtype = DTYPE_BY_ROUNDOFF.get(r.unit_roundoff, "float")
    values = ", ".join(r.values[:3]) + (" ..." if len(r.values) > 3 else "")
    return (f"rewritten values ({values}) differ by {num(r.measured)}, {dtype} rounding bound {num(r.bound)} "
            f"(2*gamma({r.terms})*{num(r.magnitude)}: {r.terms} rounding(s), magnitude {num(r.magnitude)})")


def pass_numbers(p: "PassOutcome") -> str:
    """One line: what the step's outputs were judged by, the figure and the bound."""
    c = p.comparison
    errors = f"max abs err {num(p.max_abs_error)}, rel {num(p.max_rel_error)}"
    if c is None or c.method is None:
        return errors if p.max_abs_error is not None else ""
    if c.method == "cosine":
        return (cosines_text(c.cosines or {}, c.bound) if c.cosines else f"cosine threshold {c.bound:g}") \
            + f"; {errors}"
    tolerance = tolerance_text(p.tolerance, p.rtol)
    if c.method == "rounding" and c.rounding is not None:
        verdict = "within" if c.ok else "beyond"
        return (f"{errors}, beyond {tolerance} at the outputs; {rounding_text(c.rounding)}: {verdict} the bound")
    if c.ok:
        return f"{errors} (tolerance {tolerance})"
    if c.measured is None or c.bound is None:
        return f"{errors} (tolerance {tolerance})"
    times = c.measured / c.bound if c.bound > 0 else math.inf
    return (f"{errors}; worst element off by {num(c.measured)} where {num(c.bound)} is allowed "
            f"({tolerance}): {num(times)}x the bound")


def verification_numbers(v: "Verification") -> str:
    """The final model against the original, as the verification line shows it."""
    if v.max_abs_error is None:
        return ""
    errors = f"max abs error against the original {num(v.max_abs_error)}, rel {num(v.max_rel_error)}"
    if v.cosines:
        return f"{cosines_text(v.cosines, v.cosine_threshold)}; {errors}"
    return errors
