"""wrong-framework: ``--framework`` other than 5 for an ONNX model."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class WrongFramework(CommandRule):
    """``--framework`` other than 5 for an ONNX model.

    ## What it does
    Checks ``--framework`` against the framework values (0, 1, 3, 5) and, for an ``.onnx`` model,
    that it is 5.

    ## Why
    A value that is no framework stops ATC with E10007; another framework's number makes ATC parse
    the ONNX file as that framework's format and fail (E13005).

    ## Example
    ``--framework=3`` with ``--model=m.onnx``.

    ## Fix
    ``--framework=5``.

    ## Facts
    ``notes/atc_cli.md`` rules 4 and 22; ``shared/reference/atc_options.json`` ``--framework``;
    ``atc_error_codes.json`` E10007, E13005.
    """

    code = "AC523"
    name = "wrong-framework"
    severity = Severity.ERROR
    atc_error = "E10007"
    stage = "values"
