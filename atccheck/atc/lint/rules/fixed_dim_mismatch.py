"""fixed-dim-mismatch: An ``--input_shape`` size for a dim that the model fixes at another size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.model.input_shape import FIXED_DIM_ADVICE
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class FixedDimMismatch(CommandRule):
    """An ``--input_shape`` size for a dim that the model fixes at another size.

    ## What it does
    With a model, compares each size an ``--input_shape`` entry gives with the named input's
    dims: where the model stores a fixed size (a ``dim_value``), the entry must give that size,
    or -1 (a gear axis, or a dynamic dim). Symbolic dims take any size. ``atccheck check``,
    ``fix`` and ``atc-cmd`` refuse the same shape as an option (exit 2); here it is a finding.

    ## Why
    ATC's ONNX parser does not compare the two: it replaces the model input's dims with the
    ones given (only the rank must match, E10049), so ATC builds the graph at a shape the
    exporter never traced. The op whose weights or constants carry the fixed size then breaks
    (a Conv whose weights take 3 channels, fed 4), with a code of that op's own: which one is
    not known in general, so the finding names none.

    ## Example
    A YOLOv8 export with input ``images`` fixed at ``[1,3,640,640]`` and
    ``--input_shape="images:1,4,320,320"``.

    ## Fix
    Give the model's size for that dim, or re-export the model with the dim dynamic. To vary a
    dim with gears, write -1 there with a gear option: ``atccheck check`` then checks every
    gear's shapes through the graph.

    ## Facts
    ``hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_data_parser.cc`` ``ParseInputFromUser`` (the
    user's dims replace the model's after a rank comparison only).
    """

    code = "AC542"
    name = "fixed-dim-mismatch"
    severity = Severity.ERROR
    atc_error = None
    stage = "values"
    precedence = 93

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        for problem in ctx.input_shape.names:
            if problem.kind == "input-fixed-dim":
                ctx.report_problem(cls, problem, FIXED_DIM_ADVICE)
