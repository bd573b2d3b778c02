from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_contrib_attention import DecomposeContribAttention
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, opset_domains, pass_context, rule_findings

PASS = DecomposeContribAttention
B, S, D, HEADS = 2, 5, 16, 4


def attention_model(mask_shape=None, bias=True, sizes=None, attention_bias=False, mask_values=None, **attrs):
    """Attention on x [B, S, D] with packed weights; the mask is a graph input (or an initializer)."""
    rng = np.random.default_rng(4)
    width = sum(sizes) if sizes else 3 * D
    inits = [init("w", rng.standard_normal((D, width)).astype(np.float32) / 4)]
    names = ["x", "w", "b" if bias else ""]
    if bias:
        inits.append(init("b", rng.standard_normal(width).astype(np.float32)))
    inputs = [tensor_input("x", [B, S, D])]
    if mask_shape is not None:
        names.append("mask")
        if mask_values is not None:
            inits.append(init("mask", np.asarray(mask_values, np.int32)))
        else:
            inputs.append(tensor_input("mask", mask_shape, TensorProto.INT32))
    if attention_bias:
        names += [""] * (5 - len(names)) + ["rel"]
        inputs.append(tensor_input("rel", [B, HEADS, S, S]))
    if sizes:
        attrs["qkv_hidden_sizes"] = sizes
    node = helper.make_node("Attention", names, ["y"], name="attn", domain=MS, num_heads=HEADS, **attrs)
    out = sizes[2] if sizes else D
    return make_model([node], inputs, [tensor_input("y", [B, S, out])], inits, opset=17, extra_opsets={MS: 1})


@pytest.mark.parametrize("model", [
    attention_model(),
    attention_model(bias=False),
    attention_model(mask_shape=[B, S]),  # random 0..3: 0 masks
    attention_model(mask_shape=[B, S, S]),
    attention_model(mask_shape=[B], mask_values=[3, 5]),  # valid lengths, right padding
    attention_model(unidirectional=1),
    attention_model(mask_shape=[B, S], unidirectional=1),
    attention_model(sizes=[8, 8, 12]),
    attention_model(scale=0.3, mask_filter_value=-50.0, mask_shape=[B, S]),
    attention_model(attention_bias=True),
], ids=["plain", "no-bias", "mask-2d", "mask-3d", "lengths", "causal", "mask-and-causal", "qkv-sizes", "scale-filter",
        "attention-bias"])
def test_attention_becomes_matmul_softmax(model):
    new = assert_rewrite(PASS, model, pass_context())
    assert "Attention" not in op_types(new) and "Softmax" in op_types(new)
    assert MS not in opset_domains(new) and rule_findings(new, "custom-domain-op") == []


def test_left_padding_mask_is_left_with_a_note():
    result = apply(PASS, attention_model(mask_shape=[2 * B], mask_values=[5, 5, 0, 1]), pass_context())
    assert not result.modified and "left padding" in result.notes[0]


def test_past_state_is_left_with_a_note():
    model = attention_model()
    model.graph.node[0].input.extend(["", "past"])
    model.graph.input.append(tensor_input("past", [2, B, HEADS, 3, D // HEADS]))
    result = apply(PASS, model, pass_context())
    assert not result.modified and "past" in result.notes[0]
