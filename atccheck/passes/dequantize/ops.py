"""The quantized ops dequantize knows: which it rewrites, which it names as left, and their float forms."""

from __future__ import annotations

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
