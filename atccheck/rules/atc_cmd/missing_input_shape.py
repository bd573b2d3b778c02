"""missing-input-shape: A model input with symbolic dims that ``--input_shape`` does not set."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class MissingInputShape(CommandRule):
    """A model input with symbolic dims that ``--input_shape`` does not set.

    ## What it does
    With a model, lists each input whose shape holds a symbolic or missing dim (ATC reads -1) and
    that ``--input_shape`` leaves out.

    ## Why
    ATC stops with E10001 "The shapes of inputs contain -1 in the model. You may need to set
    input shape...".

    ## Example
    A model whose input ``tokens`` is ``[batch, seq]`` converted without
    ``--input_shape="tokens:1,128"``.

    ## Fix
    Add the input to ``--input_shape`` with its sizes (-1 on gear axes, with a gear option).

    ## Facts
    ``notes/atc_cli.md`` rule 11; ``hicann/ge@ffdcbc9f7:api/atc/omg.cc`` (CheckInputShapeNode).
    """

    code = "AC517"
    name = "missing-input-shape"
    severity = Severity.ERROR
    atc_error = "E10001"
    stage = "values"
