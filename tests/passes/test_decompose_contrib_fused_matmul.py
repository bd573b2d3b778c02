from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_contrib_fused_matmul import DecomposeContribFusedMatMul
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, opset_domains, ort_optimized, pass_context

PASS = DecomposeContribFusedMatMul


def test_transpose_and_scale_fused_by_onnxruntime():
    nodes = [helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1]), helper.make_node("MatMul", ["at", "b"], ["m"]),
             helper.make_node("Mul", ["m", "s"], ["y"])]
    model = make_model(nodes, [tensor_input("a", [2, 5, 3]), tensor_input("b", [2, 5, 4])],
                       [tensor_input("y", [2, 3, 4])], [init("s", np.array(0.5, np.float32))], opset=17)
    fused = ort_optimized(model)
    assert [n.op_type for n in fused.graph.node] == ["FusedMatMul"]
    new = assert_rewrite(PASS, fused, pass_context())
    assert op_types(new) == ["Transpose", "MatMul", "Mul"] and MS not in opset_domains(new)


def test_batch_transpose_fused_by_onnxruntime():
    nodes = [helper.make_node("Transpose", ["a"], ["at"], perm=[1, 0, 2]), helper.make_node("MatMul", ["at", "b"], ["y"])]
    model = make_model(nodes, [tensor_input("a", [4, 2, 3]), tensor_input("b", [2, 3, 5])],
                       [tensor_input("y", [2, 4, 5])], opset=17)
    fused = ort_optimized(model)
    assert [n.op_type for n in fused.graph.node] == ["FusedMatMul"]
    assert_rewrite(PASS, fused, pass_context())


CASES = [  # shapes of A and B, attributes
    ([3, 5], [5, 4], {"alpha": 2.0}),
    ([5, 3], [4, 5], {"transA": 1, "transB": 1}),
    ([2, 3, 5], [4, 5], {"transB": 1, "alpha": 0.125}),
    ([4, 2, 3], [2, 3, 5], {"transBatchA": 1}),
    ([3, 2, 4], [2, 3, 5], {"transBatchA": 1, "transA": 1}),
    ([2, 6, 5, 3], [3, 2, 6, 7], {"transBatchB": 1}),
    ([2, 6, 5, 3], [7, 2, 6, 3], {"transBatchB": 1, "transB": 1}),
    ([5, 2, 6, 3], [7, 2, 6, 3], {"transBatchA": 1, "transBatchB": 1, "transB": 1, "alpha": 0.5}),
]


@pytest.mark.parametrize("a,b,attrs", CASES, ids=[str(c[2]) for c in CASES])
def test_every_transpose_flag_matches_onnxruntime(a, b, attrs):
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, name="fm", **attrs)
    model = make_model([node], [tensor_input("a", a), tensor_input("b", b)], [tensor_input("y", [f"d{k}" for k in range(max(len(a), len(b)))])],
                       opset=17, extra_opsets={MS: 1})
    new = assert_rewrite(PASS, model, pass_context())
    assert "MatMul" in op_types(new)


def test_transpose_of_unknown_rank_is_left_with_a_note():
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, name="fm", transA=1)
    model = make_model([node], [helper.make_tensor_value_info("a", 1, None), tensor_input("b", [5, 4])],
                       [helper.make_tensor_value_info("y", 1, None)], opset=17, extra_opsets={MS: 1})
    result = apply(PASS, model, pass_context())
    assert not result.modified and "rank" in result.notes[0]
