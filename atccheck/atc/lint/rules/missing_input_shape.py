"""missing-input-shape: A model input with symbolic dims that ``--input_shape`` does not set."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.model.input_shape import model_inputs
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


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
    precedence = 93

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        reading = ctx.input_shape
        if not reading.settled or ctx.model is None or (reading.occurrence is not None
                                                        and reading.occurrence.has_expansion):
            return
        entries = reading.entries
        given = {e.name for e in entries}
        for item in model_inputs(ctx.model):
            if item.is_dynamic and item.name not in given and (not entries or entries[0].name is not None):
                dims = ",".join(str(d) for d in item.atc_dims)
                ctx.report(cls, "--input_shape",
                           f"input '{item.name}' has symbolic dims ({dims} to ATC) and --input_shape does not set it: "
                           "\"The shapes of inputs contain -1 in the model\"",
                           hint=f"add '{item.name}:<dims>' to --input_shape", atc_error="E10001",
                           source="hicann/ge@ffdcbc9f7:api/atc/omg.cc (CheckInputShapeNode)",
                           data={"input": item.name, "dims": list(item.atc_dims)})
