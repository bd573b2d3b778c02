"""simplify: onnxsim constant folding and shape-op removal under the model's static shapes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.model.files import INLINE_LIMIT, approx_size, save_with_external_data
from atccheck.passes._onnx_tools import ToolRefused, call_tool, refusal
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# Above this serialized size the model goes to onnxsim as a file with external data: protobuf
# cannot serialize a message of 2 GiB or more, and onnxsim's core is handed serialized bytes.
FILE_ROUTE_BYTES = INLINE_LIMIT


@register_pass
class Simplify(FixPass):
    """Fold constants and shape computations with onnxsim, once the input shapes are static.

    Runs onnx-simplifier (constant folding, shape inference, and onnx-optimizer's fusions such
    as BatchNormalization into Conv) on the model as the earlier passes left it, so ``Shape ->
    Gather -> Concat -> Reshape`` chains over static shapes become constants and the inputs ATC
    requires constant (Resize sizes, Reshape shapes, Expand shapes) become initializers.
    Outputs without a shape field, which onnxsim refuses, get the inferred shape first. A model
    onnxsim cannot take (one onnx's checker rejects, sparse initializers, subgraphs nested near
    protobuf's depth limit: ``atccheck/passes/_onnx_tools.py``) is left as it is, with a note.
    onnxsim's own bookkeeping (``onnxsim.*`` metadata) is not kept. A model of 2 GiB or more goes
    through a temporary file with external data, since protobuf cannot hold it in one message.
    Exact up to float rounding of the folded arithmetic (fusions reassociate sums).
    """

    name = "simplify"
    stage = "simplify"
    answers = (
        FixLink("dynamic-shape-unsupported", when={"foldable": (True,)}),
        FixLink("non-constant-input", when={"foldable_once_static": (True,)}),
        FixLink("dynamic-shape-unsupported", named=False),
        FixLink("non-constant-input", named=False),
    )
    safe = True
    copy_input = False  # onnxsim reads a serialization of the model; outputs are filled in on a copy
    tolerance = 1e-4
    rtol = 1e-3

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        import onnx
        import onnxsim

        problem = refusal(model, "onnxsim", sparse_ok=False)
        if problem is not None:
            return PassResult(model, False, [f"left as is: {problem}"])
        if _shapeless_outputs(model):
            filled = onnx.ModelProto()
            filled.CopyFrom(model)
            _fill_output_shapes(filled, ctx)
            model = filled
        before = Counter(n.op_type for n in model.graph.node)
        threshold = int(ctx.options.get("simplify_file_route_bytes", FILE_ROUTE_BYTES))
        metadata = list(model.metadata_props)
        try:
            with _quiet():
                if approx_size(model) >= threshold:
                    result = call_tool("onnxsim", lambda: _simplify_through_files(model))
                else:
                    result = call_tool("onnxsim", lambda: onnxsim.simplify(model, check_n=0, certify=False)[0])
        except ToolRefused as exc:  # onnxsim checks the model first: what onnx's checker rejects, it refuses
            return PassResult(model, False, [f"left as is: {exc}"])
        del result.metadata_props[:]
        result.metadata_props.extend(metadata)
        after = Counter(n.op_type for n in result.graph.node)
        modified = before != after or _graph_changed(model, result)
        notes = []
        if modified:
            removed = before - after
            added = after - before
            if removed:
                notes.append("removed " + ", ".join(f"{op} x{n}" for op, n in sorted(removed.items())))
            if added:
                notes.append("added " + ", ".join(f"{op} x{n}" for op, n in sorted(added.items())))
        return PassResult(result, modified, notes)


def _graph_changed(old: "onnx.ModelProto", new: "onnx.ModelProto") -> bool:
    if len(old.graph.initializer) != len(new.graph.initializer):
        return True
    if [t.name for t in old.graph.initializer] != [t.name for t in new.graph.initializer]:
        return True
    for a, b in zip(old.graph.node, new.graph.node):
        if (a.op_type, list(a.input), list(a.output)) != (b.op_type, list(b.input), list(b.output)):
            return True
        if list(a.attribute) != list(b.attribute):
            return True
    return False


def _shapeless_outputs(model: "onnx.ModelProto") -> list["onnx.ValueInfoProto"]:
    """Graph outputs of tensor type without a shape field (onnxsim refuses them)."""
    return [o for o in model.graph.output if o.type.WhichOneof("value") == "tensor_type"
            and not o.type.tensor_type.HasField("shape")]


def _fill_output_shapes(model: "onnx.ModelProto", ctx: PassContext) -> None:
    """Give graph outputs without a shape field the inferred one."""
    missing = _shapeless_outputs(model)
    if not missing:
        return
    if ctx.context is not None:
        shapes = ctx.context.shapes
    else:
        from atccheck.model.shapes import infer_shapes

        shapes = infer_shapes(model)
    for out in missing:
        info = shapes.get(out.name)
        if info is None or info.shape is None:
            continue
        shape = out.type.tensor_type.shape
        shape.SetInParent()  # present even for a scalar (no dims)
        for dim in info.shape:
            entry = shape.dim.add()
            if isinstance(dim, int):
                entry.dim_value = dim
            elif isinstance(dim, str):
                entry.dim_param = dim
        if not out.type.tensor_type.elem_type and info.elem_type:
            out.type.tensor_type.elem_type = info.elem_type


def _simplify_through_files(model: "onnx.ModelProto") -> "onnx.ModelProto":
    import onnx
    import onnxsim

    with tempfile.TemporaryDirectory(prefix="atccheck-simplify-") as tmp:
        source = Path(tmp) / "in.onnx"
        target = Path(tmp) / "out.onnx"
        save_with_external_data(model, source)
        onnxsim.simplify(str(source), check_n=0, certify=False, output_path=str(target),
                         external_data_threshold="0MB")
        result = onnx.load(str(target), load_external_data=True)
    return result


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence what onnxsim prints (Python and C++ alike): library output must not reach the CLI's stdout."""
    import sys

    streams: list[Any] = [sys.stdout, sys.stderr]
    for stream in streams:
        with contextlib.suppress(Exception):
            stream.flush()
    saved: list[tuple[int, int]] = []
    try:
        with open(os.devnull, "w") as sink:
            for fd in (1, 2):
                try:
                    saved.append((fd, os.dup(fd)))
                    os.dup2(sink.fileno(), fd)
                except OSError:
                    pass
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                yield
    finally:
        for fd, copy in saved:
            with contextlib.suppress(OSError):
                os.dup2(copy, fd)
                os.close(copy)
