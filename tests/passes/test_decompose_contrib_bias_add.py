from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.decompose_contrib_bias_add import DecomposeContribBiasAdd
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_same_outputs, opset_domains, pass_context

# onnxruntime has no CPU kernel for BiasAdd: the rewrite is compared with the standard graph it stands for.
RNG = np.random.default_rng(12)
B, S, D = 2, 5, 8


def fused(op, names, inputs, out, inits):
    node = helper.make_node(op, names, ["y"], name="fused", domain=MS)
    return make_model([node], inputs, [tensor_input("y", out)], inits, opset=17, extra_opsets={MS: 1})


def rewritten(pass_cls, model):
    result = apply(pass_cls, model, pass_context())
    assert result.modified and MS not in opset_domains(result.model)
    return result.model


def test_bias_add_matches_two_adds():
    inits = [init("b", RNG.standard_normal(D).astype(np.float32))]
    inputs = [tensor_input("x", [B, S, D]), tensor_input("skip", [B, S, D])]
    new = rewritten(DecomposeContribBiasAdd, fused("BiasAdd", ["x", "b", "skip"], inputs, [B, S, D], inits))
    plain = make_model([helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Add", ["a", "skip"], ["y"])],
                       inputs, [tensor_input("y", [B, S, D])], inits, opset=17)
    assert_same_outputs(plain, new, 0.0)
