"""aipp-color-mismatch: AIPP color settings that match no documented conversion of the input format."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import color_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippColorMismatch(CommandRule):
    """AIPP color settings that match no documented conversion of the input format.

    ## What it does
    Compares ``csc_switch``, ``rbuv_swap_switch``, ``ax_swap_switch``, the 3x3 matrix and the
    bias of a static ``aipp_op`` with the conversions Huawei documents for its ``input_format``
    (the AIPP color-conversion page and the package's ``conf/aipp`` files: YUV to RGB/BGR per
    video standard, RGB to BGR, gray, ...). Warns when none matches, when CSC is on without the
    full matrix (defaults fill it), and when matrix values are given with CSC off. YUV400_U8 with
    CSC on is an error.

    ## Why
    ATC converts whatever the matrix says: a wrong matrix or swap feeds the network wrongly
    colored pixels (BGR for RGB, YUV for RGB) and the accuracy drops without any error. The
    kernel's defaults for a missing matrix are a YUV-to-BGR matrix, whatever the input format.
    The AIPP kernel refuses CSC on a gray image (E81012).

    ## Example
    ``input_format: RGB888_U8`` with ``csc_switch: true`` and no matrix; ``XRGB8888_U8`` without
    ``ax_swap_switch: true`` (the X byte becomes the first channel).

    ## Fix
    Copy the settings of the documented conversion from the image to the network's color order
    (``docs/atc.md`` explains; ``atccheck atc-cmd --aipp-format`` writes them).

    ## Facts
    ``op_tables/aipp.json`` preset entries (103 documented conversions, from
    ``hicann/ge@ffdcbc9f7:docs/zh/user_guides/atc_tools/AIPP/CSC_config.md`` and
    ``leideng/CANN-8.1.RC1@551ed27c`` ``conf/aipp``), checks ``csc-*`` and ``yuv400-csc``
    (``aipp_comm.py`` 1794-1832, 1972-1977; ``aipp_op.cc`` 48-71, 776-805).
    """

    code = "AC535"
    name = "aipp-color-mismatch"
    severity = Severity.WARNING
    atc_error = None
    stage = "values"
    precedence = 130

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, color_problems)
