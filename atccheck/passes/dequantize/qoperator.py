"""QOperator: QLinear* and the com.microsoft quantized ops become the float op on float values"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.domains import CONTRIB_DOMAIN
from atccheck.passes.dequantize.nodes import attr, make_node
from atccheck.passes.dequantize.ops import ELEMENTWISE, POOL_ATTRS
from atccheck.passes.dequantize.walk import Walk

if TYPE_CHECKING:  # pragma: no cover
    import onnx


class QOperatorOps(Walk):
    """QOperator."""

    def _QLinearConv(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * (9 - len(node.input))
        x = self.float_of(i[0], i[1], i[2])
        w = self.float_of(i[3], i[4], i[5], axis=0)
        bias = self.scaled_bias(i[8], i[1], i[4])
        if x is None or w is None or bias is None:
            return "its input, weights or bias are not constant or dequantizable"
        out = self.fresh(node.output[0])
        conv = make_node("Conv", [x, w] + ([bias] if bias else []), [out])
        conv.attribute.extend(node.attribute)
        self.out.append(conv)
        self.quantized(node.output[0], out, i[6], i[7])
        return True

    def _QLinearMatMul(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input)
        a = self.float_of(i[0], i[1], i[2], axis=-1)
        b = self.float_of(i[3], i[4], i[5], axis=-1)
        if a is None or b is None:
            return "an operand is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        self.emit("MatMul", [a, b], [out])
        self.quantized(node.output[0], out, i[6], i[7] if len(i) > 7 else None)
        return True

    def _QGemm(self, node: "onnx.NodeProto") -> bool | str:
        i = list(node.input) + [""] * (9 - len(node.input))
        trans_b = attr(node, "transB", 0)
        a = self.float_of(i[0], i[1], i[2])
        b = self.float_of(i[3], i[4], i[5], axis=0 if trans_b else -1)
        bias = self.scaled_bias(i[6], i[1], i[4])
        if a is None or b is None or bias is None:
            return "an operand or the bias is not dequantizable"
        quantized_out = bool(i[7])
        out = self.fresh(node.output[0]) if quantized_out else node.output[0]
        gemm = make_node("Gemm", [a, b] + ([bias] if bias else []), [out])
        gemm.attribute.extend(a_ for a_ in node.attribute if a_.name in ("alpha", "transA", "transB"))
        self.out.append(gemm)
        if quantized_out:
            self.quantized(node.output[0], out, i[7], i[8])
        return True

    def _elementwise(self, node: "onnx.NodeProto") -> bool | str:
        op, values, out_scale = ELEMENTWISE[node.op_type]
        if attr(node, "channels_last", 0):
            return "channels_last layout is not handled"
        i = list(node.input) + [""] * 8
        maybe_floats = [self.float_of(i[v], i[v + 1], i[v + 2]) for v in values]
        floats = [f for f in maybe_floats if f is not None]
        if len(floats) != len(maybe_floats):
            return "an operand is neither a dequantizable constant nor a quantized activation"
        out = self.fresh(node.output[0])
        keep = ("alpha",) if op == "LeakyRelu" else POOL_ATTRS if op == "AveragePool" else ()
        new = make_node(op, floats, [out])
        new.attribute.extend(a for a in node.attribute if a.name in keep)
        self.out.append(new)
        self.quantized(node.output[0], out, i[out_scale], i[out_scale + 1] or None)
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
        self.emit("Concat", floats, [out], axis=attr(node, "axis", 0))
        self.shadow[node.output[0]] = out
        self.out_params[node.output[0]] = (node.input[0], node.input[1] or None)
        return True

    def _quantized_out(self, node: "onnx.NodeProto", out: str, zero_index: int) -> bool:
        zero = node.input[zero_index] if len(node.input) > zero_index else None
        self.quantized(node.output[0], out, node.input[zero_index - 1], zero or None)
        return True

    def _QLinearSoftmax(self, node: "onnx.NodeProto") -> bool | str:
        from atccheck.passes._graph import opset_of

        i = list(node.input) + [""] * 5
        x = self.float_of(i[0], i[1], i[2] or None)
        if x is None:
            return "its input is neither a dequantizable constant nor a quantized activation"
        axis = attr(node, "axis", -1)
        rank = self._rank(i[0])
        last = axis == -1 or (rank is not None and axis == rank - 1)
        same_era = (attr(node, "opset", 13) >= 13) == ((opset_of(self.model) or 13) >= 13)
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
        axes = attr(node, "axes", None)
        keepdims = attr(node, "keepdims", 1)
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
        attention = make_node("Attention", inputs, list(node.output))
        attention.domain = CONTRIB_DOMAIN
        attention.attribute.extend(node.attribute)
        self.out.append(attention)
        return True

    # ----------------------------------------------------------------- dynamic quantization
