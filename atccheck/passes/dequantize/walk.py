"""The dequantize walk: every node in order, the float value each integer value stands for, and the emitter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atccheck.domains import CONTRIB_DOMAIN, is_standard
from atccheck.model.weights import tensor_array
from atccheck.passes._graph import Names
from atccheck.passes.base import left as note_left
from atccheck.passes.dequantize.nodes import Leave, live, make_node, prune
from atccheck.passes.dequantize.ops import ELEMENTWISE, HANDLED, MOVERS, NOT_HANDLED, QUANTIZE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx


@dataclass
class Walk:
    model: "onnx.ModelProto"
    shadow: dict[str, str] = field(default_factory=dict)  # integer value -> float value it stands for
    dynamic_scale: dict[str, str] = field(default_factory=dict)  # DynamicQuantizeLinear scale -> its input
    consts: dict[str, "np.ndarray"] = field(default_factory=dict)
    rename: dict[str, str] = field(default_factory=dict)
    out: list = field(default_factory=list)
    replaced: set[int] = field(default_factory=set)  # ids of nodes a rewrite took over
    deferred: dict[int, list] = field(default_factory=dict)  # id of a replaced node -> nodes written in its place
    counts: dict[str, int] = field(default_factory=dict)
    # integer output of a rewritten QOperator op -> its (scale, zero point): what requantizes a graph output
    out_params: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    changed: bool = False

    # ----------------------------------------------------------------- walk

    def rewrite(self) -> None:
        import onnx

        graph = self.model.graph
        for t in graph.initializer:
            self.consts[t.name] = tensor_array(t)
        for node in graph.node:
            if node.op_type == "Constant" and not node.domain:
                for attr in node.attribute:
                    if attr.name == "value":
                        self.consts[node.output[0]] = onnx.numpy_helper.to_array(attr.t)
        self.producer = {o: n for n in graph.node for o in n.output if o}
        self.users: dict[str, list] = {}
        for n in graph.node:
            for i in n.input:
                self.users.setdefault(i, []).append(n)
        self.names = Names(self.model)
        for node in list(graph.node):
            if id(node) in self.replaced:
                self.out.extend(self.deferred.pop(id(node), []))
                continue
            handler = self._handler(node)
            left = handler(node) if handler is not None else False
            if left is True:
                self.changed = True
                self.counts[node.op_type] = self.counts.get(node.op_type, 0) + 1
                continue
            if isinstance(left, str):
                self.notes.append(note_left(f"left as is: {node.op_type} '{node.name}': {left}", node.name))
            elif node.op_type in NOT_HANDLED or (node.op_type in HANDLED and node.op_type not in QUANTIZE):
                self.notes.append(note_left(f"left as is: {node.op_type} '{node.name}': no float rewrite for it here",
                                            node.name))
            self.out.append(node)
        if not self.changed:
            return
        for node in self.out:
            for i, name in enumerate(node.input):
                if name in self.rename:
                    node.input[i] = self.rename[name]
        produced = {o for n in self.out for o in n.output}
        for output in graph.output:
            params = self.out_params.get(output.name)
            if output.name not in produced and params is not None and output.name in self.shadow \
                    and self.requantize(self.shadow[output.name], *params, output.name):
                produced.add(output.name)
                self.notes.append(
                    f"output '{output.name}' stays an integer tensor, for the next model of an int8 pipeline: "
                    "the float result requantized by Div, Round, Add, Clip, Cast; its values can move by a step "
                    "from the int8 model's, and fix compares integer outputs exactly")
            if output.name in self.rename:
                self.out.append(make_node("Identity", [self.rename[output.name]], [output.name]))
        del graph.node[:]
        graph.node.extend(live(self.out, {o.name for o in graph.output}))
        prune(graph)

    def _handler(self, node: "onnx.NodeProto") -> "Callable | None":
        """The method that rewrites ``node`` (``_<OpType>``, in the mixins of qdq, qoperator and dynamic)."""
        if not is_standard(node.domain) and node.domain != CONTRIB_DOMAIN:
            return None
        if node.op_type in ELEMENTWISE and node.domain == CONTRIB_DOMAIN:
            return getattr(self, "_elementwise", None)
        return getattr(self, "_" + node.op_type, None) if node.op_type in HANDLED else None

    # ----------------------------------------------------------------- helpers

    def fresh(self, base: str) -> str:
        return self.names.fresh(f"{base}_dq")

    def const(self, base: str, value: "np.ndarray") -> str:
        import onnx

        name = self.fresh(base)
        self.model.graph.initializer.append(onnx.numpy_helper.from_array(value, name))
        self.consts[name] = value
        return name

    def emit(self, op: str, inputs: list[str], outputs: list[str], **attrs) -> None:
        self.out.append(make_node(op, inputs, outputs, **attrs))

    def value(self, name: str) -> str:
        return self.rename.get(name, name)

    def float_of(self, name: str, scale: str | None, zero: str | None, axis: int = 1) -> str | None:
        """A float value equal (up to quantization error) to DequantizeLinear(name, scale, zero, axis)."""
        import numpy as np

        if name in self.shadow:
            return self.shadow[name]
        if name in self.consts and (scale is None or scale in self.consts) and (not zero or zero in self.consts):
            q = self.consts[name]
            if scale is None:
                return None
            s = self.consts[scale].astype(np.float32)
            z = self.consts[zero].astype(np.float32) if zero else np.zeros_like(s)
            if s.ndim == 1 and q.ndim >= 1:
                shape = [1] * q.ndim
                shape[axis % q.ndim] = s.shape[0]
                s, z = s.reshape(shape), z.reshape(shape)
            return self.const(name, ((q.astype(np.float32) - z) * s).astype(np.float32))
        producer = self.producer.get(name)
        if producer is not None and producer.op_type in MOVERS and not producer.domain and producer.input \
                and scale in self.consts and self.consts[scale].size == 1:
            inner = self.float_of(producer.input[0], scale, zero, axis)
            if inner is not None:
                index = list(producer.output).index(name)
                outs = [self.fresh(o or "unused") for o in producer.output]
                copy = make_node(producer.op_type, [inner, *(self.value(i) for i in producer.input[1:])], outs)
                copy.attribute.extend(producer.attribute)
                self.out.append(copy)
                for original, new in zip(producer.output, outs):
                    if original:
                        self.shadow.setdefault(original, new)
                return outs[index]
        return None

    def exact_dequantize(self, name: str, scale: str, zero: str | None, axis: int, out: str) -> None:
        """``(Cast(x) - zero) * scale`` into ``out``: DequantizeLinear of a run-time tensor, exactly."""
        import numpy as np

        s = self.consts.get(scale)
        cast = self.fresh(name)
        self.emit("Cast", [name], [cast], to=1)
        current = cast
        reshaped_scale, reshaped_zero = scale, zero
        if s is not None and s.ndim == 1 and s.size > 1:
            shape = self._axis_shape(name, axis, s.size)
            reshaped_scale = self.const(scale, s.astype(np.float32).reshape(shape))
            if zero:
                reshaped_zero = self.const(zero, self.consts[zero].astype(np.float32).reshape(shape))
        elif zero and zero in self.consts:
            reshaped_zero = self.const(zero, self.consts[zero].astype(np.float32))
        if zero:
            if reshaped_zero == zero:  # a run-time zero point: cast it too
                reshaped_zero = self.fresh(zero)
                self.emit("Cast", [zero], [reshaped_zero], to=1)
            assert reshaped_zero is not None  # it is zero itself or the constant made from it
            sub = self.fresh(name)
            self.emit("Sub", [current, reshaped_zero], [sub])
            current = sub
        self.emit("Mul", [current, reshaped_scale], [out])

    def _axis_shape(self, name: str, axis: int, size: int) -> list[int]:
        rank = self._rank(name)
        if rank is None:
            raise Leave("per-axis scale on a value of unknown rank")
        shape = [1] * rank
        shape[axis % rank] = size
        return shape

    def _rank(self, name: str) -> int | None:
        for vi in (*self.model.graph.input, *self.model.graph.value_info, *self.model.graph.output):
            if vi.name == name and vi.type.tensor_type.HasField("shape"):
                return len(vi.type.tensor_type.shape.dim)
        return None

    def scaled_bias(self, bias: str, *scales: str) -> str | None:
        """An int32 bias of a quantized op as float: bias * scale_a * scale_b."""
        import numpy as np

        if not bias:
            return ""
        if bias not in self.consts or any(s not in self.consts for s in scales):
            return None
        value = self.consts[bias].astype(np.float32)
        for s in scales:
            value = value * self.consts[s].astype(np.float32).reshape(-1) if self.consts[s].size > 1 \
                else value * np.float32(self.consts[s])
        return self.const(bias, value.astype(np.float32))

    # ----------------------------------------------------------------- QDQ

    def clamped(self, value: str, zero: str | None) -> str:
        """``value``, or Relu of it when the quantized range starts at 0 (zero point at the type's minimum).

        onnxruntime's quantizer drops a Relu (or Clip at 0) after Conv/MatMul/Add and lets the
        output range do it; the float model needs it back.
        """
        import numpy as np

        if zero:
            z = self.consts.get(zero)
            if z is None or z.size != 1 or not np.issubdtype(z.dtype, np.integer):
                return value
            if int(z.ravel()[0]) != np.iinfo(z.dtype).min:
                return value
        out = self.fresh(value)
        self.emit("Relu", [value], [out])
        return out

    def quantized(self, name: str, value: str, scale: str, zero: str | None) -> None:
        """``name``, the integer output of a rewritten QOperator op, stands for the float ``value``."""
        self.shadow[name] = self.clamped(value, zero)
        self.out_params[name] = (scale, zero)

    def requantize(self, value: str, scale: str, zero: str | None, out: str) -> bool:
        """``out`` = QuantizeLinear(value, scale, zero) in ops ATC registers: Cast(Clip(Round(value / scale) + zero)).

        For a graph output that is an integer tensor (a model of an int8 pipeline hands it on).
        """
        import numpy as np

        z = self.consts.get(zero) if zero else np.zeros((), np.uint8)
        if scale not in self.consts or z is None or z.size != 1:
            return False
        info = np.iinfo(z.dtype)
        dtype = {np.dtype(np.uint8): 2, np.dtype(np.int8): 3}.get(z.dtype)
        if dtype is None:
            return False
        ratio, rounded, shifted, clipped = (self.fresh(value) for _ in range(4))
        self.emit("Div", [value, self.const("scale", self.consts[scale].astype(np.float32).reshape(()))], [ratio])
        self.emit("Round", [ratio], [rounded])
        self.emit("Add", [rounded, self.const("zero", z.astype(np.float32).reshape(()))], [shifted])
        self.emit("Clip", [shifted, self.const("low", np.array(info.min, np.float32)),
                           self.const("high", np.array(info.max, np.float32))], [clipped])
        self.emit("Cast", [clipped], [out], to=dtype)
        return True
