from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_contrib_rotary_embedding import DecomposeContribRotaryEmbedding
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, opset_domains, pass_context

PASS = DecomposeContribRotaryEmbedding
B, N, S, HEAD, MAX_POS = 2, 3, 5, 8, 12


def rope_model(rank=3, dim=0, interleaved=0, offset=False, **attrs):
    rng = np.random.default_rng(10)
    half = (dim or HEAD) // 2
    shape = [B, S, N * HEAD] if rank == 3 else [B, N, S, HEAD]
    pos = np.array([4], np.int64) if offset else rng.integers(0, MAX_POS, (B, S)).astype(np.int64)
    inits = [init("pos", pos), init("cos", rng.standard_normal((MAX_POS, half)).astype(np.float32)),
             init("sin", rng.standard_normal((MAX_POS, half)).astype(np.float32))]
    attrs["interleaved"] = interleaved
    if dim:
        attrs["rotary_embedding_dim"] = dim
    if rank == 3 and dim:
        attrs["num_heads"] = N
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], name="rope", domain=MS, **attrs)
    return make_model([node], [tensor_input("x", shape)], [tensor_input("y", shape)], inits, opset=17,
                      extra_opsets={MS: 1})


CASES = [dict(), dict(interleaved=1), dict(rank=4), dict(rank=4, interleaved=1), dict(offset=True),
         dict(rank=4, offset=True), dict(dim=4), dict(rank=3, dim=4, interleaved=1)]


@pytest.mark.parametrize("kwargs", CASES, ids=[str(c) for c in CASES])
def test_rotary_embedding_becomes_slices_and_products(kwargs):
    new = assert_rewrite(PASS, rope_model(**kwargs), pass_context())
    assert "RotaryEmbedding" not in op_types(new) and MS not in opset_domains(new)


def test_packed_batching_is_left_with_a_note():
    result = apply(PASS, rope_model(is_packed_batching=1), pass_context())
    assert not result.modified and "packed" in result.notes[0]
