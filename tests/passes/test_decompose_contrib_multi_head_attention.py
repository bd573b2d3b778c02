from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_contrib_multi_head_attention import DecomposeContribMultiHeadAttention
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, opset_domains, pass_context

PASS = DecomposeContribMultiHeadAttention
B, S, L, D, DV, HEADS = 2, 5, 7, 16, 8, 4


def mha_model(bias=True, padding=None, attention_bias=False, s=S, **attrs):
    rng = np.random.default_rng(13)
    inputs = [tensor_input("q", [B, s, D]), tensor_input("k", [B, L, D]), tensor_input("v", [B, L, DV])]
    names, inits = ["q", "k", "v", "b" if bias else ""], []
    if bias:
        inits.append(init("b", rng.standard_normal(2 * D + DV).astype(np.float32)))
    if padding == "mask":
        names.append("pad")
        inputs.append(tensor_input("pad", [B, L], TensorProto.INT32))
    elif padding == "lengths":
        names.append("pad")
        inits.append(init("pad", np.array([4, 7], np.int32)))
    if attention_bias:
        names += [""] * (5 - len(names)) + ["rel"]
        inputs.append(tensor_input("rel", [B, HEADS, s, L]))
    while names and not names[-1]:
        names.pop()
    node = helper.make_node("MultiHeadAttention", names, ["y"], name="mha", domain=MS, num_heads=HEADS, **attrs)
    return make_model([node], inputs, [tensor_input("y", [B, s, DV])], inits, opset=17, extra_opsets={MS: 1})


CASES = {"plain": {}, "no-bias": dict(bias=False), "mask": dict(padding="mask"), "lengths": dict(padding="lengths"),
         "causal": dict(unidirectional=1, s=L), "scale-bias": dict(scale=0.25, attention_bias=True),
         "filter": dict(padding="mask", mask_filter_value=-30.0)}


@pytest.mark.parametrize("kwargs", CASES.values(), ids=CASES.keys())
def test_multi_head_attention_becomes_matmul_softmax(kwargs):
    new = assert_rewrite(PASS, mha_model(**kwargs), pass_context())
    assert "MultiHeadAttention" not in op_types(new) and "Softmax" in op_types(new) and MS not in opset_domains(new)


def test_packed_qkv_is_left_with_a_note():
    node = helper.make_node("MultiHeadAttention", ["qkv"], ["y"], name="mha", domain=MS, num_heads=HEADS)
    model = make_model([node], [tensor_input("qkv", [B, S, HEADS, 3, 4])], [tensor_input("y", [B, S, D])],
                       opset=17, extra_opsets={MS: 1})
    result = apply(PASS, model, pass_context())
    assert not result.modified and "separate" in result.notes[0]
