"""flag-not-for-onnx: A flag ATC ignores for ONNX models, or one that has been removed."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import CommandRule, register


@register
class FlagNotForOnnx(CommandRule):
    """A flag ATC ignores for ONNX models, or one that has been removed.

    ## What it does
    Reports flags the option table marks as not for ONNX (``--weight``, Caffe/TensorFlow-only
    options: warning) or as removed (error; info when the facts do not date the removal for the
    chosen release).

    ## Why
    An ignored flag does nothing and suggests a setting that does not happen; a removed flag
    makes ATC stop (E10060 for ``--auto_tune_mode``).

    ## Example
    ``--weight=w.caffemodel`` for an ONNX model; ``--auto_tune_mode=RL``.

    ## Fix
    Remove the flag.

    ## Facts
    ``shared/reference/atc_options.json`` ``parameters`` (``onnx_relevance``, notes);
    ``notes/atc_cli.md`` rule 4; ``atc_error_codes.json`` E10060.
    """

    code = "AC522"
    name = "flag-not-for-onnx"
    severity = Severity.WARNING
    atc_error = None
    stage = "values"
