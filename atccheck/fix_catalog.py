"""Which ``atccheck fix`` pass removes which finding: data shared by rules (to suggest) and fix.

Keys are (rule name, op type); op type None means any node of that rule. Values are
(pass name, safe). Rules read this to attach a FixSuggestion; they never run passes.
"""

from __future__ import annotations

from atccheck.findings import FixSuggestion

CATALOG: dict[tuple[str, str | None], tuple[str, bool]] = {
    ("opset-not-registered", None): ("convert-opset", True),
    ("multiple-opset-imports", None): ("single-opset-import", True),
    ("custom-domain-op", None): ("single-opset-import", True),
    ("duplicate-node-name", None): ("rename-duplicate-nodes", True),
    ("dynamic-input-shape", None): ("make-inputs-static", True),
    ("dynamic-shape-unsupported", None): ("simplify", True),
    ("non-constant-input", None): ("simplify", True),
    ("kernel-out-of-range", "Conv"): ("split-large-kernel-conv", True),
    ("reduce-without-axes", None): ("explicit-reduce-axes", True),
    ("input-shape-not-supported", "PRelu"): ("prelu-slope-1d", True),
    ("negative-indices", None): ("non-negative-indices", True),
    ("slice-step-on-last-axis", None): ("unstride-last-axis-slice", True),
    ("pad-value-not-zero", None): ("pad-zero-then-fill", True),
    ("unsupported-op", "Gelu"): ("decompose-gelu", True),
    ("unsupported-op", "LayerNormalization"): ("decompose-layer-normalization", True),
    ("unsupported-op", "GroupNormalization"): ("decompose-group-normalization", True),
    ("unsupported-op", "Mish"): ("decompose-mish", True),
    ("unsupported-op", "HardSwish"): ("decompose-hard-swish", True),
    ("unsupported-op", "HardSigmoid"): ("decompose-hard-sigmoid", True),
    ("unsupported-op", "Einsum"): ("decompose-einsum", True),
    ("opset-not-registered", "LayerNormalization"): ("decompose-layer-normalization", True),
    ("opset-not-registered", "Einsum"): ("decompose-einsum", True),
    ("attr-out-of-range", "Einsum"): ("decompose-einsum", True),
    ("unsupported-op", "Loop"): ("unroll-loop", False),
    # ops with no earlier ONNX version: converting the opset down cannot keep them
    ("opset-not-registered", "Mish"): ("decompose-mish", True),
    ("opset-not-registered", "HardSwish"): ("decompose-hard-swish", True),
    ("kernel-out-of-range", "MaxPool"): ("split-large-pool", True),
    ("kernel-out-of-range", "AveragePool"): ("split-large-pool", True),
    # quantized models: back to float (to quantize again with AMCT)
    ("unsupported-op", "QuantizeLinear"): ("dequantize", False),
    ("unsupported-op", "DequantizeLinear"): ("dequantize", False),
    ("unsupported-op", "DynamicQuantizeLinear"): ("dequantize", False),
    ("unsupported-op", "MatMulInteger"): ("dequantize", False),
    ("unsupported-op", "ConvInteger"): ("dequantize", False),
    ("unsupported-op", "QLinearConv"): ("dequantize", False),
    ("unsupported-op", "QLinearMatMul"): ("dequantize", False),
}

CONTRIB_DECOMPOSITIONS: dict[str, tuple[str, bool]] = {
    "FastGelu": ("decompose-contrib-fast-gelu", True),
    "BiasGelu": ("decompose-contrib-bias-gelu", True),
    "QuickGelu": ("decompose-contrib-quick-gelu", True),
    "SkipLayerNormalization": ("decompose-contrib-skip-layer-normalization", True),
    # onnxruntime's quantizer: back to float (to quantize again with AMCT)
    "QuantizeLinear": ("dequantize", False),
    "DequantizeLinear": ("dequantize", False),
    "QLinearAdd": ("dequantize", False),
    "QLinearMul": ("dequantize", False),
    "QLinearSigmoid": ("dequantize", False),
    "QLinearLeakyRelu": ("dequantize", False),
    "QLinearConcat": ("dequantize", False),
    "QLinearGlobalAveragePool": ("dequantize", False),
    "QLinearAveragePool": ("dequantize", False),
    "QGemm": ("dequantize", False),
    "DynamicQuantizeMatMul": ("dequantize", False),
    "MatMulIntegerToFloat": ("dequantize", False),
    "DynamicQuantizeLSTM": ("dequantize", False),
    "QLinearSoftmax": ("dequantize", False),
    "QLinearReduceMean": ("dequantize", False),
    "QLinearWhere": ("dequantize", False),
    "QAttention": ("dequantize", False),
}


def suggest(rule: str, op_type: str | None = None, domain: str = "") -> FixSuggestion:
    """The pass that fixes a finding of this rule on this op, or ``manual``."""
    if domain == "com.microsoft" and op_type in CONTRIB_DECOMPOSITIONS:
        name, safe = CONTRIB_DECOMPOSITIONS[op_type]
        return FixSuggestion(name, safe)
    for key in ((rule, op_type), (rule, None)):
        if key in CATALOG:
            name, safe = CATALOG[key]
            return FixSuggestion(name, safe)
    return FixSuggestion.manual()
