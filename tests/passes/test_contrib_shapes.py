"""Decompositions see the types of values past onnxruntime's own ops (onnx inference does not)."""
from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.model.shapes import infer_shapes
from atccheck.passes._contrib_shapes import contrib_aware_shapes
from atccheck.passes.decompose_contrib_gelu import DecomposeContribGelu
from atccheck.passes.decompose_contrib_skip_layer_normalization import DecomposeContribSkipLayerNormalization
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, assert_same_outputs, op_types, pass_context


def chain(layers=6):
    """x -> [Gelu(ms) -> SkipLayerNormalization(ms) -> MatMul] * layers: each layer's input has no
    type for onnx inference."""
    rng = np.random.default_rng(0)
    nodes, inits, cur = [], [init("gamma", np.ones(8, np.float32))], "x"
    for i in range(layers):
        nodes += [helper.make_node("Gelu", [cur], [f"g{i}"], domain=MS, name=f"gelu{i}"),
                  helper.make_node("SkipLayerNormalization", [f"g{i}", cur, "gamma"], [f"s{i}"], domain=MS,
                                   name=f"sln{i}"),
                  helper.make_node("MatMul", [f"s{i}", f"w{i}"], [f"m{i}"], name=f"mm{i}")]
        inits.append(init(f"w{i}", rng.standard_normal((8, 8)).astype(np.float32) * 0.3))
        cur = f"m{i}"
    nodes[-1].output[0] = "y"
    return make_model(nodes, [tensor_input("x", [2, 8])], [tensor_input("y", [2, 8])], inits, opset=17,
                      extra_opsets={MS: 1})


def test_values_past_contrib_ops_get_their_types():
    model = chain()
    base = infer_shapes(model)
    assert base.get("m3") is None or not base.get("m3").elem_type
    seen = contrib_aware_shapes(model, {}, base)
    assert seen.get("m3").elem_type == 1 and seen.get("m3").shape == (2, 8)
    assert seen.get("s5").shape == (2, 8)


def test_one_run_of_each_pass_rewrites_every_layer():
    model = chain()
    no_gelu = assert_rewrite(DecomposeContribGelu, model, pass_context())
    assert "Gelu" not in op_types(no_gelu)
    plain = assert_rewrite(DecomposeContribSkipLayerNormalization, no_gelu, pass_context())
    assert "SkipLayerNormalization" not in op_types(plain)


def test_layer_normalization_below_opset_17_is_seen_through():
    nodes = [helper.make_node("LayerNormalization", ["x", "gamma"], ["n"], name="ln", axis=-1),
             helper.make_node("MatMul", ["n", "w"], ["m"], name="mm"),
             helper.make_node("Gelu", ["m"], ["y"], domain=MS, name="gelu")]
    model = make_model(nodes, [tensor_input("x", [2, 8])], [tensor_input("y", [2, 8])],
                       [init("gamma", np.ones(8, np.float32)), init("w", np.eye(8, dtype=np.float32))], opset=13,
                       extra_opsets={MS: 1})
    # onnx.checker rejects LayerNormalization at opset 13 (onnxruntime runs it): compare outputs only
    result = apply(DecomposeContribGelu, model, pass_context())
    assert result.modified and "Gelu" not in op_types(result.model)
    assert_same_outputs(model, result.model, DecomposeContribGelu.tolerance)
