"""Types and shapes past onnxruntime's own ops, which onnx shape inference cannot see through.

onnx knows no com.microsoft schema (nor onnxruntime's standard-domain SimplifiedLayerNormalization,
nor the LayerNormalization onnxruntime writes below opset 17),
so in a model onnxruntime optimized every value after its first fused op has no type: a
decomposition that needs its input's element type would wait one fixer round per layer.
:func:`contrib_aware_shapes` fills in the outputs of the ops the decompositions handle, from
the rules of their schemas (onnxruntime 1.32), and lets onnx inference carry them through the
standard ops that follow, layer by layer, on a weight-free copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from atccheck.domains import AI_ONNX, CONTRIB_DOMAIN

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.model.shapes import ShapeIndex, TensorInfo

MAX_ITERATIONS = 400  # one onnx inference per layer of fused ops; a BERT-large has about 100

Infos = Mapping[str, "TensorInfo"]
Rule = Callable[["onnx.NodeProto", Infos], "dict[int, TensorInfo]"]


def _get(infos: Infos, node: "onnx.NodeProto", index: int) -> "TensorInfo | None":
    name = node.input[index] if index < len(node.input) else ""
    info = infos.get(name) if name else None
    return info if info is not None and info.elem_type else None


def _like(index: int, outputs: tuple[int, ...] = (0,)) -> Rule:
    """Outputs of the type and shape of input ``index``."""

    def rule(node, infos):
        info = _get(infos, node, index)
        return {k: info for k in outputs} if info is not None else {}

    return rule


def _typed(index: int) -> Rule:
    """Output 0 of the type of input ``index``, shape unknown."""

    def rule(node, infos):
        from atccheck.model.shapes import TensorInfo

        info = _get(infos, node, index)
        return {0: TensorInfo(info.elem_type, None)} if info is not None else {}

    return rule


def _last_from(index: int, last: Callable[["onnx.NodeProto", Infos], object]) -> Rule:
    """Output 0 of input ``index``'s type and shape, its last axis replaced by ``last(...)``."""

    def rule(node, infos):
        from atccheck.model.shapes import TensorInfo

        info = _get(infos, node, index)
        if info is None:
            return {}
        if info.shape is None:
            return {0: TensorInfo(info.elem_type, None)}
        return {0: TensorInfo(info.elem_type, (*info.shape[:-1], last(node, infos)))}

    return rule


def _attention_width(node, infos):
    sizes = next((list(a.ints) for a in node.attribute if a.name == "qkv_hidden_sizes"), None)
    weights = _get(infos, node, 1)
    if sizes:
        return sizes[2]
    if weights is not None and weights.shape and isinstance(weights.shape[-1], int):
        return weights.shape[-1] // 3
    return None


def _value_width(node, infos):
    value = _get(infos, node, 2)
    return value.shape[-1] if value is not None and value.shape else None


def _matmul_width(node, infos):
    weights = _get(infos, node, 1)
    return weights.shape[-1] if weights is not None and weights.shape else None


def _half_width(node, infos):
    x = _get(infos, node, 0)
    last = x.shape[-1] if x is not None and x.shape else None
    return last // 2 if isinstance(last, int) else None


def _embed(node, infos):
    from onnx import TensorProto

    from atccheck.model.shapes import TensorInfo

    ids, word = _get(infos, node, 0), _get(infos, node, 2)
    if word is None:
        return {}
    hidden = word.shape[-1] if word.shape else None
    shape = (*ids.shape, hidden) if ids is not None and ids.shape is not None else None
    out = TensorInfo(word.elem_type, shape)
    batch = (ids.shape[0],) if ids is not None and ids.shape else None
    return {0: out, 1: TensorInfo(TensorProto.INT32, batch), 2: out}


def _grid_sample(node, infos):
    from atccheck.model.shapes import TensorInfo

    x, grid = _get(infos, node, 0), _get(infos, node, 1)
    if x is None:
        return {}
    if x.shape is None or grid is None or grid.shape is None or len(x.shape) != 4 or len(grid.shape) != 4:
        return {0: TensorInfo(x.elem_type, None)}
    return {0: TensorInfo(x.elem_type, (x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]))}


RULES: dict[tuple[str, str], Rule] = {
    (CONTRIB_DOMAIN, "Gelu"): _like(0),
    (CONTRIB_DOMAIN, "FastGelu"): _like(0),
    (CONTRIB_DOMAIN, "BiasGelu"): _like(0),
    (CONTRIB_DOMAIN, "QuickGelu"): _like(0),
    (CONTRIB_DOMAIN, "BiasAdd"): _like(0),
    (CONTRIB_DOMAIN, "RotaryEmbedding"): _like(0),
    (CONTRIB_DOMAIN, "SkipLayerNormalization"): _like(0, (0, 3)),
    (CONTRIB_DOMAIN, "SkipSimplifiedLayerNormalization"): _like(0, (0, 3)),
    ("", "SimplifiedLayerNormalization"): _like(0),
    ("", "LayerNormalization"): _like(0),  # what onnxruntime writes below opset 17, where onnx has no schema
    (CONTRIB_DOMAIN, "FusedConv"): _typed(0),
    (CONTRIB_DOMAIN, "FusedGemm"): _typed(0),
    (CONTRIB_DOMAIN, "FusedMatMul"): _typed(0),
    (CONTRIB_DOMAIN, "Attention"): _last_from(0, _attention_width),
    (CONTRIB_DOMAIN, "MultiHeadAttention"): _last_from(0, _value_width),
    (CONTRIB_DOMAIN, "GemmFastGelu"): _last_from(0, _matmul_width),
    (CONTRIB_DOMAIN, "BiasSplitGelu"): _last_from(0, _half_width),
    (CONTRIB_DOMAIN, "EmbedLayerNormalization"): _embed,
    (CONTRIB_DOMAIN, "GridSample"): _grid_sample,
}


def needs_help(model: "onnx.ModelProto") -> bool:
    """Whether the main graph holds an op of RULES (onnx inference stops at each)."""
    return any((_domain(n.domain), n.op_type) in RULES for n in model.graph.node)


def contrib_aware_shapes(model: "onnx.ModelProto", input_shapes: Mapping[str, tuple[int, ...]],
                         base: "ShapeIndex") -> "ShapeIndex":
    """``base`` with the values past onnxruntime's ops of the main graph typed (and shaped
    where their schema says how)."""
    import onnx
    from onnx import helper

    from atccheck.model.shapes import ShapeIndex, stripped_copy, type_info

    values = dict(base.values)
    light = stripped_copy(model, input_shapes)
    for _ in range(MAX_ITERATIONS):
        added = []
        for node in light.graph.node:
            rule = RULES.get((_domain(node.domain), node.op_type))
            if rule is None:
                continue
            for k, info in rule(node, values).items():
                name = node.output[k] if k < len(node.output) else ""
                known = values.get(name)
                if not name or (known is not None and known.elem_type and known.shape is not None):
                    continue
                if known is not None and known.elem_type and info.shape is None:
                    continue
                values[name] = info
                shape = None if info.shape is None else [d if isinstance(d, (int, str)) else None for d in info.shape]
                added.append(helper.make_tensor_value_info(name, info.elem_type, shape))
        if not added:
            break
        light.graph.value_info.extend(added)
        try:
            light = onnx.shape_inference.infer_shapes(light, check_type=False, strict_mode=False)
        except Exception:  # inference that fails here fails without these values too: keep what we have
            break
        for vi in list(light.graph.value_info) + list(light.graph.output):
            found = type_info(vi.type)
            known = values.get(vi.name)
            if found is not None and found.elem_type and (known is None or not known.elem_type or known.shape is None):
                values[vi.name] = found
    return ShapeIndex(values, base.error)


def _domain(domain: str) -> str:
    return "" if domain == AI_ONNX else domain
