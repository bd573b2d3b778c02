"""nhwc-for-onnx: ``--input_format`` other than NCHW, ND or NCDHW for an ONNX model."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


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
