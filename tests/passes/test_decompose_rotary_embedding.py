from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_rotary_embedding import DecomposeRotaryEmbedding
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeRotaryEmbedding
B, N, S, HEAD, MAX_POS = 2, 3, 5, 8, 10


def rope_model(rank=4, dim=0, interleaved=0, positions=True):
    rng = np.random.default_rng(9)
    half = (dim or HEAD) // 2
    shape = [B, N, S, HEAD] if rank == 4 else [B, S, N * HEAD]
    cache_shape = [MAX_POS, half] if positions else [B, S, half]
    inits = [init("cos", rng.standard_normal(cache_shape).astype(np.float32)),
             init("sin", rng.standard_normal(cache_shape).astype(np.float32))]
    names = ["x", "cos", "sin"]
    if positions:
        names.append("pos")
        inits.append(init("pos", rng.integers(0, MAX_POS, (B, S)).astype(np.int64)))
    attrs = {"interleaved": interleaved}
    if dim:
        attrs["rotary_embedding_dim"] = dim
    if rank == 3:
        attrs["num_heads"] = N
    node = helper.make_node("RotaryEmbedding", names, ["y"], name="rope", **attrs)
    return make_model([node], [tensor_input("x", shape)], [tensor_input("y", shape)], inits, opset=23, ir_version=10)


CASES = [dict(), dict(interleaved=1), dict(dim=4), dict(dim=4, interleaved=1), dict(rank=3), dict(rank=3, interleaved=1),
         dict(positions=False), dict(rank=3, dim=6, positions=False)]


@pytest.mark.parametrize("kwargs", CASES, ids=[str(c) for c in CASES])
def test_rotary_embedding_becomes_slices_and_products(kwargs):
    model = rope_model(**kwargs)
    assert rule_findings(model, ("unsupported-op", "opset-not-registered"))
    new = assert_rewrite(PASS, model, pass_context())
    assert "RotaryEmbedding" not in op_types(new)
    assert ("RotaryEmbedding" not in {t for _, t in rule_findings(new, ("unsupported-op", "opset-not-registered"))})


def test_3d_input_without_num_heads_is_left_with_a_note():
    model = rope_model(rank=3)
    del model.graph.node[0].attribute[:]
    result = apply(PASS, model, pass_context())
    assert not result.modified and "num_heads" in result.notes[0]
