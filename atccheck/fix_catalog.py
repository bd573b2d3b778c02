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
    ("unsupported-op", "SimplifiedLayerNormalization"): ("decompose-simplified-layer-normalization", True),
    ("unsupported-op", "RMSNormalization"): ("decompose-rms-normalization", True),
    ("opset-not-registered", "RMSNormalization"): ("decompose-rms-normalization", True),
    ("unsupported-op", "GridSample"): ("decompose-grid-sample", True),
    ("opset-not-registered", "GridSample"): ("decompose-grid-sample", True),
    ("opset-not-registered", "AffineGrid"): ("decompose-affine-grid", True),
    ("unsupported-op", "RotaryEmbedding"): ("decompose-rotary-embedding", True),
    ("opset-not-registered", "RotaryEmbedding"): ("decompose-rotary-embedding", True),
    ("unsupported-op", "Attention"): ("decompose-attention", True),
    ("opset-not-registered", "Attention"): ("decompose-attention", True),
    ("unsupported-op", "STFT"): ("decompose-stft", True),
    ("attr-out-of-range", "Resize"): ("use-pytorch-half-pixel", True),
    ("unsupported-op", "HannWindow"): ("decompose-window-functions", True),
    ("unsupported-op", "HammingWindow"): ("decompose-window-functions", True),
    ("unsupported-op", "BlackmanWindow"): ("decompose-window-functions", True),
    ("unsupported-op", "DFT"): ("decompose-dft", True),
    ("attr-out-of-range", "GridSample"): ("decompose-grid-sample", True),
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
    "FusedConv": ("decompose-contrib-fused-conv", True),
    "FusedGemm": ("decompose-contrib-fused-gemm", True),
    "FusedMatMul": ("decompose-contrib-fused-matmul", True),
    "SkipSimplifiedLayerNormalization": ("decompose-contrib-skip-simplified-layer-normalization", True),
    "Attention": ("decompose-contrib-attention", True),
    "EmbedLayerNormalization": ("decompose-contrib-embed-layer-normalization", True),
    "Gelu": ("decompose-contrib-gelu", True),
    "RotaryEmbedding": ("decompose-contrib-rotary-embedding", True),
    "GemmFastGelu": ("decompose-contrib-gemm-fast-gelu", True),
    "BiasAdd": ("decompose-contrib-bias-add", True),
    "BiasSplitGelu": ("decompose-contrib-bias-split-gelu", True),
    "MultiHeadAttention": ("decompose-contrib-multi-head-attention", True),
    "GridSample": ("decompose-contrib-grid-sample", True),
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


# Custom domains no pass rewrites but whose origin tells the user what to do instead.
DOMAIN_HINTS: dict[str, str] = {
    # onnxruntime's level-"all" optimizer writes its CPU kernels' blocked NCHWc layout (ReorderInput,
    # nchwc Conv/MaxPool/...), sized for the CPU that saved the model; level "extended" does not.
    "com.microsoft.nchwc": (
        "the model was saved by onnxruntime at optimization level 'all' (NCHWc layout for its CPU kernels): "
        "save it again at level 'extended' (ORT_ENABLE_EXTENDED), whose fused ops 'atccheck fix' decomposes, "
        "or use the model before onnxruntime optimized it"
    ),
}


def _resize_rewritable(attr: str | None, value: object) -> bool:
    """use-pytorch-half-pixel renames half_pixel; no other Resize attribute value has an equivalent."""
    return attr == "coordinate_transformation_mode" and value == "half_pixel"


def _grid_sample_rewritable(attr: str | None, value: object) -> bool:
    """decompose-grid-sample rewrites every mode and padding mode of a 4-D GridSample."""
    return attr in ("mode", "padding_mode", "align_corners")


# Which attribute values the pass CATALOG names for (rule, op type) can rewrite: a finding on
# any other value says ``manual``.
REWRITABLE_VALUES = {
    ("attr-out-of-range", "Resize"): _resize_rewritable,
    ("attr-out-of-range", "GridSample"): _grid_sample_rewritable,
}


def suggest(rule: str, op_type: str | None = None, domain: str = "", attr: str | None = None,
            value: object = None) -> FixSuggestion:
    """The pass that fixes a finding of this rule on this op (and attribute value), or ``manual``."""
    check = REWRITABLE_VALUES.get((rule, op_type or ""))
    if check is not None and attr is not None and not check(attr, value):
        return FixSuggestion.manual()
    if domain == "com.microsoft" and op_type in CONTRIB_DECOMPOSITIONS:
        name, safe = CONTRIB_DECOMPOSITIONS[op_type]
        return FixSuggestion(name, safe)
    for key in ((rule, op_type), (rule, None)):
        if key in CATALOG:
            name, safe = CATALOG[key]
            return FixSuggestion(name, safe)
    return FixSuggestion.manual()
