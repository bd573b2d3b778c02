"""malformed-attribute: an attribute of another type than its ONNX schema declares (reported by the engine)."""

from __future__ import annotations

from atccheck.findings import Severity
from atccheck.rules.base import EngineFinding, register


@register
class MalformedAttribute(EngineFinding):
    """A node's attribute has another type than the ONNX schema of its op declares.

    ## What it does
    Before the rules see a standard-domain node, the engine compares the type of each of its
    attributes with the one the node's ONNX schema (at the model's opset) declares. A
    mismatch (``kernel_shape`` stored as floats, ``axis`` as a string) is this finding, and
    the rules check the node as if that attribute were absent, so none of them misreads it.

    ## Why
    ``onnx.checker`` rejects such a model: it is not valid ONNX. What ATC's parser makes of
    the attribute is not known (no fact covers it), so the node's other verdicts may not hold.

    ## Example
    ``attribute 'kernel_shape' is FLOATS where the ONNX schema of Conv (opset 13) declares
    INTS``.

    ## Fix
    Re-export the model, or rewrite the attribute with its declared type
    (``onnx.helper.make_attribute`` with ints for ``kernel_shape``). ``atccheck fix`` does
    not guess the intended value.

    ## Facts
    The ONNX operator schemas of the installed ``onnx`` package (``onnx.defs``), at the
    node's opset. No CANN fact: ATC's reaction is unknown.
    """

    code = "AC001"
    name = "malformed-attribute"
    severity = Severity.ERROR
    applies = "standard-domain nodes whose ONNX schema declares the attribute"
