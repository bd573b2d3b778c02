"""precision-mode-conflict: Both precision flags, or a precision value the chip does not have."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class PrecisionModeConflict(CommandRule):
    """Both precision flags, or a precision value the chip does not have.

    ## What it does
    Reports ``--precision_mode`` and ``--precision_mode_v2`` given together, and, with a chip, a
    bf16 mode on a chip without bf16 or a hif8 mode outside Ascend 950.

    ## Why
    The two flags exclude each other: E10056 "Cannot configure both parameters". A bf16 or hif8
    mode needs the chip's support; the error code ATC prints for it is not in the catalogue.

    ## Example
    ``--precision_mode=force_fp32 --precision_mode_v2=origin``;
    ``--precision_mode_v2=mixed_bfloat16`` for Ascend310P3.

    ## Fix
    Keep one precision flag (``--precision_mode_v2`` where the release has it); use a fp16 or
    fp32 mode on chips without bf16.

    ## Facts
    ``shared/reference/atc_options.json`` ``mutual_exclusion_groups`` and ``--precision_mode_v2``;
    ``atc_error_codes.json`` E10056.
    """

    code = "AC521"
    name = "precision-mode-conflict"
    severity = Severity.ERROR
    atc_error = "E10056"
    stage = "values"
