"""dequantize (unsafe): turn a quantized model (QDQ or QOperator) back into a float model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atccheck.passes.base import Cosine, FixLink, FixPass, PassContext, PassResult, left as note_left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

QUANTIZE = frozenset({"QuantizeLinear", "DynamicQuantizeLinear"})
DEQUANTIZE = "DequantizeLinear"
# Ops that move or pick elements without arithmetic: on a per-tensor quantized input they commute
# with dequantization (MaxPool too: dequantization with a positive scale keeps the order).
MOVERS = frozenset({
    "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Gather", "Slice", "Split",
    "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "MaxPool",
})
# com.microsoft QLinear ops with the float op they quantize: (float op, value inputs, output scale input)
ELEMENTWISE = {
    "QLinearAdd": ("Add", (0, 3), 6),
    "QLinearMul": ("Mul", (0, 3), 6),
    "QLinearSigmoid": ("Sigmoid", (0,), 3),
    "QLinearLeakyRelu": ("LeakyRelu", (0,), 3),
    "QLinearGlobalAveragePool": ("GlobalAveragePool", (0,), 3),
    "QLinearAveragePool": ("AveragePool", (0,), 3),
}
# everything this pass rewrites (reported by the rules as unsupported or custom-domain ops)
HANDLED = frozenset({
    *QUANTIZE, DEQUANTIZE, "QLinearConv", "QLinearMatMul", "MatMulInteger", "ConvInteger", "QGemm",
    "QLinearConcat", "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "DynamicQuantizeLSTM", *ELEMENTWISE,
    "QLinearSoftmax", "QLinearReduceMean", "QLinearWhere", "QAttention",
})
# quantized ops of onnxruntime this pass does not rewrite (named in its notes)
NOT_HANDLED = frozenset({
    "QLinearConvTranspose", "QEmbedLayerNormalization", "QLinearLayerNormalization", "QOrderedMatMul",
    "QuantizeBFP", "DequantizeBFP",
    "DynamicQuantizeMatMulNBits", "MatMulNBits",
})
LSTM_ATTRS = ("activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
              "input_forget")
POOL_ATTRS = ("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides")


@register_pass
class Dequantize(FixPass):
    """Rewrite a quantized model into the float model it approximates.

    ATC's ONNX parser registers none of the quantization ops (QuantizeLinear, DequantizeLinear,
    DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearConv, QLinearMatMul) nor the
    ``com.microsoft`` ops onnxruntime's quantizer writes; a model for Ascend is quantized with
    AMCT instead. This pass gives the float model back, to convert as is or to quantize again
    with AMCT:

    - DequantizeLinear of a constant (weights, biases) becomes a float initializer, also through
      Gather/Transpose/Reshape-style ops between the two (an int8 embedding table).
    - QuantizeLinear -> DequantizeLinear pairs on activations are dropped (the float value flows
      on), also across ops that only move elements (Reshape, Transpose, MaxPool, ...).
    - QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul, QLinearSigmoid,
      QLinearLeakyRelu, QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool (NCHW),
      QLinearSoftmax, QLinearReduceMean and QLinearWhere become Conv, MatMul, Gemm, Add, ...
      on float values; int32 biases are scaled into float. QAttention becomes the float
      ``com.microsoft`` Attention (which a decompose pass rewrites into standard ops).
    - DynamicQuantizeLinear -> MatMulInteger/ConvInteger -> Cast -> Mul (onnxruntime's dynamic
      quantization) becomes MatMul/Conv on the float input with dequantized weights;
      DynamicQuantizeMatMul, MatMulIntegerToFloat and DynamicQuantizeLSTM become MatMul(+Add)
      and LSTM.
    - A DequantizeLinear of a run-time integer tensor (an int8 graph input) becomes exact float
      arithmetic: ``(Cast(x) - zero_point) * scale``.

    Unsafe: the result drops the rounding and saturation of every quantized activation, so its
    outputs differ from the quantized model by the quantization error; the step is accepted
    when each output keeps a cosine similarity of at least 0.99 with the quantized model's (see
    docs/fix.md). Left with a note: QLinearConvTranspose, QEmbedLayerNormalization, MatMulNBits,
    channels-last pools, a QLinearSoftmax whose axis changed meaning between opsets, ops inside
    subgraphs, MatMulInteger/ConvInteger whose scales are not found in the Cast -> Mul pattern.
    """

    name = "dequantize"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "QuantizeLinear"),
        FixLink("unsupported-op", "DequantizeLinear"),
        FixLink("unsupported-op", "DynamicQuantizeLinear"),
        FixLink("unsupported-op", "MatMulInteger"),
        FixLink("unsupported-op", "ConvInteger"),
        FixLink("unsupported-op", "QLinearConv"),
        FixLink("unsupported-op", "QLinearMatMul"),
        *FixLink.replaces("QuantizeLinear"),
        *FixLink.replaces("DequantizeLinear"),
        *FixLink.replaces("QLinearAdd"),
        *FixLink.replaces("QLinearMul"),
        *FixLink.replaces("QLinearSigmoid"),
        *FixLink.replaces("QLinearLeakyRelu"),
        *FixLink.replaces("QLinearConcat"),
        *FixLink.replaces("QLinearGlobalAveragePool"),
        *FixLink.replaces("QLinearAveragePool"),
        *FixLink.replaces("QGemm"),
        *FixLink.replaces("DynamicQuantizeMatMul"),
        *FixLink.replaces("MatMulIntegerToFloat"),
        *FixLink.replaces("DynamicQuantizeLSTM"),
        *FixLink.replaces("QLinearSoftmax"),
        *FixLink.replaces("QLinearReduceMean"),
        *FixLink.replaces("QLinearWhere"),
        *FixLink.replaces("QAttention"),
        # it also runs for these rules' findings on any op it handles
        *(FixLink(rule, op, named=False) for rule in ("unsupported-op", "custom-domain-op", "opset-not-registered",
                                                      "dtype-not-supported") for op in sorted(HANDLED)),
    )
    safe = False
    comparison = Cosine(0.99)  # judged by each output's cosine similarity, not elementwise

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        work = _Dequantizer(model)
        work.rewrite()
        if not work.changed:
            return PassResult(model, False, work.notes)
        notes = ["the result is a float model: quantize it again for Ascend with AMCT (Huawei's quantization "
                 "tool); the int8 ops of this model are not kept"]
        notes.append("rewritten into float ops: " + ", ".join(f"{op} x{n}" for op, n in sorted(work.counts.items())))
        return PassResult(model, True, notes + work.notes)


@dataclass
class _Dequantizer:
    model: "onnx.ModelProto"
    shadow: dict[str, str] = field(default_factory=dict)  # integer value -> float value it stands for
    dynamic_scale: dict[str, str] = field(default_factory=dict)  # DynamicQuantizeLinear scale -> its input
    consts: dict[str, "np.ndarray"] = field(default_factory=dict)
    rename: dict[str, str] = field(default_factory=dict)
    out: list = field(default_factory=list)
    replaced: set[int] = field(default_factory=set)  # ids of nodes a rewrite took over
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    changed: bool = False
    serial: int = 0

    # ----------------------------------------------------------------- walk

    def rewrite(self) -> None:
        import onnx

        graph = self.model.graph
        for t in graph.initializer:
            self.consts[t.name] = onnx.numpy_helper.to_array(t)
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
        self.names = {n for n in (*self.consts, *self.producer, *(i.name for i in graph.input))}
        for node in list(graph.node):
            if id(node) in self.replaced:
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
        for output in graph.output:
            if output.name in self.rename:
                self.out.append(_node("Identity", [self.rename[output.name]], [output.name]))
        del graph.node[:]
        graph.node.extend(_live(self.out, {o.name for o in graph.output}))
        _prune(graph)

    def _handler(self, node: "onnx.NodeProto") -> "Callable | None":
        if node.domain not in ("", "ai.onnx", "com.microsoft"):
            return None
        if node.op_type in ELEMENTWISE and node.domain == "com.microsoft":
            return self._elementwise
        return getattr(self, "_" + node.op_type, None) if node.op_type in HANDLED else None

    # ----------------------------------------------------------------- helpers

    def fresh(self, base: str) -> str:
        while True:
            self.serial += 1
            name = f"{base}_dq{self.serial}"
            if name not in self.names:
                self.names.add(name)
                return name

    def const(self, base: str, value: "np.ndarray") -> str:
        import onnx

        name = self.fresh(base)
        self.model.graph.initializer.append(onnx.numpy_helper.from_array(value, name))
        self.consts[name] = value
        return name

    def emit(self, op: str, inputs: list[str], outputs: list[str], **attrs) -> None:
        self.out.append(_node(op, inputs, outputs, **attrs))

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
                copy = _node(producer.op_type, [inner, *(self.value(i) for i in producer.input[1:])], outs)
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
            raise _Leave("per-axis scale on a value of unknown rank")
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

    def _QuantizeLinear(self, node: "onnx.NodeProto") -> bool:
        zero = node.input[2] if len(node.input) > 2 else None
        self.shadow[node.output[0]] = self.clamped(self.value(node.input[0]), zero)
        self.out.append(node)  # kept only while something still reads the integer value
        return True

    def _DynamicQuantizeLinear(self, node: "onnx.NodeProto") -> bool:
        self.shadow[node.output[0]] = self.value(node.input[0])
        if len(node.output) > 1 and node.output[1]:
            self.dynamic_scale[node.output[1]] = node.input[0]
        self.out.append(node)
        return True

    def _DequantizeLinear(self, node: "onnx.NodeProto") -> bool | str:
        x, scale = node.input[0], node.input[1]
        zero = node.input[2] if len(node.input) > 2 else None
        axis = _attr(node, "axis", 1)
        if _attr(node, "block_size", 0):
            return "blocked quantization (block_size) is not handled"
        value = self.float_of(x, scale, zero, axis)
        if value is not None:
            self.rename[node.output[0]] = value
            return True
        try:
            self.exact_dequantize(x, scale, zero, axis, node.output[0])
        except _Leave as exc:
            return str(exc)
        return True

    # ----------------------------------------------------------------- QOperator

    def _QLinearConv(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * (9 - len(node.input))
        x = self.float_of(i[0], i[1], i[2])
        w = self.float_of(i[3], i[4], i[5], axis=0)
        bias = self.scaled_bias(i[8], i[1], i[4])
        if x is None or w is None or bias is None:
            return "its input, weights or bias are not constant or dequantizable"
        out = self.fresh(node.output[0])
        conv = _node("Conv", [x, w] + ([bias] if bias else []), [out])
        conv.attribute.extend(node.attribute)
        self.out.append(conv)
        self.shadow[node.output[0]] = self.clamped(out, i[7])
        return True

    def _QLinearMatMul(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input)
        a = self.float_of(i[0], i[1], i[2], axis=-1)
        b = self.float_of(i[3], i[4], i[5], axis=-1)
        if a is None or b is None:
            return "an operand is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        self.emit("MatMul", [a, b], [out])
        self.shadow[node.output[0]] = self.clamped(out, i[7] if len(i) > 7 else None)
        return True

    def _QGemm(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * (9 - len(node.input))
        trans_b = _attr(node, "transB", 0)
        a = self.float_of(i[0], i[1], i[2])
        b = self.float_of(i[3], i[4], i[5], axis=0 if trans_b else -1)
        bias = self.scaled_bias(i[6], i[1], i[4])
        if a is None or b is None or bias is None:
            return "an operand or the bias is not dequantizable"
        quantized_out = bool(i[7])
        out = self.fresh(node.output[0]) if quantized_out else node.output[0]
        gemm = _node("Gemm", [a, b] + ([bias] if bias else []), [out])
        gemm.attribute.extend(a_ for a_ in node.attribute if a_.name in ("alpha", "transA", "transB"))
        self.out.append(gemm)
        if quantized_out:
            self.shadow[node.output[0]] = self.clamped(out, i[8])
        return True

    def _elementwise(self, node: "onnx.NodeProto") -> bool | str:
        op, values, out_scale = ELEMENTWISE[node.op_type]
        if _attr(node, "channels_last", 0):
            return "channels_last layout is not handled"
        i = list(node.input) + [""] * 8
        maybe_floats = [self.float_of(i[v], i[v + 1], i[v + 2]) for v in values]
        floats = [f for f in maybe_floats if f is not None]
        if len(floats) != len(maybe_floats):
            return "an operand is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        keep = ("alpha",) if op == "LeakyRelu" else POOL_ATTRS if op == "AveragePool" else ()
        new = _node(op, floats, [out])
        new.attribute.extend(a for a in node.attribute if a.name in keep)
        self.out.append(new)
        self.shadow[node.output[0]] = self.clamped(out, i[out_scale + 1] or None)
        return True

    def _QLinearConcat(self, node: "onnx.NodeProto") -> bool | str:
        items = list(node.input[2:])
        if len(items) % 3:
            return "inputs are not (value, scale, zero point) triples"
        maybe_floats = [self.float_of(items[k], items[k + 1], items[k + 2]) for k in range(0, len(items), 3)]
        floats = [f for f in maybe_floats if f is not None]
        if len(floats) != len(maybe_floats):
            return "an input is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        self.emit("Concat", floats, [out], axis=_attr(node, "axis", 0))
        self.shadow[node.output[0]] = out
        return True

    def _quantized_out(self, node: "onnx.NodeProto", out: str, zero_index: int) -> bool:
        zero = node.input[zero_index] if len(node.input) > zero_index else None
        self.shadow[node.output[0]] = self.clamped(out, zero or None)
        return True

    def _QLinearSoftmax(self, node: "onnx.NodeProto") -> bool | str:
        from atccheck.passes._graph import opset_of

        i = list(node.input) + [""] * 5
        x = self.float_of(i[0], i[1], i[2] or None)
        if x is None:
            return "its input is neither a dequantizable constant nor a quantized activation"
        axis = _attr(node, "axis", -1)
        rank = self._rank(i[0])
        last = axis == -1 or (rank is not None and axis == rank - 1)
        same_era = (_attr(node, "opset", 13) >= 13) == ((opset_of(self.model) or 13) >= 13)
        if not (last or same_era):
            return "its axis means another thing at the model's opset (Softmax changed at 13)"
        out = self.fresh(node.output[0])
        self.emit("Softmax", [x], [out], axis=axis)
        return self._quantized_out(node, out, 4)

    def _QLinearReduceMean(self, node: "onnx.NodeProto") -> bool | str:
        import numpy as np

        from atccheck.passes._graph import opset_of

        i = list(node.input) + [""] * 5
        x = self.float_of(i[0], i[1], i[2] or None)
        if x is None:
            return "its input is neither a dequantizable constant nor a quantized activation"
        axes = _attr(node, "axes", None)
        keepdims = _attr(node, "keepdims", 1)
        out = self.fresh(node.output[0])
        if axes is None:
            self.emit("ReduceMean", [x], [out], keepdims=keepdims)
        elif (opset_of(self.model) or 13) >= 18:
            self.emit("ReduceMean", [x, self.const("axes", np.array(axes, np.int64))], [out], keepdims=keepdims)
        else:
            self.emit("ReduceMean", [x], [out], axes=list(axes), keepdims=keepdims)
        return self._quantized_out(node, out, 4)

    def _QLinearWhere(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * 9
        x = self.float_of(i[1], i[2], i[3] or None)
        y = self.float_of(i[4], i[5], i[6] or None)
        if x is None or y is None:
            return "an operand is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        self.emit("Where", [self.value(i[0]), x, y], [out])
        return self._quantized_out(node, out, 8)

    def _QAttention(self, node: "onnx.NodeProto") -> bool | str:
        """QAttention -> com.microsoft Attention on float input and weights (a decompose pass takes it on)."""
        i = list(node.input) + [""] * 9
        x = self.float_of(i[0], i[3], i[6] or None)
        w = self.float_of(i[1], i[4], i[7] or None, axis=-1)
        if x is None or w is None:
            return "its input or weights are not dequantizable"
        inputs = [x, w, self.value(i[2]), self.value(i[5]), self.value(i[8])]
        while inputs and not inputs[-1]:
            inputs.pop()
        attention = _node("Attention", inputs, list(node.output))
        attention.domain = "com.microsoft"
        attention.attribute.extend(node.attribute)
        self.out.append(attention)
        return True

    # ----------------------------------------------------------------- dynamic quantization

    def _integer_product(self, node: "onnx.NodeProto", op: str) -> bool | str:
        """MatMulInteger/ConvInteger -> Cast(float) -> Mul(scale_a * scale_b): the float op on float values."""
        users = self.users.get(node.output[0], [])
        if len(users) != 1 or users[0].op_type != "Cast" or _attr(users[0], "to", 0) != 1:
            return "its int32 result is not only cast to float"
        cast = users[0]
        muls = self.users.get(cast.output[0], [])
        if len(muls) != 1 or muls[0].op_type != "Mul":
            return "the cast result is not multiplied by the scales"
        mul = muls[0]
        scale_of_product = mul.input[1] if mul.input[0] == cast.output[0] else mul.input[0]
        a, b = node.input[0], node.input[1]
        b_zero = node.input[3] if len(node.input) > 3 else None
        b_scale = self._weight_scale(scale_of_product, a)
        if b_scale is None:
            return "the weight scale is not found in the scale product"
        fa = self.shadow.get(a)
        fb = self.float_of(b, b_scale, b_zero, axis=0 if op == "Conv" else -1)
        if fa is None or fb is None:
            return "an operand is not a dynamically quantized activation or a constant"
        new = _node(op, [fa, fb], [mul.output[0]])
        if op == "Conv":
            new.attribute.extend(node.attribute)
        self.out.append(new)
        self.replaced.update({id(cast), id(mul)})
        return True

    def _weight_scale(self, product: str, a: str) -> str | None:
        """The constant scale of the weights in ``product`` = Mul(scale of a, weight scale)."""
        import numpy as np

        producer = self.producer.get(product)
        a_scale = next((k for k, v in self.dynamic_scale.items() if self.shadow.get(a) == v), None)
        if producer is not None and producer.op_type == "Mul" and a_scale in producer.input:
            other = producer.input[1] if producer.input[0] == a_scale else producer.input[0]
            return other if other in self.consts else None
        quantizer = self.producer.get(a)
        if product in self.consts and quantizer is not None and quantizer.op_type == "QuantizeLinear" \
                and quantizer.input[1] in self.consts:
            return self.const(product, (self.consts[product] / self.consts[quantizer.input[1]]).astype(np.float32))
        return None

    def _MatMulInteger(self, node: "onnx.NodeProto") -> bool | str:
        return self._integer_product(node, "MatMul")

    def _ConvInteger(self, node: "onnx.NodeProto") -> bool | str:
        return self._integer_product(node, "Conv")

    def _DynamicQuantizeMatMul(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * 5
        b = self.float_of(i[1], i[2], i[3] or None, axis=-1)
        if b is None:
            return "its weights are not constant"
        self._matmul_bias(self.value(i[0]), b, i[4], node.output[0])
        return True

    def _MatMulIntegerToFloat(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * 7
        a = self.float_of(i[0], i[2], i[4] or None, axis=-1)
        b = self.float_of(i[1], i[3], i[5] or None, axis=-1)
        if a is None or b is None:
            return "an operand is neither a dequantizable constant nor a quantized activation"
        self._matmul_bias(a, b, i[6], node.output[0])
        return True

    def _matmul_bias(self, a: str, b: str, bias: str, out: str) -> None:
        if bias:
            product = self.fresh(out)
            self.emit("MatMul", [a, b], [product])
            self.emit("Add", [product, self.value(bias)], [out])
        else:
            self.emit("MatMul", [a, b], [out])

    def _DynamicQuantizeLSTM(self, node: "onnx.NodeProto") -> bool | str:
        import numpy as np

        i = list(node.input) + [""] * 12
        weights = []
        for w, s, z in ((i[1], i[8], i[9]), (i[2], i[10], i[11])):
            if w not in self.consts or s not in self.consts or (z and z not in self.consts):
                return "its weights, scales or zero points are not constant"
            q = self.consts[w].astype(np.float32)  # [directions, in, 4*hidden]
            scale = self.consts[s].astype(np.float32)
            zero = self.consts[z].astype(np.float32) if z else np.zeros_like(scale)
            shape = (q.shape[0], 1, q.shape[2]) if scale.ndim == 2 else (q.shape[0], 1, 1)
            dequantized = (q - zero.reshape(shape)) * scale.reshape(shape)
            weights.append(self.const(w, np.ascontiguousarray(dequantized.transpose(0, 2, 1))))
        inputs = [self.value(i[0]), *weights, *(self.value(n) for n in i[3:8])]
        while inputs and not inputs[-1]:
            inputs.pop()
        lstm = _node("LSTM", inputs, list(node.output))
        lstm.attribute.extend(a for a in node.attribute if a.name in LSTM_ATTRS)
        self.out.append(lstm)
        return True


class _Leave(Exception):
    """A node the pass leaves as is; the message says why."""


def _node(op: str, inputs: list[str], outputs: list[str], **attrs) -> "onnx.NodeProto":
    import onnx

    return onnx.helper.make_node(op, inputs, outputs, name=outputs[0] + "_" + op, **attrs)


def _attr(node: "onnx.NodeProto", name: str, default):
    import onnx

    for attr in node.attribute:
        if attr.name == name:
            return onnx.helper.get_attribute_value(attr)
    return default


def _live(nodes: list, outputs: set[str]) -> list:
    """The nodes something still reads, in order (dead integer leftovers dropped)."""
    needed = set(outputs)
    keep = []
    for node in reversed(nodes):
        if any(o in needed for o in node.output if o):
            keep.append(node)
            needed.update(i for i in node.input if i)
            for attr in node.attribute:  # values read inside subgraphs
                if attr.type == attr.GRAPH:
                    needed.update(_graph_reads(attr.g))
    keep.reverse()
    return keep


def _graph_reads(graph: "onnx.GraphProto") -> set[str]:
    reads: set[str] = set()
    for node in graph.node:
        reads.update(i for i in node.input if i)
        for attr in node.attribute:
            if attr.type == attr.GRAPH:
                reads.update(_graph_reads(attr.g))
    return reads


def _prune(graph: "onnx.GraphProto") -> None:
    used = set(o.name for o in graph.output)
    for node in graph.node:
        used.update(node.input)
        for attr in node.attribute:
            if attr.type == attr.GRAPH:
                used.update(_graph_reads(attr.g))
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    produced = {o for n in graph.node for o in n.output}
    infos = [vi for vi in graph.value_info if vi.name in produced]
    del graph.value_info[:]
    graph.value_info.extend(infos)
