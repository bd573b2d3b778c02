"""aipp-value-out-of-range: An AIPP value outside the range the AIPP kernel accepts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import value_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippValueOutOfRange(CommandRule):
    """An AIPP value outside the range the AIPP kernel accepts.

    ## What it does
    Compares each value of a static ``aipp_op`` with the AIPP kernel's ranges: ``mean_chn`` and
    ``min_chn`` 0-255, ``var_reci_chn`` ±65504, source sizes up to 4096, matrix entries int16 and
    biases 0-255 (with ``csc_switch`` on), paddings up to 32. ``raw_rgbir_to_f16_n``, which
    this version does not support, is a warning.

    ## Why
    The kernel checks them when it compiles and stops ATC with E81012 ("Compile op[aipp]
    failed, cause: ... should be within ..."), late in the conversion.

    ## Example
    ``mean_chn_0: 300``; ``min_chn_1: -0.5``; ``left_padding_size: 40``.

    ## Fix
    Keep the values in range: a mean above 255 or a negative one usually means the values were
    for another pixel scale.

    ## Facts
    ``op_tables/aipp.json`` range entries and check ``padding-max`` from the CANN 8.1.RC1 AIPP
    kernel (``leideng/CANN-8.1.RC1@551ed27c`` ``tbe/impl/aipp_comm.py`` 2372-2383, 2589-2722);
    E81012 is the kernel's own code (not in the error catalogue).
    """

    code = "AC531"
    name = "aipp-value-out-of-range"
    severity = Severity.ERROR
    atc_error = "E81012"
    stage = "values"
    precedence = 129

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, value_problems, needs_target=False)
