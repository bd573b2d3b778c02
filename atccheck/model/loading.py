"""Load an ONNX model for checking: the graph and initializer metadata, never external weights.

``load_model`` reads the protobuf with ``load_external_data=False``. External-data
locations are validated as strings (they must stay inside the model's folder) but the
files are never opened, so ``check`` gives the same report with the weights deleted.
Anything that is not a usable ONNX model raises :class:`InputError` with one line.

With ``weights=False`` (what ``check`` and ``atc-cmd`` use) the weights inside the file are
not read either: :mod:`atccheck.model.wire` walks the file, reading around the payloads, and leaves out
the data of every tensor of more than :data:`KEEP_ELEMENTS` elements, so the parser sees only
the graph, the tensors' names, dims, data types and external-data records, and the data of
small tensors. The threshold is the one the rules (``GraphIndex.const_value``) and shape
inference (``shapes.stripped_copy``) use to decide that a constant is small enough to read,
so no value they read today is left out. ``LoadedModel.weights`` says which kind of load it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

from atccheck.errors import InputError
from atccheck.file_kinds import file_kind, is_lfs_pointer
from atccheck.model.graph import SMALL_CONSTANT_ELEMENTS
from atccheck.model.shapes import SMALL_INITIALIZER_ELEMENTS

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# Tensors of more elements than this keep no data in a weight-free load (see the module docstring).
KEEP_ELEMENTS = max(SMALL_CONSTANT_ELEMENTS, SMALL_INITIALIZER_ELEMENTS)
PARSE_FAILED = "not an ONNX model, or truncated (protobuf parse failed; ATC: E13005)"


@dataclass(frozen=True)
class ExternalTensor:
    name: str
    location: str
    offset: int | None
    length: int | None
    nbytes: int  # from dims x element size, so the data file is never needed

    @property
    def end(self) -> int:
        """Where the tensor's bytes end in the data file: offset + length (the size from dims when no length)."""
        return (self.offset or 0) + (self.length if self.length is not None else self.nbytes)


@dataclass
class LoadedModel:
    """A parsed model plus what atccheck knows about its files."""

    model: "onnx.ModelProto"
    path: Path | None = None
    file_size: int | None = None
    external: tuple[ExternalTensor, ...] = ()
    weights: bool = True  # False: tensors of more than KEEP_ELEMENTS elements hold no data

    @property
    def display_name(self) -> str:
        return str(self.path) if self.path is not None else (self.model.graph.name or "<model>")

    def data_left_out(self, tensor: "onnx.TensorProto") -> bool:
        """Whether a weight-free load left this tensor's values out: code that needs them must
        report them as unknown rather than read an empty tensor."""
        if self.weights:
            return False
        count = 1
        for d in tensor.dims:
            count *= d
        return count > KEEP_ELEMENTS

    @property
    def external_bytes(self) -> int:
        return sum(t.nbytes for t in self.external)

    @property
    def base_dir(self) -> Path | None:
        return self.path.parent if self.path is not None else None


def element_size(data_type: int) -> int:
    """Bytes per element of an ONNX TensorProto data type (strings and undefined types count as 0)."""
    from atccheck.model import onnxpb

    if data_type in (onnxpb.TensorProto.STRING, onnxpb.TensorProto.UNDEFINED):
        return 0
    try:
        np_type = onnxpb.np_dtype(data_type)
    except (KeyError, ValueError):  # a type number no ONNX version defines: onnx.checker rejects it
        return 0
    size = np_type.itemsize
    if data_type in (onnxpb.TensorProto.INT4, onnxpb.TensorProto.UINT4):
        return 1  # packed two per byte; rounding up is fine for budgets
    return int(size)


def tensor_nbytes(tensor: "onnx.TensorProto") -> int:
    count = 1
    for d in tensor.dims:
        count *= int(d)
    return count * element_size(tensor.data_type)


def iter_graph_tensors(graph: "onnx.GraphProto") -> Iterator["onnx.TensorProto"]:
    """Initializers and Constant/attribute tensors of a graph and all its subgraphs."""
    from atccheck.model import onnxpb

    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnxpb.AttributeProto.TENSOR:
                yield attr.t
            elif attr.type == onnxpb.AttributeProto.TENSORS:
                yield from attr.tensors
            elif attr.type == onnxpb.AttributeProto.GRAPH:
                yield from iter_graph_tensors(attr.g)
            elif attr.type == onnxpb.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from iter_graph_tensors(sub)


def external_tensors(model: "onnx.ModelProto", base_dir: Path | None, display: str) -> tuple[ExternalTensor, ...]:
    """External-data records of every tensor, with their locations checked to stay in base_dir."""
    from atccheck.model import onnxpb

    found = []
    for tensor in iter_graph_tensors(model.graph):
        if tensor.data_location != onnxpb.TensorProto.EXTERNAL:
            continue
        info = {entry.key: entry.value for entry in tensor.external_data}
        location = info.get("location")
        if not location:
            raise InputError(display, f"tensor '{tensor.name}' has external data without a location")
        check_location(location, base_dir, display)
        offset = _int_or_none(info.get("offset"), display, tensor.name, "offset")
        length = _int_or_none(info.get("length"), display, tensor.name, "length")
        found.append(ExternalTensor(tensor.name, location, offset, length, tensor_nbytes(tensor)))
    return tuple(found)


def _int_or_none(text: str | None, display: str, name: str, key: str) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise InputError(display, f"tensor '{name}' has a non-numeric external-data {key} '{text}'") from None
    if value < 0:
        raise InputError(display, f"tensor '{name}' has a negative external-data {key}")
    return value


def check_location(location: str, base_dir: Path | None, display: str) -> None:
    """Refuse external-data locations that are absolute or leave the model's folder."""
    pure = Path(location)
    if pure.is_absolute() or location.startswith(("/", "\\")) or (len(location) > 1 and location[1] == ":"):
        raise InputError(display, f"external data location '{location}' is an absolute path; it must be relative to the model's folder")
    if any(part == ".." for part in pure.parts) or "\x00" in location:
        raise InputError(display, f"external data location '{location}' leaves the model's folder")
    if base_dir is not None:
        root = os.path.realpath(base_dir)
        target = os.path.realpath(os.path.join(root, location))
        if os.path.commonpath([root, target]) != root:
            raise InputError(display, f"external data location '{location}' resolves outside the model's folder")


def validate_structure(model: "onnx.ModelProto", display: str) -> None:
    """The checks that make a protobuf an ONNX model atccheck can reason about."""
    if model.ir_version <= 0 and not model.opset_import:
        raise InputError(display, "not an ONNX model (no ir_version, no opset_import)")
    if not model.HasField("graph"):
        raise InputError(display, "not an ONNX model: it has no graph (ATC: E16004)")
    if not model.graph.node and not model.graph.output:
        raise InputError(display, "the graph is empty: no nodes and no outputs")
    where = _not_utf8(model)
    if where is not None:
        raise InputError(display, f"{where} is not UTF-8 text (ONNX strings are UTF-8; the file is damaged)")
    problem = graph_problem(model, in_order=False)
    if problem is not None:
        raise InputError(display, f"invalid graph: {problem}")


def _not_utf8(model: "onnx.ModelProto") -> str | None:
    """Where a name or other text field atccheck reads is not UTF-8, or None (doc strings are not read).

    Protobuf decodes text lazily: such a field reads as bytes (or raises UnicodeDecodeError,
    depending on the backend) deep inside whatever reads it later. Read them all once here.
    """
    from atccheck.model import onnxpb

    def text(*values: Any) -> bool:
        return all(isinstance(v, str) for v in values)

    def graph_text(graph: "onnx.GraphProto", label: str) -> str | None:
        if not text(graph.name):
            return f"the name of graph {label}"
        for kind, values in (("input", graph.input), ("output", graph.output), ("value_info", graph.value_info)):
            for i, vi in enumerate(values):
                if not (text(vi.name) and text(*(d.dim_param for d in vi.type.tensor_type.shape.dim))):
                    return f"{kind} {i} of graph {label}"
        for i, tensor in enumerate(graph.initializer):
            if not (text(tensor.name) and
                    text(*(v for e in tensor.external_data for v in (e.key, e.value)))):
                return f"initializer {i} of graph {label}"
        for i, node in enumerate(graph.node):
            if not (text(node.name, node.op_type, node.domain) and text(*node.input, *node.output)
                    and text(*(v for a in node.attribute for v in (a.name, a.ref_attr_name)))):
                shown = node.name if isinstance(node.name, str) else "?"
                return f"a name or attribute of node {i} ('{shown}') of graph {label}"
            for attr in node.attribute:
                subs = [attr.g] if attr.type == onnxpb.AttributeProto.GRAPH else (
                    list(attr.graphs) if attr.type == onnxpb.AttributeProto.GRAPHS else [])
                for sub in subs:
                    found = graph_text(sub, f"{label}/{node.name or node.op_type}:{attr.name}")
                    if found is not None:
                        return found
        return None

    try:
        if not (text(model.producer_name, model.producer_version, model.domain)
                and text(*(v for e in model.metadata_props for v in (e.key, e.value)))
                and text(*(o.domain for o in model.opset_import))):
            return "a model-level text field (producer, domain, metadata or opset domain)"
        for fn in model.functions:
            if not (text(fn.name, fn.domain, *fn.input, *fn.output, *fn.attribute)
                    and text(*(v for n in fn.node for v in (n.name, n.op_type, n.domain, *n.input, *n.output)))):
                return "a name in a model-local function"
        return graph_text(model.graph, "main")
    except UnicodeDecodeError:  # backends that raise instead of giving bytes
        return "a name or text field"


def graph_problem(model: "onnx.ModelProto", *, in_order: bool) -> str | None:
    """Why the graph (subgraphs included) is not a valid dataflow graph, or None.

    Every value a node reads must be defined: by a graph input, an initializer, a node, or the
    graph around a subgraph; every graph output must be produced. With ``in_order`` (what the
    fixer asks of a rewrite) values must be defined *before* the node that reads them and no
    value may be written by two nodes; that order rules out cycles. Without it (what loading
    asks: ONNX files are not always sorted) definitions count in any order, and a cycle check
    follows, since a cycle would send every later graph walk round forever.
    """
    return _graph_problem(model.graph, set(), in_order)


def _graph_problem(graph: "onnx.GraphProto", outer: set[str], in_order: bool) -> str | None:
    from atccheck.model import onnxpb

    defined = set(outer)
    defined.update(i.name for i in graph.input)
    defined.update(t.name for t in graph.initializer)
    defined.update(t.values.name for t in graph.sparse_initializer)
    if not in_order:
        defined.update(o for node in graph.node for o in node.output if o)
    produced: set[str] = set()
    for node in graph.node:
        for name in node.input:
            if name and name not in defined:
                label = node.name or node.op_type
                return (f"node '{label}' reads '{name}' before anything defines it" if in_order
                        else f"node '{label}' reads '{name}', which nothing defines")
        for attr in node.attribute:
            subs = [attr.g] if attr.type == onnxpb.AttributeProto.GRAPH else (
                attr.graphs if attr.type == onnxpb.AttributeProto.GRAPHS else [])
            for sub in subs:
                problem = _graph_problem(sub, defined, in_order)
                if problem is not None:
                    return problem
        if in_order:
            for name in node.output:
                if name and name in produced:
                    return f"'{name}' is written by two nodes"
                produced.add(name)
                defined.add(name)
    for out in graph.output:
        if out.name not in defined:
            return f"output '{out.name}' is not produced" + ("" if in_order else " by any node")
    return None if in_order else _cycle_problem(graph)


def _cycle_problem(graph: "onnx.GraphProto") -> str | None:
    """The first node (in node order) on or behind a cycle, or None (Kahn's algorithm)."""
    producer = {o: i for i, node in enumerate(graph.node) for o in node.output if o}
    consumers: dict[int, list[int]] = {}
    waiting = []
    for i, node in enumerate(graph.node):
        deps = {producer[name] for name in node.input if name in producer}
        waiting.append(len(deps))
        for d in deps:
            consumers.setdefault(d, []).append(i)
    ready = [i for i, n in enumerate(waiting) if n == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        for c in consumers.get(i, ()):
            waiting[c] -= 1
            if waiting[c] == 0:
                ready.append(c)
    if done == len(graph.node):
        return None
    stuck = next(node for i, node in enumerate(graph.node) if waiting[i] > 0)
    return f"node '{stuck.name or stuck.op_type}' is part of a cycle"


def _depth_limit(exc: Exception) -> bool:
    """Whether protobuf stopped at its nesting limit rather than at bad bytes.

    Protobuf raises one DecodeError type for both and tells them apart only in the message
    (upb: "Exceeded upb_DecodeOptions_MaxDepth"; the C++ backend: "recursion limit"), so the
    message is all there is to read.
    """
    text = str(exc)
    return "MaxDepth" in text or "recursion limit" in text.lower()


DEPTH_LIMIT = ("nested deeper than protobuf's parser allows (100 levels of messages: about 30 levels of "
               "If/Loop/Scan subgraphs); the file may be a valid model, but it cannot be read")


def load_model(source: "str | os.PathLike[str] | onnx.ModelProto", *, weights: bool = True) -> LoadedModel:
    """Parse a model file (or take a ModelProto) without reading external weights.

    ``weights=False`` leaves out the data of large tensors inside the file too (``check``
    reads the graph only); a ModelProto is taken as it is either way.
    """
    from atccheck.model import onnxpb

    if isinstance(source, onnxpb.ModelProto):
        display = source.graph.name or "<model>"
        validate_structure(source, display)
        return LoadedModel(model=source, external=external_tensors(source, None, display))

    path = Path(source)
    display = str(path)
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise InputError(display, "no such file") from None
    except OSError as exc:
        raise InputError(display, f"cannot read: {exc.strerror or exc}") from None
    if not S_ISREG(stat.st_mode):  # a FIFO would block the read; a device or a socket is no model
        raise InputError(display, f"is a {file_kind(stat.st_mode)}, not a model file")
    if stat.st_size == 0:
        raise InputError(display, "empty file (ATC: E13015)")
    if is_lfs_pointer(path, stat.st_size):
        raise InputError(display, f"is a Git LFS pointer ({stat.st_size} bytes of text), not the model: the clone "
                                  "was made without the LFS files; run 'git lfs pull' to fetch it")
    model = _parse_whole(path, display, stat.st_size) if weights else _parse_graph(path, display)
    validate_structure(model, display)
    return LoadedModel(
        model=model,
        path=path,
        file_size=stat.st_size,
        external=external_tensors(model, path.parent, display),
        weights=weights,
    )


def read_weights(loaded: LoadedModel, source: "str | os.PathLike[str] | onnx.ModelProto") -> "onnx.ModelProto":
    """The model with every external tensor read in (fix rewrites weights; check --numerics runs them).

    For a file, the loaded proto itself gets the weights; a caller's ModelProto is copied,
    never changed. A missing or short data file is an InputError.
    """
    import onnx

    display = loaded.display_name
    if isinstance(source, onnx.ModelProto):
        if loaded.external:
            raise InputError(display, "the model keeps weights as external data; pass the model file so fix can read them")
        model = onnx.ModelProto()
        model.CopyFrom(source)
        return model
    model = loaded.model  # ours alone (parsed from the file): no copy of the weights needed
    if loaded.external:
        check_external_files(loaded)
        base = loaded.base_dir or Path(".")
        try:
            onnx.external_data_helper.load_external_data_for_model(model, str(base))
        except Exception as exc:
            from atccheck.errors import one_line

            raise InputError(display, f"cannot read the external data: {one_line(exc)}") from None
    return model


def _parse_whole(path: Path, display: str, size: int) -> "onnx.ModelProto":
    from atccheck.model import onnxpb

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read: {exc.strerror or exc}") from None
    model = onnxpb.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # protobuf raises DecodeError (and others on some backends)
        limit = 2**31 - 1
        if size > limit:
            raise InputError(display, f"{size} bytes is over ATC's single-file limit of {limit} bytes (E13015) and could not be parsed; save the model with external data") from None
        raise InputError(display, DEPTH_LIMIT if _depth_limit(exc) else PARSE_FAILED) from None
    return model


def _parse_graph(path: Path, display: str) -> "onnx.ModelProto":
    """The model without the data of large tensors, read around them."""
    from atccheck.model import onnxpb
    from atccheck.model.wire import FileBytes, strip_large_tensors

    try:
        with open(path, "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = strip_large_tensors(FileBytes(handle, size), KEEP_ELEMENTS)
    except OSError as exc:
        raise InputError(display, f"cannot read: {exc.strerror or exc}") from None
    except RecursionError:  # subgraphs nested beyond any parser's limit
        raise InputError(display, DEPTH_LIMIT) from None
    except Exception:  # WireError from the walk
        raise InputError(display, PARSE_FAILED) from None
    try:
        return onnxpb.ModelProto.FromString(data)
    except Exception as exc:  # protobuf raises DecodeError (and others on some backends)
        raise InputError(display, DEPTH_LIMIT if _depth_limit(exc) else PARSE_FAILED) from None


def check_external_files(loaded: LoadedModel) -> None:
    """Every external data file the model names is there and long enough (an InputError if not)."""
    display = loaded.display_name
    if loaded.external:
        base = loaded.base_dir or Path(".")
        sizes: dict[str, int] = {}
        for ext in loaded.external:
            if ext.location not in sizes:
                path = base / ext.location
                try:
                    info = path.stat()
                except OSError:
                    raise InputError(display, f"external data file '{ext.location}' is missing (fix and --numerics need "
                                              "the weights; check only reads the graph)") from None
                if not S_ISREG(info.st_mode):  # onnx would open it, and a FIFO blocks the open
                    raise InputError(display, f"external data file '{ext.location}' is a {file_kind(info.st_mode)}, "
                                              "not a regular file; fix reads the weights from a file")
                sizes[ext.location] = info.st_size
            if ext.end > sizes[ext.location]:
                raise InputError(display, f"external data file '{ext.location}' is {sizes[ext.location]} bytes, too "
                                          f"short for tensor '{ext.name}' (needs {ext.end}); it is truncated or not this "
                                          "model's")
