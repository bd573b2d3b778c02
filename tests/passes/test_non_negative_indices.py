from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings, strategies as st
from onnx import TensorProto, helper, numpy_helper

from atccheck.passes.non_negative_indices import NonNegativeIndices
from builders import init, make_model, tensor_input
from fix_harness import assert_exact_repair, max_error, run_pass


def gather(indices, data_shape=(1, 8, 16), axis=1, as_constant_node=False):
    indices = np.asarray(indices, dtype=np.int64)
    nodes = [helper.make_node("Gather", ["x", "idx"], ["y"], axis=axis, name="take")]
    inits = [init("idx", indices)]
    if as_constant_node:
        nodes.insert(0, helper.make_node("Constant", [], ["idx"], value=numpy_helper.from_array(indices)))
        inits = []
    axis = axis % len(data_shape)
    out_shape = list(data_shape[:axis]) + list(indices.shape) + list(data_shape[axis + 1:])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)
    return make_model(nodes, [tensor_input("x", list(data_shape))], [out], inits, opset=13)


def test_gather_indices_are_counted_from_the_start_with_the_same_result():
    result = assert_exact_repair(NonNegativeIndices, gather([-1, 0, -8]), "negative-indices")
    [tensor] = [t for t in result.model.graph.initializer if t.name == result.model.graph.node[0].input[1]]
    assert numpy_helper.to_array(tensor).tolist() == [7, 0, 0]
    assert "idx" not in {t.name for t in result.model.graph.initializer}  # nothing else read it


def test_a_constant_node_that_produced_the_indices_goes_with_them():
    model = gather(-1, axis=-1, as_constant_node=True)
    result = run_pass(NonNegativeIndices, model)
    assert [n.op_type for n in result.model.graph.node] == ["Gather"]
    assert max_error(model, result.model).max_abs == 0.0


def test_scatternd_components_count_against_their_own_axes():
    node = helper.make_node("ScatterND", ["d", "i", "u"], ["o"], name="scatter")
    model = make_model([node], [tensor_input("d", [4, 3]), tensor_input("u", [2])], [tensor_input("o", [4, 3])],
                       [init("i", np.array([[-1, -3], [0, -1]], np.int64))], opset=13)
    result = run_pass(NonNegativeIndices, model)
    [tensor] = [t for t in result.model.graph.initializer if t.name == result.model.graph.node[0].input[1]]
    assert numpy_helper.to_array(tensor).tolist() == [[3, 0], [0, 2]]
    assert max_error(model, result.model).max_abs == 0.0


def test_an_axis_of_unknown_size_is_left_with_a_note():
    model = gather(-1, data_shape=(1, "steps", 16))
    result = run_pass(NonNegativeIndices, model)
    assert not result.modified
    assert any("not static" in n for n in result.notes)


@settings(max_examples=30, deadline=None)
@given(size=st.integers(1, 9), picks=st.lists(st.integers(-9, 8), min_size=1, max_size=5))
@example(size=4, picks=[-4, -1, 3])
def test_any_indices_inside_the_axis_give_the_same_elements(size, picks):
    picks = [p for p in picks if -size <= p < size]  # ONNX defines indices in [-size, size) only
    if not any(p < 0 for p in picks):
        return  # nothing for the rule to report
    assert_exact_repair(NonNegativeIndices, gather(picks, data_shape=(2, size, 3)), "negative-indices")
