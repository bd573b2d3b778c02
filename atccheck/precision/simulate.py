"""Run a model as ATC's compute dtypes would round it, with onnxruntime.

The model is not run node by node. A copy of its graph gets a ``Cast(to=low) -> Cast(to=float32)``
pair wherever the :class:`~atccheck.precision.dtypes.Assignment` says a float32 value is rounded:

- after each output of a node that stores its outputs in float16 or bfloat16 (every consumer
  then reads the rounded value, as on the device);
- in front of an input a lowered node reads from a value stored wider than it computes (a graph
  input, a weight, a float32 node's output): ATC inserts a Cast there.

onnxruntime's Cast rounds to nearest even and turns a float32 beyond the range into inf
(65504 is float16's largest finite value), exactly as the device's conversion does, and computes
every node in float32 in between: a cube op (Conv, MatMul, Gemm, ConvTranspose) then accumulates
float16 inputs in float32 and writes a float16 output, as the Cube unit does. The casts are exact
where a value is widened, so a node kept in float32 reads its float16 inputs unchanged.

Every float32 value the root graph computes is also made a graph output of both the plain and the
lowered copy, so one run of each gives every intermediate value to compare. The combined graph is
the model's own bytes (the checked file's, where the caller has them) followed by its lowered half,
which reads the model's weights and Constants rather than copying them (protobuf merges the two
messages). The single-variant runs of a keep-list search serialize the weights once: a variant's
bytes are its graph without initializers followed by the initializers alone.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atccheck.precision.dtypes import BFLOAT16, FLOAT16, FLOAT32, Assignment

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

# ONNX TensorProto data types of the dtypes a value is rounded to.
ELEM_TYPES = {FLOAT32: 1, FLOAT16: 10, BFLOAT16: 16}
BFLOAT16_CAST_OPSET = 13  # the ONNX Cast that takes bfloat16
# ONNX semantics, not an ATC fact: ops whose float outputs are values of their float inputs (moved,
# selected, compared or sign-flipped), so inputs held in float16 give outputs float16 holds exactly;
# their outputs need no rounding. Fewer Cast nodes make a smaller graph to simulate.
VALUE_PRESERVING = frozenset({
    "Abs", "Concat", "DepthToSpace", "Expand", "Flatten", "Gather", "GatherElements", "GatherND",
    "GlobalMaxPool", "Identity", "Max", "MaxPool", "Min", "Neg", "Pad", "ReduceMax", "ReduceMin", "Relu",
    "Reshape", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Unsqueeze", "Where",
})
# From this many elements a weight is rounded on its bits (round_to_float16); below, numpy's two
# conversions cost less than the bit operations' fixed cost.
BIT_ROUNDING_SIZE = 4096
# What Simulator.rounded_weight gives for a weight the rounding leaves as it is.
UNCHANGED = object()
# Weights of a model past this many bytes go to onnxruntime through a file instead of bytes.
INLINE_LIMIT = 2**31 - 2**26

Values = dict[str, "np.ndarray"]


class SimulationError(Exception):
    """onnxruntime cannot load or run the model (one line)."""


@dataclass
class Runs:
    """Seconds spent, for the bench: building sessions and running them."""

    sessions: int = 0
    seconds: float = 0.0


class Simulator:
    """One model's plain and lowered runs on fixed inputs."""

    def __init__(self, model: "onnx.ModelProto", feeds: Sequence[Mapping[str, "np.ndarray"]],
                 source: bytes | None = None) -> None:
        """``source``, where the caller has it, is ``model`` serialized (a checked file's own bytes): the
        combined run extends those bytes instead of serializing the model again."""
        self.feeds = [dict(f) for f in feeds]
        self.runs = Runs()
        self.model = model
        self._source = source
        size = len(source) if source is not None else model.ByteSize()
        if size > INLINE_LIMIT:
            raise SimulationError(f"the model takes {size / 2**30:.1f} GiB, more than onnxruntime takes "
                                  "from memory; the numerics are not simulated for models this large")
        self.ranks = {t.name: len(t.dims) for t in model.graph.initializer}
        self._initializers = {t.name: t for t in model.graph.initializer if t.data_type == ELEM_TYPES[FLOAT32]}
        self._initializers.update(constant_tensors(model))
        self._rounded: dict[tuple[str, str], Any] = {}  # a rounded tensor, or UNCHANGED
        self.node_values = [v for node in model.graph.node for v in node.output if v]
        self.float32_inputs = {vi.name for vi in model.graph.input
                               if vi.type.tensor_type.elem_type == ELEM_TYPES[FLOAT32]}
        self.float32_inputs |= {t.name for t in model.graph.initializer if t.data_type == ELEM_TYPES[FLOAT32]}
        self.output_names = [o.name for o in model.graph.output]

    @functools.cached_property
    def skeleton(self) -> "onnx.ModelProto":
        """The model without its weights, which the runs of single variants (the keep-list search) extend."""
        import onnx

        skeleton = onnx.ModelProto()
        skeleton.CopyFrom(self.model)
        del skeleton.graph.initializer[:]
        return skeleton

    @functools.cached_property
    def weights(self) -> bytes:
        """The weights alone, serialized once for every single-variant run."""
        import onnx

        weights = onnx.ModelProto()
        weights.graph.initializer.extend(self.model.graph.initializer)
        return weights.SerializeToString()

    # ---- the runs

    def reference(self) -> list[Values]:
        """Every root-graph value of each input set, in float32 (the model as written)."""
        exposed = _with_outputs(self.skeleton, self.node_values)
        return self._run(exposed, self.node_values + self.output_names, weights=self.weights)

    def lowered(self, assignment: Assignment, float32_values: Collection[str]) -> list[Values]:
        """Every float32 root-graph value of each input set, with the assignment's rounding applied."""
        model = lower(self.skeleton, assignment, float32_values, self.ranks, self.rounded_weight, self.folded_weights)
        hidden = assignment.hidden_values(list(self.skeleton.graph.node))
        wanted = [v for v in self.node_values if v in float32_values and v not in hidden]
        exposed = _with_outputs(model, wanted)
        return self._run(exposed, wanted + self.output_names, weights=self.weights)

    def rounded_weight(self, name: str, dtype: str, new_name: str) -> "onnx.TensorProto | object | None":
        """A float32 weight rounded to ``dtype`` once, in numpy (the same IEEE rounding as Cast): a
        weight needs no Cast nodes, which keeps the simulated graph small. :data:`UNCHANGED` when the
        dtype holds every value of the weight exactly; None when ``name`` is not a float32 weight. The
        tensor is shared between calls: add a copy of it to a graph (``append`` copies), do not keep it."""
        tensor = self._initializers.get(name)
        if tensor is None:
            return None
        key = (name, dtype)
        found = self._rounded.get(key)
        if found is None:
            import numpy as np
            from onnx import numpy_helper

            # raw little-endian bytes (how exporters store weights) are read in place
            raw = tensor.raw_data and tensor.data_location != 1 and sys.byteorder == "little"  # not EXTERNAL
            array = np.frombuffer(tensor.raw_data, np.float32) if raw else numpy_helper.to_array(tensor)
            rounded = _round(array, dtype)
            if np.array_equal(rounded, array):  # NaN compares unequal: a weight holding one is rounded as any other
                self._rounded[key] = UNCHANGED
                return UNCHANGED
            found = self._rounded[key] = type(tensor)(name=new_name, data_type=ELEM_TYPES[FLOAT32],
                                                      dims=list(tensor.dims), raw_data=rounded.tobytes())
        if found is UNCHANGED:
            return UNCHANGED
        found.name = new_name  # the cached tensor itself: appending it to a graph copies it
        return found

    def folded_weights(self, conv: "onnx.NodeProto", norm: "onnx.NodeProto", dtype: str,
                       names: Sequence[str]) -> "list[onnx.TensorProto] | None":
        """The filter and bias of a conv with its BatchNormalization folded in, computed in float32 in
        numpy (the same IEEE operations, in the same order, as the nodes of :func:`_fold_conv_batchnorm`)
        and rounded to ``dtype``, named ``names``; None unless every operand is a weight."""
        from onnx import numpy_helper

        wanted = [conv.input[1], *norm.input[1:5]]
        bias = conv.input[2] if len(conv.input) > 2 and conv.input[2] else None
        tensors = [self._initializers.get(name) for name in wanted + ([bias] if bias else [])]
        if any(t is None for t in tensors):
            return None
        weight, gamma, beta, mean, var, *rest = (numpy_helper.to_array(t) for t in tensors)  # type: ignore[arg-type]
        epsilon = next((a.f for a in norm.attribute if a.name == "epsilon"), 1e-5)
        folded = fold_batchnorm(weight, rest[0] if rest else None, gamma, beta, mean, var, epsilon)
        return [numpy_helper.from_array(_round(array, dtype), name) for name, array in zip(names, folded)]

    def both(self, assignment: Assignment, float32_values: Collection[str]) -> tuple[list[Values], list[Values]]:
        """The float32 and the lowered run in one onnxruntime session: the lowered copy of the graph sits
        beside the original, reading the same inputs and weights, its values renamed. One session costs
        less than two; a graph with subgraphs (If, Loop) is run as two models instead."""
        model = self.model
        if any(a.type in (5, 10) for node in model.graph.node for a in node.attribute):  # GRAPH, GRAPHS
            return self.reference(), self.lowered(assignment, float32_values)
        import onnx

        produced = {v for node in model.graph.node for v in node.output if v}
        taken = produced | {i.name for i in model.graph.input}
        suffix = "__atccheck_lowered"
        while any(v + suffix in taken for v in produced):
            suffix += "_"
        # Only the lowered half is built and serialized here: protobuf merges a message's bytes written
        # after another's (repeated fields append), so the model's own bytes (the file's, where the caller
        # gave them) are followed by a graph holding the lowered nodes and the graph outputs the model does
        # not already list.
        added = onnx.ModelProto()
        shared = emit_lowered(added.graph, model, assignment, float32_values, self.ranks, self.rounded_weight, suffix,
                              self.folded_weights)
        hidden = assignment.hidden_values(list(model.graph.node))
        wanted = [v for v in self.node_values if v in float32_values and v not in hidden]
        plain = list(dict.fromkeys(self.output_names + self.node_values))
        low = list(dict.fromkeys(self.output_names + wanted))
        listed = set(self.output_names)
        for name in plain:
            if name not in listed:
                added.graph.output.add().name = name
        for name in low:
            if name not in shared:
                added.graph.output.add().name = name + suffix
        results = self._run(added, plain + [n + suffix for n in low if n not in shared], base=self.source())
        reference = [{n: r[n] for n in plain if n in r} for r in results]
        lowered = [{n: r[n if n in shared else n + suffix] for n in low if (n if n in shared else n + suffix) in r}
                   for r in results]
        return reference, lowered

    def source(self) -> bytes:
        """The model with its weights, serialized once (or as the caller read it) for every run that extends it."""
        if self._source is None:
            self._source = self.model.SerializeToString()
        return self._source

    def _run(self, model: "onnx.ModelProto", names: Sequence[str], base: bytes = b"",
             weights: bytes = b"") -> list[Values]:
        import onnxruntime as ort

        from atccheck.errors import one_line
        from atccheck.fixing.runtime import RunError, run_bounded, session_options

        started = time.perf_counter()
        payload = base + model.SerializeToString() + weights
        options = session_options()
        # each session runs once per input set: a memory pattern is only worth tracing for later runs
        options.enable_mem_pattern = False
        try:
            session = ort.InferenceSession(payload, options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise SimulationError(f"onnxruntime cannot load the model: {one_line(exc)}") from None
        available = {o.name for o in session.get_outputs()}
        fetch = list(dict.fromkeys(n for n in names if n in available))
        results = []
        for feeds in self.feeds:
            try:  # bounded in time as fix's runs are: a Loop without an end stops with RunTimeout
                values = run_bounded(session, fetch, feeds)
            except RunError as exc:
                raise SimulationError(str(exc)) from None
            results.append(dict(zip(fetch, values)))
        self.runs.sessions += 1
        self.runs.seconds += time.perf_counter() - started
        return results


def _with_outputs(model: "onnx.ModelProto", names: Sequence[str]) -> "onnx.ModelProto":
    """A copy of the (weight-free) model whose graph outputs also list ``names`` (untyped: onnxruntime infers)."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    present = {o.name for o in copy.graph.output}
    for name in names:
        if name not in present:
            present.add(name)
            copy.graph.output.add().name = name
    return copy


def lower(model: "onnx.ModelProto", assignment: Assignment, float32_values: Collection[str],
          ranks: Mapping[str, int] | None = None, rounded_weight: Any = None,
          folded_weights: Any = None) -> "onnx.ModelProto":
    """A copy of ``model`` with a Cast pair wherever the assignment rounds a float32 value."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    del copy.graph.node[:]
    emit_lowered(copy.graph, model, assignment, float32_values, ranks, rounded_weight, folded_weights=folded_weights)
    return copy


def emit_lowered(graph: Any, model: "onnx.ModelProto", assignment: Assignment, float32_values: Collection[str],
                 ranks: Mapping[str, int] | None = None, rounded_weight: Any = None, suffix: str = "",
                 folded_weights: Any = None) -> set[str]:
    """Append to ``graph`` the lowered nodes of ``model``'s graph: every value a node produces is named
    with ``suffix`` added (none: the model's own names), graph inputs and weights keep theirs.

    With a suffix, a Constant the lowering leaves as it is is not copied: the lowered nodes read the
    original's value, whose name is returned (a lowered float Constant becomes a weight rounded in numpy).
    """
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset < BFLOAT16_CAST_OPSET and any(BFLOAT16 in (n.inputs, n.outputs) for n in assignment.nodes.values()):
        raise SimulationError(f"onnxruntime's Cast takes bfloat16 from opset {BFLOAT16_CAST_OPSET}; the model imports "
                              f"opset {opset}, so bfloat16 rounding is not simulated")
    sources = list(model.graph.node)
    produced = {v for n in sources for v in n.output if v}
    stored: dict[str, str] = {}
    rounded: dict[tuple[str, str], str] = {}
    used: set[str] = {v for n in sources for v in list(n.input) + list(n.output)}
    used |= {i.name for i in model.graph.input} | {t.name for t in graph.initializer}
    if suffix:
        used |= {v + suffix for v in produced}
    counter = [0]
    shared: set[str] = set()

    def ref(name: str) -> str:
        return name + suffix if suffix and name in produced and name not in shared else name

    def fresh(base: str) -> str:
        while True:
            counter[0] += 1
            name = f"{base}__atccheck_{counter[0]}"
            if name not in used:
                used.add(name)
                return name

    def cast_pair(source: str, dtype: str, target: str) -> None:
        narrow = fresh(source)
        _cast(graph.node.add(), source, narrow, ELEM_TYPES[dtype], fresh("round"))
        _cast(graph.node.add(), narrow, target, ELEM_TYPES[FLOAT32], fresh("widen"))

    folded = set(assignment.fused.values())
    for index, source in enumerate(sources):
        decision = assignment.nodes.get(index)
        if index in folded:
            continue  # emitted with the node it is fused with
        if index in assignment.fused and decision is not None:
            conv = sources[assignment.fused[index]]
            names = [fresh("bn_filter"), fresh("bn_bias")]
            weights = folded_weights(conv, source, decision.inputs, names) if folded_weights else None
            if weights is not None:  # folded in numpy: two rounded weights instead of eight nodes and their casts
                graph.initializer.extend(weights)
                _emit_fused_conv(graph, conv, source, decision.inputs, names, float32_values, stored, fresh,
                                 cast_pair, ref)
            else:
                _fold_conv_batchnorm(graph, conv, source, decision.inputs, float32_values, stored, fresh, cast_pair,
                                     ranks or {}, ref)
            continue
        if suffix and source.op_type == "Constant" and source.domain in ("", "ai.onnx") and len(source.output) == 1:
            name = source.output[0]
            if decision is None or decision.outputs == FLOAT32 or name not in float32_values:
                shared.add(name)  # the same value in both copies
                continue
            weight = rounded_weight(name, decision.outputs, name + suffix) if rounded_weight else None
            if weight is UNCHANGED:  # every value is one the dtype holds: both copies read the original
                shared.add(name)
                stored[name] = decision.outputs
                continue
            if weight is not None:
                graph.initializer.append(weight)
                stored[name] = decision.outputs
                continue
        inputs = [ref(name) for name in source.input]
        if decision is not None and decision.inputs != FLOAT32:
            for position, name in enumerate(source.input):
                # a value already held in the node's dtype is read as it is; any other is rounded
                if not name or name not in float32_values or stored.get(name, FLOAT32) == decision.inputs:
                    continue
                key = (name, decision.inputs)
                if key not in rounded:
                    target = fresh(name)
                    # a weight (or a Constant's tensor) is rounded once in numpy; a value already rounded
                    # by its own node is rounded again from there, as the device does
                    weight = (rounded_weight(name, decision.inputs, target)
                              if rounded_weight and name not in stored else None)
                    if weight is UNCHANGED:  # a weight the dtype holds exactly (0.5, 3.0, 6.0, ...) is read as it is
                        target = ref(name)
                    elif weight is not None:
                        graph.initializer.append(weight)
                    else:
                        cast_pair(ref(name), decision.inputs, target)
                    rounded[key] = target
                inputs[position] = rounded[key]
        node = graph.node.add()
        node.CopyFrom(source)
        del node.input[:]
        node.input.extend(inputs)
        if suffix:
            for position, name in enumerate(source.output):
                if name:
                    node.output[position] = name + suffix
            if node.name:
                node.name += suffix
        if decision is None or decision.outputs == FLOAT32:
            continue
        exact = (decision.outputs == decision.inputs and source.op_type in VALUE_PRESERVING
                 and source.domain in ("", "ai.onnx"))
        for position, name in enumerate(source.output):
            if not name or name not in float32_values:
                continue
            if exact:  # already a value the dtype holds: rounding would not change it
                stored[name] = decision.outputs
                continue
            raw = fresh(name)
            node.output[position] = raw
            cast_pair(raw, decision.outputs, ref(name))
            stored[name] = decision.outputs
    return shared


def fold_batchnorm(weight: "np.ndarray", bias: "np.ndarray | None", gamma: "np.ndarray", beta: "np.ndarray",
                   mean: "np.ndarray", var: "np.ndarray", epsilon: float) -> "tuple[np.ndarray, np.ndarray]":
    """(filter, bias) of a conv with a BatchNormalization folded in, in float32: filter * scale and
    (bias - mean) * scale + beta with scale = gamma / sqrt(var + epsilon), each operation rounded to
    float32 as the folding nodes of :func:`_fold_conv_batchnorm` round it."""
    import numpy as np

    f32 = np.float32
    scale = gamma.astype(f32) / np.sqrt(var.astype(f32) + f32(epsilon))
    filter_ = weight.astype(f32) * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
    centered = bias.astype(f32) - mean.astype(f32) if bias is not None else -mean.astype(f32)
    return filter_, centered * scale + beta.astype(f32)


def _round(array: "np.ndarray", dtype: str) -> "np.ndarray":
    """A float32 array rounded to ``dtype`` (float16 or bfloat16) and widened again."""
    import numpy as np

    if dtype == FLOAT16 and array.size >= BIT_ROUNDING_SIZE:
        return round_to_float16(array)
    import ml_dtypes

    with np.errstate(over="ignore"):  # beyond the range is inf, as on the device
        return array.astype(np.float16 if dtype == FLOAT16 else ml_dtypes.bfloat16).astype(np.float32)


# float32 bit patterns of the magnitudes float16 holds as normal numbers: from 2**-14 up to (not
# including) 65520, the first magnitude that rounds to inf.
_F16_NORMAL_LOW = 0x38800000
_F16_ROUNDS_TO_INF = 0x477FF000


def round_to_float16(array: "np.ndarray") -> "np.ndarray":
    """``array`` (float32) rounded to float16 and widened again, as ``astype(float16).astype(float32)``
    gives it, bit for bit (every float32 pattern was compared): within float16's normal range the
    rounding to nearest even of the 13 mantissa bits float16 drops is done on the bits, several times
    faster than two conversions; subnormals, the values that overflow, inf and NaN go through numpy."""
    import numpy as np

    bits = np.ascontiguousarray(array, dtype=np.float32).reshape(-1).view(np.uint32)
    odd_bit = (bits >> np.uint32(13)) & np.uint32(1)
    rounded = ((bits + np.uint32(0xFFF) + odd_bit) & np.uint32(0xFFFFE000)).view(np.float32)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    outside = (magnitude < np.uint32(_F16_NORMAL_LOW)) | (magnitude >= np.uint32(_F16_ROUNDS_TO_INF))
    if outside.any():
        with np.errstate(over="ignore"):  # beyond the range is inf, as on the device
            rounded[outside] = bits[outside].view(np.float32).astype(np.float16).astype(np.float32)
    return rounded.reshape(np.shape(array))


def constant_tensors(model: "onnx.ModelProto") -> dict[str, "onnx.TensorProto"]:
    """The float32 tensors root-graph Constant nodes hold (``value``), by the value's name: rounded in
    numpy as weights are, instead of by Cast nodes."""
    found = {}
    for node in model.graph.node:
        if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or len(node.output) != 1:
            continue
        for attribute in node.attribute:
            if attribute.name == "value" and attribute.type == 4 and attribute.t.data_type == ELEM_TYPES[FLOAT32]:
                found[node.output[0]] = attribute.t  # TENSOR
    return found


def _cast(node: "onnx.NodeProto", source: str, target: str, to: int, name: str) -> None:
    """Fill ``node`` as ``Cast(to)``: set in place, which costs less than onnx.helper's checks on a graph
    with thousands of rounding points."""
    node.op_type = "Cast"
    node.name = name
    node.input.append(source)
    node.output.append(target)
    attribute = node.attribute.add()
    attribute.name = "to"
    attribute.type = 2  # AttributeProto.INT
    attribute.i = to


def _fold_conv_batchnorm(graph: Any, conv: "onnx.NodeProto", norm: "onnx.NodeProto", dtype: str,
                         float32_values: Collection[str], stored: dict[str, str], fresh: Any, cast_pair: Any,
                         ranks: Mapping[str, int], ref: Any) -> None:
    """Conv + BatchNormalization as ATC's conv_batchnorm fusion builds it: the filter and bias folded with
    the normalization in float32 (filter * scale, (bias - mean) * scale + offset, scale = gamma /
    sqrt(var + epsilon)), then one conv in ``dtype`` rounded once at its output."""
    import onnx

    make = onnx.helper.make_node
    gamma, beta, mean, var = (ref(v) for v in norm.input[1:5])
    epsilon = next((a.f for a in norm.attribute if a.name == "epsilon"), 1e-5)
    eps, shape = fresh("bn_epsilon"), fresh("bn_shape")
    rank = ranks.get(conv.input[1], 4)
    graph.initializer.append(onnx.helper.make_tensor(eps, onnx.TensorProto.FLOAT, [], [epsilon]))
    graph.initializer.append(onnx.helper.make_tensor(shape, onnx.TensorProto.INT64, [rank], [-1] + [1] * (rank - 1)))
    names = {key: fresh(f"bn_{key}") for key in ("var_eps", "root", "scale", "scale_w", "filter", "centered",
                                                   "scaled", "bias")}
    nodes = [
        make("Add", [var, eps], [names["var_eps"]]),
        make("Sqrt", [names["var_eps"]], [names["root"]]),
        make("Div", [gamma, names["root"]], [names["scale"]]),
        make("Reshape", [names["scale"], shape], [names["scale_w"]]),
        make("Mul", [ref(conv.input[1]), names["scale_w"]], [names["filter"]]),
    ]
    bias = ref(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else None
    nodes.append(make("Sub", [bias, mean], [names["centered"]]) if bias else make("Neg", [mean], [names["centered"]]))
    nodes += [make("Mul", [names["centered"], names["scale"]], [names["scaled"]]),
              make("Add", [names["scaled"], beta], [names["bias"]])]
    for node in nodes:
        node.name = fresh("fold")
    graph.node.extend(nodes)
    weights = []
    for name in (names["filter"], names["bias"]):
        rounded = fresh(name)
        cast_pair(name, dtype, rounded)
        weights.append(rounded)
    _emit_fused_conv(graph, conv, norm, dtype, weights, float32_values, stored, fresh, cast_pair, ref)


def _emit_fused_conv(graph: Any, conv: "onnx.NodeProto", norm: "onnx.NodeProto", dtype: str, weights: Sequence[str],
                     float32_values: Collection[str], stored: dict[str, str], fresh: Any, cast_pair: Any,
                     ref: Any) -> None:
    """The one conv of a conv + BatchNormalization pair: its input rounded to ``dtype``, the folded
    filter and bias (already rounded) as ``weights``, its output rounded once."""
    inputs = []
    x = conv.input[0]
    if x not in float32_values or stored.get(x, FLOAT32) == dtype:
        inputs.append(ref(x))
    else:
        rounded = fresh(x)
        cast_pair(ref(x), dtype, rounded)
        inputs.append(rounded)
    inputs.extend(weights)
    raw = fresh(norm.output[0])
    fused = graph.node.add()
    fused.CopyFrom(conv)
    del fused.input[:]
    fused.input.extend(inputs)
    fused.output[0] = raw
    fused.name = fresh(conv.name or "conv")
    cast_pair(raw, dtype, ref(norm.output[0]))
    stored[norm.output[0]] = dtype


def float32_value_names(simulator: Simulator, reference: Sequence[Values]) -> set[str]:
    """Values that are float32 in the model: graph inputs and weights by their declared type, node outputs
    by the dtype the reference run gave them."""
    import numpy as np

    names = set(simulator.float32_inputs)
    for values in reference[:1]:
        names |= {name for name, array in values.items() if array.dtype == np.float32}
    return names


def describe_feeds(labels: Sequence[str]) -> list[str]:
    return list(labels)


def as_dict(runs: Runs) -> dict[str, Any]:
    return {"sessions": runs.sessions, "seconds": round(runs.seconds, 4)}
