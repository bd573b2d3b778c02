"""What onnx's C++ tools cannot take, said in one line before a pass hands them the model.

Three passes lean on C++ tools: simplify on onnxsim, single-opset-import on onnx's inliner,
convert-opset on onnx's version converter. Each parses a serialization of the model and checks
it first, so the model itself can make them fail, whatever the pass does:

- a model nested close to protobuf's depth limit (an If inside an If, 30 levels down) reaches
  them empty or not at all, or comes back nested deeper than Python can read (shape inference
  adds shapes to the value infos of every subgraph);
- a sparse initializer makes onnxsim's C++ core crash the whole process (seen with onnxsim
  0.4 on a Conv weight stored as a sparse initializer), so it must never get one;
- a stored dim that is negative, or sizes whose product overflows int64, make the shape
  inference inside onnx's version converter abort the whole process (onnx 1.23 on a Slice over
  an input with a dim of -7), so the converter sees them as unknown
  (:func:`atccheck.model.shapes.impossible_dims_hidden`);
- a model onnx's checker rejects (an attribute its schema does not have, a node reading a
  value nothing defines inside a model-local function, a function calling itself, an output
  without a shape) is refused with the checker's message.

:func:`call_tool` runs a tool under these rules and turns its refusal into :class:`ToolRefused`
with one line; the pass then leaves the model as it is and says why in its notes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    import onnx

T = TypeVar("T")

# protobuf's default recursion limit for parsing: messages nested below the top one (C++ and upb
# alike; a model of 101 levels by message_depth still parses, one of 102 does not).
PROTOBUF_DEPTH_LIMIT = 100
# A tool's result may nest deeper than its input: inferred shapes add a shape and its dims
# (two messages) to value infos that had none, in every subgraph.
RESULT_DEPTH_MARGIN = 3


class ToolRefused(Exception):
    """A C++ tool cannot take this model; the message is one line saying why."""


def message_depth(model: "onnx.ModelProto") -> int:
    """How deep protobuf messages nest in the model (the model itself is depth 1).

    Tensors count as one message (two with external-data entries or a segment): their
    payloads are not read.
    """
    from atccheck.model import onnxpb

    tensor_types = (onnxpb.TensorProto,)

    def depth(message: Any) -> int:  # any protobuf message
        if isinstance(message, tensor_types):
            return 2 if (message.external_data or message.HasField("segment")) else 1
        deepest = 0
        for field, value in message.ListFields():
            if field.message_type is None:
                continue
            if hasattr(value, "ListFields"):  # one message
                deepest = max(deepest, depth(value))
            else:  # a repeated field of messages
                for item in value:
                    deepest = max(deepest, depth(item))
        return 1 + deepest

    return depth(model)


def refusal(model: "onnx.ModelProto", tool: str, *, sparse_ok: bool = True) -> str | None:
    """Why ``tool`` cannot take the model (one line), or None. Cheap: no tool runs."""
    nested = message_depth(model) - 1  # protobuf counts the levels below the top message
    if nested + RESULT_DEPTH_MARGIN > PROTOBUF_DEPTH_LIMIT:
        return (f"the model nests {nested} protobuf messages deep (If/Loop/Scan subgraphs inside each other), too "
                f"close to protobuf's limit of {PROTOBUF_DEPTH_LIMIT} for {tool}, whose result would nest deeper")
    if not sparse_ok and _has_sparse_initializer(model):
        return f"the model holds sparse initializers, which {tool} cannot take"
    return None


def _has_sparse_initializer(model: "onnx.ModelProto") -> bool:
    from atccheck.model import onnxpb

    def graphs(graph: "onnx.GraphProto") -> Iterator["onnx.GraphProto"]:
        yield graph
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == onnxpb.AttributeProto.GRAPH:
                    yield from graphs(attr.g)
                elif attr.type == onnxpb.AttributeProto.GRAPHS:
                    for sub in attr.graphs:
                        yield from graphs(sub)

    return any(len(g.sparse_initializer) for g in graphs(model.graph))


def call_tool(tool: str, run: Callable[[], T]) -> T:
    """``run()``, with the errors a C++ tool raises for a model it refuses turned into ToolRefused.

    pybind11 turns the tools' C++ exceptions into RuntimeError (or onnx's ValidationError and
    InferenceError, subclasses of it in some versions, of Exception in others); protobuf raises
    DecodeError and the inliner ValueError when a serialization cannot be read back. Anything
    else is a bug of the pass and is left to raise.
    """
    import importlib

    import onnx

    from atccheck.errors import one_line

    decode_error = importlib.import_module("google.protobuf.message").DecodeError  # protobuf ships no stubs
    refused = (RuntimeError, ValueError, decode_error, onnx.checker.ValidationError,
               onnx.shape_inference.InferenceError)
    try:
        return run()
    except refused as exc:
        raise ToolRefused(f"{tool} refuses the model ({one_line(exc)})") from None
