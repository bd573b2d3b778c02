"""aipp-param-invalid: An ``aipp_op`` block that GE's AIPP parameter validation refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import param_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippParamInvalid(CommandRule):
    """An ``aipp_op`` block that GE's AIPP parameter validation refuses.

    ## What it does
    Checks each ``aipp_op`` as GE's ``AippOp::ValidateParams`` does: ``aipp_mode`` static or
    dynamic; a static block has an ``input_format``, a dynamic one ``max_src_image_size > 0``;
    a matrix, bias or ``var_reci_chn`` value given once; sizes and positions not negative. A
    file without any ``aipp_op`` is a warning: ATC converts without AIPP.

    ## Why
    ATC stops with E10052 "AIPP configuration is invalid. Reason: ..." while it prepares the
    graph, after parsing the model.

    ## Example
    A block without ``aipp_mode``; ``var_reci_chn_0`` written twice; ``crop_size_w: -8``.

    ## Fix
    Set ``aipp_mode``; give each parameter once; use sizes of 0 or more.

    ## Facts
    ``op_tables/aipp.json`` check entries (topic ``param``) from
    ``hicann/ge@ffdcbc9f7:compiler/graph/preprocess/insert_op/aipp_op.cc`` 690-770 and
    ``insert_aipp_op_util.cc``; ``input_edge_idx`` given twice is refused by the 2022 GE
    (``mindspore-ai/graphengine@12e7b59b``) only.
    """

    code = "AC530"
    name = "aipp-param-invalid"
    severity = Severity.ERROR
    atc_error = "E10052"
    stage = "values"
    precedence = 126

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        profile = ctx.profile.id if ctx.profile is not None else None
        aipp_problems(cls, ctx, lambda config, facts: param_problems(config, facts, profile),
                      needs_target=False)
