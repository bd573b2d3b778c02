"""aipp-size-mismatch: AIPP's crop, padding or source size does not come to the model input's H and W."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import size_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippSizeMismatch(CommandRule):
    """AIPP's crop, padding or source size does not come to the model input's H and W.

    ## What it does
    For static AIPP and an input with a static H and W: the crop must lie inside the source image
    (``load_start_pos + crop_size <= src_image_size``), crop, resize and padding need the source
    size, and AIPP's output (the crop or resize size, else the source size, plus the paddings)
    must equal the input's H and W. YUV420SP_U8 needs even sizes, and even crop positions on
    chips that cannot crop at odd ones.

    ## Why
    The Aipp op's shape inference fails when its output differs from the input's size (no
    catalogued code); the AIPP kernel stops the other cases with E81012 when it compiles.

    ## Example
    A 224x224 input with ``src_image_size_w: 256`` and neither crop nor padding; ``crop: true``
    with ``load_start_pos_w: 100``, ``crop_size_w: 224`` from a 256-wide source.

    ## Fix
    Make ``src_image_size`` the image's size and crop/pad it to the input's H and W.

    ## Facts
    ``op_tables/aipp.json`` checks of topic ``size``: the Aipp op's shape inference
    (``dengguojie/vue-element-admin@7d77ce32d:ops/built-in/op_proto/aipp.cc`` 267-292, 947-960)
    and the CANN 8.1.RC1 kernel (``aipp_comm.py`` 2070-2213, 2522-2626).
    """

    code = "AC533"
    name = "aipp-size-mismatch"
    severity = Severity.ERROR
    atc_error = None
    stage = "values"
    precedence = 128

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, size_problems)
