from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.decompose_contrib_gemm_fast_gelu import DecomposeContribGemmFastGelu
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_same_outputs, op_types, opset_domains, pass_context

# onnxruntime has no CPU kernel for GemmFastGelu: the rewrite is compared with the standard graph it stands for.
RNG = np.random.default_rng(12)
B, S, D = 2, 5, 8


def fused(op, names, inputs, out, inits):
    node = helper.make_node(op, names, ["y"], name="fused", domain=MS)
    return make_model([node], inputs, [tensor_input("y", out)], inits, opset=17, extra_opsets={MS: 1})


def rewritten(pass_cls, model):
    result = apply(pass_cls, model, pass_context())
    assert result.modified and MS not in opset_domains(result.model)
    return result.model


def test_gemm_fast_gelu_matches_matmul_add_fast_gelu():
    inits = [init("w", RNG.standard_normal((D, 6)).astype(np.float32)), init("b", RNG.standard_normal(6).astype(np.float32))]
    x = [tensor_input("x", [B, S, D])]
    new = rewritten(DecomposeContribGemmFastGelu, fused("GemmFastGelu", ["x", "w", "b"], x, [B, S, 6], inits))
    plain = make_model([helper.make_node("MatMul", ["x", "w"], ["m"]),
                        helper.make_node("FastGelu", ["m", "b"], ["y"], domain=MS)],
                       x, [tensor_input("y", [B, S, 6])], inits, opset=17, extra_opsets={MS: 1})
    assert_same_outputs(plain, new, DecomposeContribGemmFastGelu.tolerance, rtol=1e-5)
    assert op_types(new)[0] == "MatMul"
