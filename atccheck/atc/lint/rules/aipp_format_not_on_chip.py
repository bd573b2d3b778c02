"""aipp-format-not-on-chip: An AIPP image format or feature the chip's AIPP does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import chip_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippFormatNotOnChip(CommandRule):
    """An AIPP image format or feature the chip's AIPP does not have.

    ## What it does
    With ``--soc_version`` known: the ``input_format`` must be one the chip's AIPP kernel takes
    (Ascend310P: YUV420SP_U8, XRGB8888_U8, RGB888_U8, YUV400_U8 and the NC1HWC0DI formats; the
    910 family: the first four), ``resize`` works on no Ascend chip, and padding limits the output
    width to 1080 on Ascend310/310B/310P/910/910B.

    ## Why
    The AIPP kernel stops ATC with E81012 when it compiles ("Ascend910B only support ...",
    "resize only support Hi3796CV300ES, Hi3796CV300CS and SD3403").

    ## Example
    ``input_format: YUV422SP_U8`` for ``--soc_version=Ascend310P3``; ``resize: true``.

    ## Fix
    Convert the images to a format the chip takes before the model (DVPP or the host), resize
    them there too.

    ## Facts
    ``op_tables/aipp.json`` chip entries (SUPPORT_IMAGE_FORMAT_MAP of the CANN 8.1.RC1 and 2022
    AIPP kernels, per release) and checks ``resize-chips``, ``padding-width``
    (``aipp_comm.py`` 2237-2241, 2343-2350, 2471-2520).
    """

    code = "AC536"
    name = "aipp-format-not-on-chip"
    severity = Severity.ERROR
    atc_error = "E81012"
    stage = "values"
    precedence = 131

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, chip_problems)
