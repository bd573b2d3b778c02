"""aipp-input-mismatch: An ``aipp_op`` aimed at no input, at one input twice, or at an input AIPP cannot feed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.aipp import input_problems
from atccheck.atc.lint.files import aipp_problems
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class AippInputMismatch(CommandRule):
    """An ``aipp_op`` aimed at no input, at one input twice, or at an input AIPP cannot feed.

    ## What it does
    With the model: ``related_input_rank`` must count an existing input (graph inputs without an
    initializer, from 0), no two blocks may name the same input, ``related_input_name`` does not
    work for ONNX, ``input_edge_idx`` must count an existing edge (CANN 5.x/6.0; the 9.x graph
    engine ignores it, a warning). The input must be 4-D for static AIPP (3-D or 4-D for
    dynamic), with at most 16 channels and, as a warning, a channel count the documented
    conversions of its ``input_format`` give (3 for RGB, 1 for gray, 4 with alpha).

    ## Why
    ATC stops with E10052 ("Cannot find the data node by aipp parameter related_input_rank",
    "Cannot insert aipp to the same position"), E19999 for an edge beyond the input's, E10001
    for a dynamic input of another rank, E81012 for more than 16 channels, and without a
    catalogued code when shape inference meets a non-4-D input. A channel count the image cannot
    fill converts, but those channels get no image data.

    ## Example
    ``related_input_rank: 1`` on a one-input model; RGB888_U8 feeding a 1-channel input with no
    gray conversion.

    ## Fix
    Point ``related_input_rank`` at the image input; pick the ``input_format`` (and conversion)
    that gives the input's channels.

    ## Facts
    ``op_tables/aipp.json`` checks of topic ``input`` (``hicann/ge@ffdcbc9f7``
    ``aipp_op.cc`` 113-153, 466-598, ``insert_aipp_op_util.cc`` 136-223; the 2022 GE's
    ``ge_aipp_op.cc`` 390-402; the kernel's ``aipp_comm.py`` 2007-2019; the Aipp op's shape
    inference in canndev ``op_proto/aipp.cc``) and format entries (documented conversions).
    """

    code = "AC532"
    name = "aipp-input-mismatch"
    severity = Severity.ERROR
    atc_error = "E10052"
    stage = "values"
    precedence = 127

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        aipp_problems(cls, ctx, input_problems)
