"""The inputs every model of one ``atccheck fix`` run is fed: seeded random sets and the user's sample.

:func:`make_inputs` makes one seeded random set that respects each input's dtype (an integer
input that indexes a ``Gather`` stays inside the gathered axis) and the sizes ``fix`` will fix,
plus the user's own sample (``--inputs file.npz``, :func:`load_samples`); :func:`fitted` casts
them to a float type a pass gave an input.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.errors import InputError, UsageError, one_line
from atccheck.fixing.runtime import RunError
from atccheck.model.shapes import dims_text

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

Feeds = dict[str, "np.ndarray"]


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

    integers = [vi for vi in model.graph.input if vi.name in shapes and _is_int(vi.type.tensor_type.elem_type)]
    if not integers:
        return {}  # no input could index anything: the graph need not be indexed
    graph = GraphIndex(model)
    index = None
    bounds: dict[str, int] = {}
    for vi in integers:
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


def fitted(inputs: Inputs, model: "onnx.ModelProto") -> Inputs:
    """The inputs with float arrays cast to the float type the model's inputs now declare.

    A pass may change an input's float type (float64-to-float32); the same values, rounded,
    are fed to the new model. Other changes of type are left for onnxruntime to refuse.
    """
    import numpy as np
    import onnx

    declared = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input
                if vi.type.WhichOneof("value") == "tensor_type"}
    changes: dict[str, "np.dtype"] = {}
    for feeds in inputs.sets:
        for name, array in feeds.items():
            elem = declared.get(name)
            if not elem or not np.issubdtype(array.dtype, np.floating):
                continue
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem))
            if dtype != array.dtype and np.issubdtype(dtype, np.floating):
                changes[name] = dtype
    if not changes:
        return inputs
    sets = [{k: (v.astype(changes[k]) if k in changes else v) for k, v in feeds.items()} for feeds in inputs.sets]
    return Inputs(sets, inputs.labels, inputs.shapes)
