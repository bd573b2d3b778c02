"""Proof that a rewritten model computes what the model before it did.

Three pieces, used by ``atccheck fix`` after every pass:

- :func:`check_graph`: ``onnx.checker`` with ``full_check`` (strict shape inference) on a copy
  whose large initializers stand in as typed graph inputs, so checking costs no copy of the
  weights. onnxruntime, which loads the real tensors, catches a malformed payload.
- :func:`same_computation`: a structural proof. When a pass changed only names and shape
  annotations (and narrowed symbolic input dims to the sizes the inputs below have), the
  nodes, attributes and weights are the same, so the outputs are the same: no run needed.
- :class:`Inputs` and :func:`run_model`: seeded random inputs that respect each input's
  dtype (an integer input that indexes a ``Gather`` stays inside the gathered axis), plus the
  user's own sample (``--inputs file.npz``), run through onnxruntime; :func:`compare` judges
  two sets of outputs allclose-style and reports the largest absolute and relative error.

Nothing here prints. Errors onnxruntime raises become :class:`RunError` with one line.
"""

from __future__ import annotations

import math
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.errors import InputError, UsageError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.model.shapes import ShapeIndex

SEED = 0
# Sizes given, for verification only, to dims nothing fixes: axis 0 of a rank >= 2 input is a
# batch (1); any other dim gets a size big enough for the pooling and striding of common nets.
PROBE_BATCH = 1
PROBE_DIM = 64
# Integer inputs nothing bounds get values in [0, INT_HIGH).
INT_HIGH = 4
# Verification inputs beyond this many elements in all (64 MiB of float32; a 1x3x2048x2048 image
# is 12.6 M) are not made: the activations of a run on them would take gigabytes, and a shape
# that large is more often a mistake in the model or in --input-shape.
MAX_INPUT_ELEMENTS = 2**24
# A serialized model must stay under protobuf's 2 GiB limit; past this size we go through files.
INLINE_LIMIT = 2**31 - 2**26
# Written with external data, tensors above this many bytes go to the data file.
EXTERNAL_DATA_THRESHOLD = 1024

Feeds = dict[str, "np.ndarray"]
Outputs = dict[str, "np.ndarray"]


class RunError(Exception):
    """onnxruntime could not load or run a model; the message is one line."""


class LoadError(RunError):
    """onnxruntime could not even load the model (no input can help)."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first if len(first) <= 400 else first[:397] + "..."


# --------------------------------------------------------------------------- onnx.checker


def check_graph(model: "onnx.ModelProto") -> str | None:
    """``onnx.checker`` full check of the model with its weights left out; the error, or None."""
    import onnx

    from atccheck.model.shapes import stripped_copy

    copy = stripped_copy(model, {})
    copy.ir_version = model.ir_version or copy.ir_version
    del copy.metadata_props[:]
    copy.metadata_props.extend(model.metadata_props)
    try:
        onnx.checker.check_model(copy, full_check=True)
    except Exception as exc:  # ValidationError, InferenceError, ValueError (too large)
        return one_line(exc)
    return None


# --------------------------------------------------------------------------- structural proof


def same_computation(before: "onnx.ModelProto", after: "onnx.ModelProto", feeds: Sequence[Feeds]) -> bool:
    """True when ``after`` provably computes what ``before`` does on these inputs.

    Holds when the two differ only in node names, doc strings, value_info and output shape
    annotations, and in input dims that ``after`` fixed to exactly the sizes of every feed.
    """
    if list(before.opset_import) != list(after.opset_import) or list(before.functions) != list(after.functions):
        return False
    if not _same_graph(before.graph, after.graph, root=True):
        return False
    return _inputs_narrowed(before.graph, after.graph, feeds)


def _same_graph(a: "onnx.GraphProto", b: "onnx.GraphProto", root: bool) -> bool:
    if len(a.node) != len(b.node) or len(a.initializer) != len(b.initializer):
        return False
    if [o.name for o in a.output] != [o.name for o in b.output]:
        return False
    if [o.type.tensor_type.elem_type for o in a.output] != [o.type.tensor_type.elem_type for o in b.output]:
        return False
    if [i.name for i in a.input] != [i.name for i in b.input]:
        return False
    if not root and [i.type for i in a.input] != [i.type for i in b.input]:
        return False
    if list(a.sparse_initializer) != list(b.sparse_initializer):
        return False
    for x, y in zip(a.node, b.node):
        if not _same_node(x, y):
            return False
    # protobuf equality compares payloads in C without copying them out
    return all(x == y for x, y in zip(a.initializer, b.initializer))


def _same_node(x: "onnx.NodeProto", y: "onnx.NodeProto") -> bool:
    import onnx

    if (x.op_type, x.domain, list(x.input), list(x.output)) != (y.op_type, y.domain, list(y.input), list(y.output)):
        return False
    if len(x.attribute) != len(y.attribute):
        return False
    for p, q in zip(x.attribute, y.attribute):
        if p.name != q.name or p.type != q.type:
            return False
        if p.type == onnx.AttributeProto.GRAPH:
            if not _same_graph(p.g, q.g, root=False):
                return False
        elif p.type == onnx.AttributeProto.GRAPHS:
            if len(p.graphs) != len(q.graphs) or not all(_same_graph(g, h, False) for g, h in zip(p.graphs, q.graphs)):
                return False
        elif p != q:
            return False
    return True


def _inputs_narrowed(a: "onnx.GraphProto", b: "onnx.GraphProto", feeds: Sequence[Feeds]) -> bool:
    init = {t.name for t in a.initializer}
    for old, new in zip(a.input, b.input):
        old_t, new_t = old.type.tensor_type, new.type.tensor_type
        if old.type.WhichOneof("value") != new.type.WhichOneof("value") or old_t.elem_type != new_t.elem_type:
            return False
        if old.name in init or not new_t.HasField("shape"):
            continue
        if old_t.HasField("shape") and len(old_t.shape.dim) != len(new_t.shape.dim):
            return False
        for axis, dim in enumerate(new_t.shape.dim):
            old_dim = old_t.shape.dim[axis] if old_t.HasField("shape") else None
            if old_dim is not None and old_dim.HasField("dim_value") and old_dim.dim_value >= 0:
                if not dim.HasField("dim_value") or dim.dim_value != old_dim.dim_value:
                    return False
                continue
            if dim.HasField("dim_value"):
                # newly fixed: every feed must have exactly this size there
                for feed in feeds:
                    array = feed.get(old.name)
                    if array is None or array.ndim <= axis or array.shape[axis] != dim.dim_value:
                        return False
    return True


# --------------------------------------------------------------------------- inputs


@dataclass
class Inputs:
    """The input sets every model of one ``fix`` run is fed: seeded random, plus the user's sample."""

    sets: list[Feeds]
    labels: list[str]
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def describe(self) -> list[str]:
        return list(self.labels)


def load_samples(path: "str | os.PathLike[str]") -> dict[str, "np.ndarray"]:
    """Arrays of an ``.npz`` file keyed by input name (InputError when unreadable)."""
    import numpy as np

    from atccheck.fileio import check_regular_file

    display = str(path)
    if not os.path.exists(path):
        raise InputError(display, "no such file")
    check_regular_file(path, "--inputs file")  # np.load would wait forever on a fifo
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except FileNotFoundError:
        raise InputError(display, "no such file") from None
    except Exception as exc:
        raise InputError(display, f"not a readable .npz file of arrays: {one_line(exc)}") from None


def make_inputs(
    model: "onnx.ModelProto",
    planned: Mapping[str, Sequence[int | str | None]],
    samples: Mapping[str, "np.ndarray"] | None = None,
    sample_label: str = "sample",
    seed: int = SEED,
) -> Inputs:
    """Input sets for the model's real inputs.

    ``planned`` gives each input's dims as ``fix`` will fix them: ints where static, a symbol
    or None where the dim stays dynamic. A dynamic dim takes the sample's size when a sample is
    given, else a probe size (the same for every dim sharing a symbol). Raises UsageError when a
    sample does not fit the planned shapes or names an input the model does not have.
    """
    import numpy as np
    import onnx

    from atccheck.model.shapes import graph_inputs

    inputs = graph_inputs(model)
    samples = dict(samples or {})
    names = [vi.name for vi in inputs]
    unknown = sorted(set(samples) - set(names))
    if unknown:
        raise UsageError(f"--inputs names {', '.join(repr(u) for u in unknown)}, which the model does not have "
                         f"(inputs: {', '.join(names) or 'none'})")
    symbols: dict[str, int] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    # first pass: sizes the sample fixes
    for vi in inputs:
        dims = list(planned.get(vi.name, ()))
        sample = samples.get(vi.name)
        if sample is None:
            continue
        if len(dims) != sample.ndim:
            raise UsageError(f"--inputs '{vi.name}' has rank {sample.ndim}; the model input has rank {len(dims)}")
        for axis, (dim, size) in enumerate(zip(dims, sample.shape)):
            if isinstance(dim, int) and dim != size:
                shown = ",".join(str(d) if isinstance(d, int) else str(s) for d, s in zip(dims, sample.shape))
                raise UsageError(
                    f"--inputs '{vi.name}' has shape {tuple(sample.shape)} but the fixed model takes "
                    f"{dims_text(dims)} (axis {axis}); give --input-shape \"{vi.name}:{shown}\" to fix it at the "
                    "sample's size, or a sample of the fixed size"
                )
            if isinstance(dim, str):
                symbols.setdefault(dim, int(size))
    for vi in inputs:
        dims = list(planned.get(vi.name, ()))
        sample = samples.get(vi.name)
        concrete = []
        for axis, dim in enumerate(dims):
            if isinstance(dim, int):
                concrete.append(dim)
            elif sample is not None:
                concrete.append(int(sample.shape[axis]))
            elif isinstance(dim, str) and dim in symbols:
                concrete.append(symbols[dim])
            else:
                size = PROBE_BATCH if axis == 0 and len(dims) >= 2 else PROBE_DIM
                if isinstance(dim, str):
                    symbols[dim] = size
                concrete.append(size)
        shapes[vi.name] = tuple(concrete)

    total = 0
    for name, shape in shapes.items():
        count = math.prod(shape)
        if any(d < 0 for d in shape):
            raise RunError(f"input '{name}' has a negative dim {dims_text(list(shape))}; no input can be made for it")
        total += count
        if total > MAX_INPUT_ELEMENTS:
            raise RunError(f"input '{name}' of shape {dims_text(list(shape))} takes the inputs past "
                           f"{MAX_INPUT_ELEMENTS} elements; verification inputs that large are not made (give "
                           "--input-shape with smaller sizes to compare outputs)")
    bounds = index_bounds(model, shapes)
    rng = np.random.default_rng(seed)
    random_set: Feeds = {}
    for vi in inputs:
        elem = vi.type.tensor_type.elem_type
        random_set[vi.name] = random_array(rng, elem, shapes[vi.name], bounds.get(vi.name), vi.name)
    sets, labels = [random_set], [f"seeded random inputs (seed {seed}): " + _shapes_text(shapes)]
    if samples:
        sample_set: Feeds = {}
        for vi in inputs:
            elem = vi.type.tensor_type.elem_type
            dtype = onnx.helper.tensor_dtype_to_np_dtype(elem)
            if vi.name in samples:
                sample_set[vi.name] = _as_dtype(samples[vi.name], dtype, vi.name)
            else:
                sample_set[vi.name] = random_array(rng, elem, shapes[vi.name], bounds.get(vi.name), vi.name)
        missing = [n for n in names if n not in samples]
        sets.append(sample_set)
        labels.append(sample_label + (f" (random values for {', '.join(missing)})" if missing else ""))
    return Inputs(sets=sets, labels=labels, shapes=shapes)


def dims_text(dims: Sequence[Any]) -> str:
    """Dims as messages show them: ``[1,3,height,?]`` (a symbol by name, an unknown dim as ?)."""
    return "[" + ",".join(str(d) if isinstance(d, int) else (d or "?") for d in dims) + "]"


def _shapes_text(shapes: Mapping[str, tuple[int, ...]]) -> str:
    return "; ".join(f"{k}:{','.join(str(d) for d in v)}" for k, v in shapes.items()) or "no inputs"


def _as_dtype(array: "np.ndarray", dtype: Any, name: str) -> "np.ndarray":
    import numpy as np

    array = np.asarray(array)
    if array.dtype == dtype:
        return array
    same_kind = (np.issubdtype(array.dtype, np.floating) and np.issubdtype(dtype, np.floating)) or (
        np.issubdtype(array.dtype, np.integer) and np.issubdtype(dtype, np.integer)
    )
    if not same_kind:
        raise UsageError(f"--inputs '{name}' is {array.dtype}; the model input is {np.dtype(dtype)}")
    converted = array.astype(dtype)
    if np.issubdtype(dtype, np.integer) and not np.array_equal(converted, array):
        raise UsageError(f"--inputs '{name}' has values outside {np.dtype(dtype)}")
    return converted


def random_array(rng: Any, elem_type: int, shape: tuple[int, ...], high: int | None, name: str) -> "np.ndarray":
    """Seeded values of one input: N(0, 1) floats, coin-flip bools, small or in-range integers."""
    import numpy as np
    import onnx

    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    except Exception:
        raise RunError(f"input '{name}' has element type {elem_type}, which random inputs cannot be made for") from None
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        top = INT_HIGH if high is None else max(1, min(high, np.iinfo(dtype).max))
        return rng.integers(0, top, size=shape).astype(dtype)
    raise RunError(f"input '{name}' is {np.dtype(dtype)}, which random inputs cannot be made for")


# Ops that pass integer values through unchanged, so an index read later is still this input.
_PASS_THROUGH = frozenset({"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity", "Expand", "Transpose"})


def index_bounds(model: "onnx.ModelProto", shapes: Mapping[str, tuple[int, ...]]) -> dict[str, int]:
    """Exclusive upper bound for integer inputs that end up indexing a Gather-like op."""
    from atccheck.model.graph import GraphIndex
    from atccheck.model.shapes import infer_shapes

    graph = GraphIndex(model)
    index = None
    bounds: dict[str, int] = {}
    for vi in model.graph.input:
        if vi.name not in shapes or not _is_int(vi.type.tensor_type.elem_type):
            continue
        frontier, seen, sizes = [vi.name], {vi.name}, []
        while frontier:
            value = frontier.pop()
            for consumer in graph.consumers.get(value, []):
                node = consumer.node
                for position, name in enumerate(node.input):
                    if name != value:
                        continue
                    if node.op_type in _PASS_THROUGH and position == 0:
                        for out in node.output:
                            if out and out not in seen:
                                seen.add(out)
                                frontier.append(out)
                    elif position == 1 and node.op_type in ("Gather", "GatherElements", "GatherND"):
                        if index is None:
                            index = infer_shapes(model, shapes)
                        sizes.extend(_indexed_sizes(node, index))
        if sizes:
            bounds[vi.name] = min(sizes)
    return bounds


def _indexed_sizes(node: "onnx.NodeProto", index: "ShapeIndex") -> list[int]:
    """The known sizes of the axes a Gather-like node's indices point into (all axes for GatherND)."""
    info = index.get(node.input[0])
    if info is None or info.shape is None:
        return []
    axis = 0
    for attr in node.attribute:
        if attr.name == "axis":
            axis = attr.i
    if node.op_type == "GatherND":
        dims = info.shape
    else:
        dims = info.shape[axis:axis + 1] if axis >= 0 else info.shape[axis:][:1]
    return [d for d in dims if isinstance(d, int) and d > 0]


def _is_int(elem_type: int) -> bool:
    import onnx

    return elem_type in (
        onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.INT64,
        onnx.TensorProto.UINT8, onnx.TensorProto.UINT16, onnx.TensorProto.UINT32, onnx.TensorProto.UINT64,
    )


# --------------------------------------------------------------------------- onnxruntime


class ModelSource:
    """A model as onnxruntime takes it: serialized bytes, or a file when too large for bytes.

    ``bytes`` is kept so the caller can write the same serialization to the output file.
    """

    def __init__(self, model: "onnx.ModelProto | None" = None, path: "str | os.PathLike[str] | None" = None) -> None:
        self.path: str | None = os.fspath(path) if path is not None else None
        self.data: bytes | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        if model is not None and self.path is None:
            if approx_size(model) < INLINE_LIMIT:
                self.data = model.SerializeToString()
            else:
                self._tmp = tempfile.TemporaryDirectory(prefix="atccheck-verify-")
                target = Path(self._tmp.name) / "model.onnx"
                save_with_external_data(model, target)
                self.path = str(target)

    def release(self) -> None:
        self.data = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    @property
    def payload(self) -> "bytes | str":
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path


def approx_size(model: "onnx.ModelProto") -> int:
    """Serialized size, estimated from tensor dims (``ByteSize`` walks every payload: slow on big models).

    Tensor payloads dominate any model that comes near protobuf's limit; the rest of the
    graph is counted generously without serializing it.
    """
    from atccheck.model.loading import iter_graph_tensors, tensor_nbytes

    payload = sum(tensor_nbytes(t) + 64 for t in iter_graph_tensors(model.graph))
    return payload + 512 * _node_count(model.graph) + 2**20


def _node_count(graph: "onnx.GraphProto") -> int:
    from atccheck.model.graph import iter_nodes

    return sum(1 for _ in iter_nodes(graph))


def save_with_external_data(model: "onnx.ModelProto", target: Path) -> None:
    """Write a copy of ``model`` with every sizeable tensor in ``<target>.data`` (for tools that need files)."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    onnx.save_model(copy, str(target), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=target.name + ".data", size_threshold=EXTERNAL_DATA_THRESHOLD)


def session_options() -> Any:
    import onnxruntime as ort

    # the process-wide logger too: some messages (graph loading, provider set-up) are written before
    # a session's own severity applies, in colour, straight to the terminal
    ort.set_default_logger_severity(4)
    options = ort.SessionOptions()
    # run the graph as written: a rewrite is judged on its own ops, not on what ORT fuses it into
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4  # failures come back as exceptions; nothing goes to stderr
    # Threads that sleep when idle: verification runs beside the passes on its own thread, and
    # spinning workers would only take CPU from them. Two threads rather than one: most of the
    # time the pipeline is waiting for this very run (measured in bench/bench_fix.py).
    options.intra_op_num_threads = min(2, os.cpu_count() or 1)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # a session runs once or twice: packing the weights for faster kernels costs more than it saves
    options.add_session_config_entry("session.disable_prepacking", "1")
    return options


# One onnxruntime run may take this long; a model that runs longer (a Loop with neither trip
# count nor condition runs forever) is stopped and left unverified.
RUN_TIMEOUT_S = 30.0

_active_runs: set[Any] = set()
_active_lock = threading.Lock()
# The cancel event of the current thread's runs, when a pool bound one (see bind_cancel): a run
# that starts after its owner stopped waiting (Ctrl-C while onnxruntime was still importing or
# making the session) is cancelled before it begins, not left to the watchdog.
_thread = threading.local()


class RunTimeout(RunError):
    """onnxruntime was stopped: the run took longer than RUN_TIMEOUT_S (or was cancelled)."""


def bind_cancel(cancelled: threading.Event) -> None:
    """Cancel every later run on this thread once ``cancelled`` is set (a thread pool's initializer)."""
    _thread.cancelled = cancelled


def terminate_runs() -> None:
    """Stop every onnxruntime run in progress (on interrupt, or when the caller no longer waits).

    A run that has not registered yet is stopped by the cancel event bound to its thread: the
    owner sets that event before calling this, and a run checks it under the same lock.
    """
    with _active_lock:
        for options in _active_runs:
            options.terminate = True


def _cancelled() -> bool:
    event = getattr(_thread, "cancelled", None)
    return event is not None and event.is_set()


CANCELLED = "onnxruntime run cancelled"


def run_model(source: ModelSource, inputs: Inputs, timeout: float | None = None) -> list[Outputs]:
    """Outputs of every input set, by output name; RunError when onnxruntime refuses.

    Each run is bounded in time: a watchdog sets onnxruntime's ``RunOptions.terminate`` after
    ``timeout`` seconds (default :data:`RUN_TIMEOUT_S`) and :class:`RunTimeout` is raised.
    """
    import onnxruntime as ort

    limit = RUN_TIMEOUT_S if timeout is None else timeout
    if _cancelled():
        raise RunTimeout(CANCELLED)
    try:
        session = ort.InferenceSession(source.payload, session_options(), providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise LoadError(f"onnxruntime cannot load the model: {one_line(exc)}") from None
    names = [o.name for o in session.get_outputs()]
    results = []
    for feeds in inputs.sets:
        options = ort.RunOptions()
        options.log_severity_level = 4
        expired = threading.Event()

        def stop(options: Any = options, expired: threading.Event = expired) -> None:
            expired.set()
            options.terminate = True

        watchdog = threading.Timer(limit, stop)
        watchdog.daemon = True
        with _active_lock:
            _active_runs.add(options)
            if _cancelled():  # the owner stopped waiting before this run could register
                options.terminate = True
        watchdog.start()
        try:
            values = session.run(names, feeds, options)
        except Exception as exc:
            if expired.is_set():
                raise RunTimeout(f"timed out: onnxruntime ran the model for more than {limit:g} s "
                                 "(a loop without an end?)") from None
            if options.terminate:
                raise RunTimeout(CANCELLED) from None
            raise RunError(f"onnxruntime cannot run the model: {one_line(exc)}") from None
        finally:
            watchdog.cancel()
            with _active_lock:
                _active_runs.discard(options)
        results.append(dict(zip(names, values)))
    return results


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Comparison:
    """How far a model's outputs are from the reference's, and whether that is within tolerance."""

    ok: bool
    max_abs: float
    max_rel: float
    worst_output: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "max_abs_error": _finite(self.max_abs),
            "max_rel_error": _finite(self.max_rel),
            "worst_output": self.worst_output,
            "reason": self.reason,
        }


def _finite(value: float) -> float | str:
    return value if math.isfinite(value) else "inf"


# Float outputs may also differ by this many units in the last place of their own dtype: a
# rewrite of a float16 model is computed in float32 inside onnxruntime and rounded back, so
# exact rewrites still move float16 results by an ulp or two.
ULPS = 4


def compare(reference: Sequence[Outputs], candidate: Sequence[Outputs], atol: float, rtol: float) -> Comparison:
    """Allclose-style: every element ``|new - old| <= atol + rtol * |old| + ULPS * ulp(old)``;
    NaN matches NaN only."""
    import numpy as np

    max_abs = max_rel = 0.0
    worst: str | None = None
    failed: str | None = None
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            if name not in new_set:
                return Comparison(False, math.inf, math.inf, name, f"output '{name}' is gone")
            new = new_set[name]
            if ref.shape != new.shape:
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has shape {tuple(new.shape)}, was {tuple(ref.shape)}")
            if ref.size == 0:
                continue
            exact = not (np.issubdtype(ref.dtype, np.floating) or np.issubdtype(ref.dtype, np.complexfloating))
            a = ref.astype(np.float64)
            b = new.astype(np.float64)
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            if (nan_a != nan_b).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' has NaN where the reference has none, or the reverse")
            inf_a, inf_b = np.isinf(a), np.isinf(b)
            same_inf = inf_a & inf_b & (np.sign(a) == np.sign(b))
            if ((inf_a | inf_b) & ~same_inf).any():
                return Comparison(False, math.inf, math.inf, name,
                                  f"output '{name}' is infinite where the reference is not, or the reverse")
            skip = nan_a | same_inf
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.where(skip, 0.0, np.abs(a - b))
                magnitude = np.where(skip, 0.0, np.abs(a))
                err = float(diff.max())
                rel = float((diff / np.maximum(magnitude, np.finfo(np.float32).tiny)).max())
                allowed = 0.0 if exact else atol + rtol * magnitude + ULPS * np.abs(np.spacing(ref)).astype(np.float64)
                beyond = bool((diff > allowed).any())
            if err > max_abs:
                max_abs, worst = err, name
            max_rel = max(max_rel, rel)
            if failed is None and beyond:
                failed = name
    if failed is not None:
        return Comparison(False, max_abs, max_rel, failed, f"output '{failed}' differs beyond the tolerance")
    return Comparison(True, max_abs, max_rel, worst)
