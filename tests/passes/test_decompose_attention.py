from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_attention import DecomposeAttention
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeAttention
B, HQ, S, T, H = 2, 4, 5, 6, 8


def attention_model(kv_heads=HQ, rank=4, mask=None, s=S, t=T, extra_outputs=(), **attrs):
    if rank == 4:
        shapes = [[B, HQ, s, H], [B, kv_heads, t, H], [B, kv_heads, t, H]]
        out = [B, HQ, s, H]
    else:
        shapes = [[B, s, HQ * H], [B, t, kv_heads * H], [B, t, kv_heads * H]]
        out = [B, s, HQ * H]
        attrs.update(q_num_heads=HQ, kv_num_heads=kv_heads)
    inputs = [tensor_input(n, sh) for n, sh in zip("qkv", shapes)]
    names, inits = ["q", "k", "v"], []
    if mask == "float":
        names.append("m")
        inputs.append(tensor_input("m", [B, 1, s, t]))
    elif mask in ("bool", "bool-empty-row"):
        values = np.random.default_rng(3).random((s, t)) < 0.5
        values[:, 0] = True
        values[1, :] = mask == "bool"  # a query row with every key masked gives zeros
        names.append("m")
        inits.append(init("m", values))
    node = helper.make_node("Attention", names, ["y", *extra_outputs], name="attn", **attrs)
    outs = [tensor_input("y", out)] + [helper.make_tensor_value_info(o, 1, None) for o in extra_outputs if o]
    return make_model([node], inputs, outs, inits, opset=23, ir_version=10)


CASES = {
    "plain": {}, "3d": dict(rank=3), "gqa": dict(kv_heads=2), "gqa-3d": dict(kv_heads=1, rank=3),
    "float-mask": dict(mask="float"), "bool-mask": dict(mask="bool"), "bool-empty-row": dict(mask="bool-empty-row"),
    "bool-causal": dict(mask="bool-empty-row", is_causal=1), "causal": dict(is_causal=1, s=T),
    "causal-rect": dict(is_causal=1), "scale-softcap": dict(scale=0.2, softcap=3.0),
}


@pytest.mark.parametrize("kwargs", CASES.values(), ids=CASES.keys())
def test_attention_23_becomes_matmul_softmax(kwargs):
    model = attention_model(**kwargs)
    assert ("unsupported-op", "Attention") in rule_findings(model, "unsupported-op") or \
        ("opset-not-registered", "Attention") in rule_findings(model, "opset-not-registered")
    new = assert_rewrite(PASS, model, pass_context())
    assert "Attention" not in op_types(new) and "Softmax" in op_types(new)


def test_read_cache_output_is_left_with_a_note():
    model = attention_model(extra_outputs=("present_k",))
    result = apply(PASS, model, pass_context())
    assert not result.modified and "present_k" in result.notes[0]


def test_an_unknown_key_shape_is_a_reason_not_a_crash():
    model = attention_model()
    k = model.graph.input[1]
    k.type.tensor_type.ClearField("shape")  # K of unknown rank: the head count cannot be read
    result = apply(PASS, model, pass_context())
    assert not result.modified
    assert any("the shape of 'k' is unknown" in note for note in result.notes), result.notes
