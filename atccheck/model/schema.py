"""The ONNX operator schemas, asked one way: what an op declares at an opset.

The installed ``onnx`` package's schemas (through :mod:`atccheck.model.onnxpb`, so ``check``
never imports the onnx package): the schema an op follows at an opset, its input names, the
default of an attribute, and attributes whose type differs from the declared one. The rule
context, the rules and the passes all ask here.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from atccheck.domains import is_standard
from atccheck.model import onnxpb

if TYPE_CHECKING:  # pragma: no cover
    import onnx
    import onnx.defs

# What attribute_default returns when the schema gives no default.
MISSING: Any = object()


@cache
def onnx_schema(op_type: str, opset: int, domain: str = "") -> "onnx.defs.OpSchema | None":
    """The schema a node of this op follows at this opset, or None (an op the opset does not define)."""
    try:
        return onnxpb.get_schema(op_type, opset, "" if is_standard(domain) else domain)
    except Exception:  # onnx raises SchemaError for unknown ops
        return None


def input_names(op_type: str, opset: int | None, domain: str = "") -> list[str] | None:
    """The schema's formal input names at this opset, or None when the op or the opset is unknown."""
    if opset is None:
        return None
    schema = onnx_schema(op_type, opset, domain)
    return [formal.name for formal in schema.inputs] if schema is not None else None


def attribute_default(op_type: str, opset: int | None, attr: str) -> Any:
    """The schema default of an attribute of a standard op, or MISSING when the schema gives none."""
    schema = onnx_schema(op_type, opset or 1)
    if schema is None or attr not in schema.attributes:
        return MISSING
    default = onnxpb.attribute_default(schema.attributes[attr])
    if default is None or default.type == onnxpb.AttributeProto.UNDEFINED:
        return MISSING
    value = onnxpb.attribute_value(default)
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return value


def attribute_type_mismatches(node: "onnx.NodeProto", opset: int | None) -> tuple[tuple[str, str, str], ...]:
    """(name, type found, type declared) for each attribute of a standard-domain node whose type is
    not the one its ONNX schema declares (onnx.checker rejects such a node)."""
    if not is_standard(node.domain):
        return ()
    schema = onnx_schema(node.op_type, opset or 1)
    if schema is None:
        return ()
    types = onnxpb.AttributeProto.AttributeType
    found = []
    for attr in node.attribute:
        declared = schema.attributes.get(attr.name)
        if declared is None:
            continue
        expected = int(declared.type)  # type: ignore[call-overload]  # a pybind11 enum; onnx's stub omits __int__
        if attr.type == expected:
            continue
        got = types.Name(attr.type) if attr.type in types.values() else f"type {attr.type}"
        found.append((attr.name, got, types.Name(expected)))
    return tuple(found)
