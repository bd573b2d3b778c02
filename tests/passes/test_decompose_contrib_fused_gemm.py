from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_contrib_fused_gemm import DecomposeContribFusedGemm
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, assert_same_outputs, op_types, opset_domains, ort_optimized, pass_context

PASS = DecomposeContribFusedGemm
RNG = np.random.default_rng(5)


def gemm_then(act, trans_b=1, **act_attrs):
    w = RNG.standard_normal((4, 5) if trans_b else (5, 4)).astype(np.float32)
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["c"], transB=trans_b, alpha=0.7, beta=1.3, name="gemm"),
             helper.make_node(act, ["c"], ["y"], name="act", **act_attrs)]
    inits = [init("w", w), init("b", RNG.standard_normal(4).astype(np.float32))]
    return make_model(nodes, [tensor_input("x", [3, 5])], [tensor_input("y", [3, 4])], inits, opset=17)


@pytest.mark.parametrize("act,attrs", [("Relu", {}), ("LeakyRelu", {"alpha": 0.2}), ("Sigmoid", {}), ("Tanh", {}),
                                       ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}), ("Elu", {"alpha": 0.5})])
@pytest.mark.parametrize("trans_b", [0, 1])
def test_what_onnxruntime_fuses_becomes_gemm_and_activation(act, attrs, trans_b):
    original = gemm_then(act, trans_b, **attrs)
    fused = ort_optimized(original)
    if [n.op_type for n in fused.graph.node] != ["FusedGemm"]:
        fused = make_model([helper.make_node("FusedGemm", ["x", "w", "b"], ["y"], domain=MS, name="fg", transB=trans_b,
                                             alpha=0.7, beta=1.3, activation=act,
                                             **{f"activation_{k}": v for k, v in attrs.items()})],
                           list(original.graph.input), list(original.graph.output), list(original.graph.initializer),
                           opset=17, extra_opsets={MS: 1})
    new = assert_rewrite(PASS, fused, pass_context())
    assert op_types(new) == ["Gemm", act] and MS not in opset_domains(new)


def test_no_activation_is_a_plain_gemm():
    # onnxruntime refuses a FusedGemm without activation: compare with the Gemm it stands for
    w = init("w", RNG.standard_normal((4, 5)).astype(np.float32))
    fused = make_model([helper.make_node("FusedGemm", ["x", "w"], ["y"], domain=MS, name="fg", transB=1)],
                       [tensor_input("x", [3, 5])], [tensor_input("y", [3, 4])], [w], opset=17, extra_opsets={MS: 1})
    plain = make_model([helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)], [tensor_input("x", [3, 5])],
                       [tensor_input("y", [3, 4])], [w], opset=17)
    result = apply(PASS, fused, pass_context())
    assert op_types(result.model) == ["Gemm"]
    assert_same_outputs(plain, result.model, PASS.tolerance)


def test_unknown_activation_is_left_with_a_note():
    node = helper.make_node("FusedGemm", ["x", "w"], ["y"], domain=MS, name="fg", transB=1, activation="Swish")
    model = make_model([node], [tensor_input("x", [3, 5])], [tensor_input("y", [3, 4])],
                       [init("w", RNG.standard_normal((4, 5)).astype(np.float32))], opset=17, extra_opsets={MS: 1})
    result = apply(PASS, model, pass_context())
    assert not result.modified and "Swish" in result.notes[0]
