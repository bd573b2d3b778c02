"""simplify: onnxsim constant folding and shape-op removal under the model's static shapes."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.model.files import INLINE_LIMIT, approx_size, save_with_external_data
from atccheck.model.weights import has_external
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
    onnxsim's own bookkeeping (``onnxsim.*`` metadata) is not kept. A model whose weights stay in
    external data files goes to onnxsim as a stub: its large initializers become typed graph
    inputs, so onnxsim never reads them (it folds what the graph computes, not the weights), and
    they come back as they were afterwards. Any other model of 2 GiB or more goes through a
    temporary file with external data, since protobuf cannot hold it in one message.
    Exact up to float rounding of the folded arithmetic (fusions reassociate sums).
    """

    name = "simplify"
    stage = "simplify"
    answers = (
        FixLink("dynamic-shape-unsupported", when={"foldable": (True,)}),
        FixLink("non-constant-input", when={"foldable_once_static": (True,)}),
        FixLink("aicpu-fallback", when={"foldable_once_static": (True,)}),
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
        work, stubbed = _stub_weights(model) if has_external(model) else (model, {})
        data = None
        try:
            with _quiet():
                if approx_size(work) >= threshold:
                    result = call_tool("onnxsim", lambda: _simplify_through_files(work))
                else:
                    with _result_bytes() as captured:
                        result = call_tool("onnxsim", lambda: onnxsim.simplify(work, check_n=0, certify=False)[0])
                    data = captured[0] if len(captured) == 1 and not stubbed else None
        except ToolRefused as exc:  # onnxsim checks the model first: what onnx's checker rejects, it refuses
            return PassResult(model, False, [f"left as is: {exc}"])
        del result.metadata_props[:]
        result.metadata_props.extend(metadata)
        if _keep_input_types(model, result):
            data = None  # the bytes hold onnxsim's input types, not the model's
        if data is not None:  # the same model: onnxsim's bytes with the metadata as the model had it
            from atccheck.model.wire import replace_field

            data = replace_field(data, METADATA_FIELD, [entry.SerializeToString() for entry in metadata])
        after = Counter(n.op_type for n in result.graph.node)
        modified = before != after or _graph_changed(work, result)
        if stubbed:
            _restore_weights(result, model, stubbed)
        notes = []
        if modified:
            removed = before - after
            added = after - before
            if removed:
                notes.append("removed " + ", ".join(f"{op} x{n}" for op, n in sorted(removed.items())))
            if added:
                notes.append("added " + ", ".join(f"{op} x{n}" for op, n in sorted(added.items())))
        return PassResult(result, modified, notes, data=data if modified else None)


# ModelProto.metadata_props
METADATA_FIELD = 14
_CAPTURING = threading.Lock()


@contextlib.contextmanager
def _result_bytes() -> Iterator[list[bytes]]:
    """The bytes onnxsim's core returns, kept as onnxsim parses them (``onnx.load_from_string``, on
    this thread): fix hands them to onnxruntime and writes them, instead of serializing the parsed
    model again (a tenth of a second per 100 MB). An onnxsim that parses otherwise leaves it empty."""
    import onnx

    captured: list[bytes] = []
    thread = threading.get_ident()
    with _CAPTURING:  # one at a time, so that each puts back the function it found
        parse = onnx.load_from_string

        def keep(data: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == thread and isinstance(data, bytes):
                captured.append(data)
            return parse(data, *args, **kwargs)

        onnx.load_from_string = keep  # type: ignore[assignment]
        try:
            yield captured
        finally:
            onnx.load_from_string = parse


def _stub_weights(model: "onnx.ModelProto") -> tuple["onnx.ModelProto", dict[str, bool]]:
    """A copy whose external and large initializers are typed graph inputs, and their names (True:
    the model lists it among its inputs too). The copy holds no weights."""
    import onnx

    from atccheck.model.shapes import SMALL_INITIALIZER_ELEMENTS
    from atccheck.model.weights import is_external

    stub = onnx.ModelProto()
    stub.CopyFrom(model)  # the graph: external tensors hold no payload here
    graph = stub.graph
    listed = {vi.name for vi in graph.input}
    stubbed: dict[str, bool] = {}
    kept = []
    for tensor in graph.initializer:
        count = 1
        for d in tensor.dims:
            count *= d
        if not is_external(tensor) and count <= SMALL_INITIALIZER_ELEMENTS:
            kept.append(tensor)
            continue
        stubbed[tensor.name] = tensor.name in listed
        if tensor.name not in listed:
            vi = graph.input.add()
            vi.name = tensor.name
            vi.type.tensor_type.elem_type = tensor.data_type
            shape = vi.type.tensor_type.shape
            shape.SetInParent()
            for d in tensor.dims:
                shape.dim.add().dim_value = d
    small = [onnx.TensorProto.FromString(t.SerializeToString()) for t in kept]
    del graph.initializer[:]
    graph.initializer.extend(small)
    return stub, stubbed


def _restore_weights(result: "onnx.ModelProto", model: "onnx.ModelProto", stubbed: dict[str, bool]) -> None:
    """Put the stubbed initializers back (those the simplified graph still reads), as the model had them."""
    from atccheck.model.graph import iter_nodes

    used = {name for item in iter_nodes(result.graph) for name in item.node.input}
    used.update(o.name for o in result.graph.output)
    inputs = [vi for vi in result.graph.input if vi.name not in stubbed or stubbed[vi.name]]
    if len(inputs) != len(result.graph.input):
        kept = [type(vi).FromString(vi.SerializeToString()) for vi in inputs]
        del result.graph.input[:]
        result.graph.input.extend(kept)
    result.graph.initializer.extend(t for t in model.graph.initializer if t.name in stubbed and t.name in used)


def _keep_input_types(old: "onnx.ModelProto", new: "onnx.ModelProto") -> bool:
    """Give the graph inputs back the types they had: onnxsim's symbolic inference may write its own dims into
    them (a dim make-inputs-static fixed at 64 coming back as ``((batch*seq)//batch)``, one it left as ``seq`` as
    ``unk__1``), and the model's interface is not simplify's to change."""
    before = {i.name: i.type for i in old.graph.input}
    changed = False
    for value in new.graph.input:
        kept = before.get(value.name)
        if kept is not None and kept != value.type:
            value.type.CopyFrom(kept)
            changed = True
    return changed


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
