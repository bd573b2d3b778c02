"""nhwc-for-onnx: ``--input_format`` other than NCHW, ND or NCDHW for an ONNX model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class NhwcForOnnx(CommandRule):
    """``--input_format`` other than NCHW, ND or NCDHW for an ONNX model.

    ## What it does
    Checks ``--input_format`` against the values ATC accepts for ONNX.

    ## Why
    ATC rejects the value: E10001 "The value must be NCHW, ND or NCDHW in ONNX model." NHWC is
    valid for other frameworks only.

    ## Example
    ``--input_format=NHWC``

    ## Fix
    NCHW for 4-D image inputs, NCDHW for 5-D, ND otherwise (token ids, masks, mixed ranks,
    ``--dynamic_dims``).

    ## Facts
    ``shared/reference/atc_options.json`` ``--input_format``; ``notes/atc_cli.md`` rule 9.
    """

    code = "AC514"
    name = "nhwc-for-onnx"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
    precedence = 60

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        fmt = cmd.last("--input_format")
        if fmt is None or fmt.value is None or fmt.has_expansion:
            return
        allowed = ctx.flags["--input_format"].allowed or ("NCHW", "ND", "NCDHW")
        if fmt.value not in allowed:
            what = "NHWC is rejected for ONNX" if fmt.value.upper() == "NHWC" else f"'{fmt.value}' is not a format"
            ctx.report(cls, "--input_format",
                       f"{what}: ATC accepts only {', '.join(allowed)} for ONNX (\"The value must be NCHW, ND or NCDHW "
                       "in ONNX model.\")", hint="NCHW for 4-D image inputs, NCDHW for 5-D, ND otherwise",
                       atc_error="E10001", source=ctx.flags["--input_format"].source)
