"""precision-mode-conflict: Both precision flags, or a precision value the chip does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.facts import OPTIONS_TABLE
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


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
    precedence = 100

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        v1 = cmd.last("--precision_mode")
        v2 = cmd.last("--precision_mode_v2")
        if v1 is not None and v2 is not None:
            ctx.report(cls, "--precision_mode_v2",
                       "--precision_mode and --precision_mode_v2 are both set: \"Cannot configure both parameters\"",
                       hint="keep one (prefer --precision_mode_v2 where the release has it)", atc_error="E10056",
                       source="shared/reference/atc_options.json mutual_exclusion_groups")
        soc, extra = ctx.soc, ctx.tables.atc_options_extra
        if soc is None:
            return
        bf16 = set(extra.get("precision_bf16_values", ()))
        hif8 = set(extra.get("precision_hif8_values", ()))
        for occurrence in (v1, v2):
            if occurrence is None or occurrence.value is None:
                continue
            if occurrence.value in bf16 and not soc.bf16_precision:
                ctx.report(cls, occurrence.flag,
                           f"{occurrence.value} needs bf16 support, which {soc.name} lacks (bf16 modes: Atlas A2/A3, "
                           "310B, 950); the ATC error code for it is not catalogued", hint="use a fp16 or fp32 mode",
                           atc_error=None, source=extra.get("precision_source", OPTIONS_TABLE))
            elif occurrence.value in hif8:
                ctx.report(cls, occurrence.flag,
                           f"{occurrence.value} exists only on Ascend 950 chips, not on {soc.name}",
                           hint="use a fp16 or fp32 mode", atc_error=None,
                           source=extra.get("precision_source", OPTIONS_TABLE))
