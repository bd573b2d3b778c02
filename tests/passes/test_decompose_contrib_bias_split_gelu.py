from __future__ import annotations

import math

import numpy as np
from onnx import helper

from atccheck.passes.decompose_contrib_bias_split_gelu import DecomposeContribBiasSplitGelu
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_same_outputs, opset_domains, pass_context

# onnxruntime has no CPU kernel for BiasSplitGelu: the rewrite is compared with the standard graph it stands for.
RNG = np.random.default_rng(12)
B, S, D = 2, 5, 8


def fused(op, names, inputs, out, inits):
    node = helper.make_node(op, names, ["y"], name="fused", domain=MS)
    return make_model([node], inputs, [tensor_input("y", out)], inits, opset=17, extra_opsets={MS: 1})


def rewritten(pass_cls, model):
    result = apply(pass_cls, model, pass_context())
    assert result.modified and MS not in opset_domains(result.model)
    return result.model


def erf_gelu(x, out):
    return [helper.make_node("Div", [x, "sqrt2"], [x + "_d"]), helper.make_node("Erf", [x + "_d"], [x + "_e"]),
            helper.make_node("Add", [x + "_e", "one"], [x + "_e1"]), helper.make_node("Mul", [x, x + "_e1"], [x + "_m"]),
            helper.make_node("Mul", [x + "_m", "half"], [out])]


def test_bias_split_gelu_matches_add_split_gelu():
    consts = [init("sqrt2", np.array(math.sqrt(2), np.float32)), init("one", np.array(1, np.float32)),
              init("half", np.array(0.5, np.float32))]
    inits = [init("b", RNG.standard_normal(2 * D).astype(np.float32))]
    inputs = [tensor_input("x", [B, S, 2 * D])]
    new = rewritten(DecomposeContribBiasSplitGelu, fused("BiasSplitGelu", ["x", "b"], inputs, [B, S, D], inits))
    plain = make_model([helper.make_node("Add", ["x", "b"], ["a"]),
                        helper.make_node("Split", ["a"], ["l", "r"], axis=-1), *erf_gelu("r", "g"),
                        helper.make_node("Mul", ["l", "g"], ["y"])],
                       inputs, [tensor_input("y", [B, S, D])], inits + consts, opset=17)
    assert_same_outputs(plain, new, DecomposeContribBiasSplitGelu.tolerance, rtol=1e-5)
