"""QDQ: QuantizeLinear, DynamicQuantizeLinear and DequantizeLinear: the float value flows on"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes.dequantize.nodes import Leave, attr
from atccheck.passes.dequantize.walk import Walk

if TYPE_CHECKING:  # pragma: no cover
    import onnx


class QdqOps(Walk):
    """QDQ."""

    def _QuantizeLinear(self, node: "onnx.NodeProto") -> bool:
        zero = node.input[2] if len(node.input) > 2 else None
        self.shadow[node.output[0]] = self.clamped(self.value(node.input[0]), zero)
        self.out.append(node)  # kept only while something still reads the integer value
        return True

    def _DynamicQuantizeLinear(self, node: "onnx.NodeProto") -> bool:
        self.shadow[node.output[0]] = self.value(node.input[0])
        if len(node.output) > 1 and node.output[1]:
            self.dynamic_scale[node.output[1]] = self.value(node.input[0])
        self.out.append(node)
        return True

    def _DequantizeLinear(self, node: "onnx.NodeProto") -> bool | str:
        x, scale = node.input[0], node.input[1]
        zero = node.input[2] if len(node.input) > 2 else None
        axis = attr(node, "axis", 1)
        if attr(node, "block_size", 0):
            return "blocked quantization (block_size) is not handled"
        value = self.float_of(x, scale, zero, axis)
        if value is not None:
            self.rename[node.output[0]] = value
            return True
        try:
            self.exact_dequantize(x, scale, zero, axis, node.output[0])
        except Leave as exc:
            return str(exc)
        return True

    # ----------------------------------------------------------------- QOperator
