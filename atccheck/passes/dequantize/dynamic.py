"""Dynamic quantization: DynamicQuantizeLinear into MatMulInteger/ConvInteger, and onnxruntime's fused forms"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes.dequantize.nodes import attr, make_node
from atccheck.passes.dequantize.ops import LSTM_ATTRS, MOVERS
from atccheck.passes.dequantize.walk import Walk

if TYPE_CHECKING:  # pragma: no cover
    import onnx


class DynamicOps(Walk):
    """Dynamic quantization."""

    def _integer_product(self, node: "onnx.NodeProto", op: str) -> bool | str:
        """MatMulInteger/ConvInteger [-> Add(int32 bias)] -> Cast(float) -> Mul(scale_a * scale_b): the float op on
        float values, plus the bias times the same scales.

        The int32 bias Add is what SparseML's exporter and onnxruntime's early quantizer write after the
        integer op (a constant bias, or one quantized at run time by Div, Floor, Cast)."""
        users = self.users.get(node.output[0], [])
        bias_add, bias = None, ""
        if len(users) == 1 and users[0].op_type == "Add" and not users[0].domain and len(users[0].input) == 2:
            bias_add = users[0]
            bias = bias_add.input[1] if bias_add.input[0] == node.output[0] else bias_add.input[0]
            if getattr(self.producer.get(bias), "op_type", None) in ("ConvInteger", "MatMulInteger"):
                return "its int32 result is added to another integer product"
            users = self.users.get(bias_add.output[0], [])
        if len(users) != 1 or users[0].op_type != "Cast" or attr(users[0], "to", 0) != 1:
            return "its int32 result is not only cast to float" + (" after the bias Add" if bias_add else "")
        cast = users[0]
        muls = self.users.get(cast.output[0], [])
        if len(muls) != 1 or muls[0].op_type != "Mul":
            return "the cast result is not multiplied by the scales"
        mul = muls[0]
        scale_of_product = mul.input[1] if mul.input[0] == cast.output[0] else mul.input[0]
        a, b = node.input[0], node.input[1]
        b_zero = node.input[3] if len(node.input) > 3 else None
        fa = self.shadow.get(a)
        if b in self.shadow and self._dynamic_product(scale_of_product, a, b):
            # both operands quantized at run time (weights an exporter lists as graph inputs, as Paddle's do)
            fb: str | None = self.shadow[b]
        else:
            b_scale = self._weight_scale(scale_of_product, a)
            if b_scale is None:
                return "the weight scale is not found in the scale product"
            fb = self.float_of(b, b_scale, b_zero, axis=0 if op == "Conv" else -1)
        if fa is None or fb is None:
            return "an operand is not a dynamically quantized activation or a constant"
        product = self.fresh(mul.output[0]) if bias_add is not None else mul.output[0]
        new = make_node(op, [fa, fb], [product])
        if op == "Conv":
            new.attribute.extend(node.attribute)
        self.out.append(new)
        if bias_add is not None:
            # written where the Mul was: the bias and the scale product may be computed after the integer op
            emitted = len(self.out)
            self.emit("Add", [product, self._scaled_integer_bias(bias, scale_of_product)], [mul.output[0]])
            self.deferred[id(mul)] = self.out[emitted:]
            del self.out[emitted:]
            self.replaced.add(id(bias_add))
        self.replaced.update({id(cast), id(mul)})
        return True

    def _scaled_integer_bias(self, bias: str, scale: str) -> str:
        """The float value of an int32 bias added to the integer product (``Cast(bias) * scale``).

        A constant bias is folded. A bias quantized at run time, ``Cast(Floor(Div(b, scale)))`` and ops that only move
        elements, stands for ``b``, moved the same way: the float bias comes back and the rounding step goes, as
        everywhere in this pass (and the dynamic scales it read are no longer needed). Anything else stays as exact
        run-time arithmetic."""
        import numpy as np

        if bias in self.consts and scale in self.consts:
            value = self.consts[bias].astype(np.float32) * self.consts[scale].astype(np.float32)
            return self.const(bias, value.astype(np.float32))
        recovered = self._bias_quantized_at_run_time(bias, scale)
        if recovered is not None:
            return recovered
        if bias in self.consts:
            as_float = self.const(bias, self.consts[bias].astype(np.float32))
        else:
            as_float = self.fresh(bias)
            self.emit("Cast", [self.value(bias)], [as_float], to=1)
        scaled = self.fresh(bias)
        self.emit("Mul", [as_float, self.value(scale)], [scaled])
        return scaled

    def _bias_quantized_at_run_time(self, bias: str, scale: str) -> str | None:
        """``b`` (moved as ``bias`` is) when ``bias`` = movers(Cast(Floor|Round(Div(b, scale)))), else None."""
        movers = []
        node = self.producer.get(bias)
        while node is not None and node.op_type in MOVERS and not node.domain and node.input:
            movers.append(node)
            node = self.producer.get(node.input[0])
        if node is None or node.op_type != "Cast":
            return None
        node = self.producer.get(node.input[0])
        if node is not None and node.op_type in ("Floor", "Round", "Ceil"):
            node = self.producer.get(node.input[0])
        if node is None or node.op_type != "Div" or not self._same_product(node.input[1], scale):
            return None
        current = self.value(node.input[0])
        for mover in reversed(movers):
            moved = self.fresh(mover.output[0])
            copy = make_node(mover.op_type, [current, *(self.value(i) for i in mover.input[1:])], [moved])
            copy.attribute.extend(mover.attribute)
            self.out.append(copy)
            current = moved
        return current

    def _same_product(self, one: str, other: str) -> bool:
        """``one`` and ``other`` are the same value, or Mul of the same two values."""
        if one == other:
            return True
        a, b = self.producer.get(one), self.producer.get(other)
        return a is not None and b is not None and a.op_type == b.op_type == "Mul" \
            and sorted(a.input) == sorted(b.input)

    def _dynamic_product(self, product: str, a: str, b: str) -> bool:
        """``product`` is Mul of the scales DynamicQuantizeLinear gave ``a`` and ``b``."""
        producer = self.producer.get(product)
        scales = {k for k, v in self.dynamic_scale.items() if v in (self.shadow.get(a), self.shadow.get(b))}
        return producer is not None and producer.op_type == "Mul" and set(producer.input) <= scales \
            and len(set(producer.input)) == 2

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
        lstm = make_node("LSTM", inputs, list(node.output))
        lstm.attribute.extend(a for a in node.attribute if a.name in LSTM_ATTRS)
        self.out.append(lstm)
        return True
