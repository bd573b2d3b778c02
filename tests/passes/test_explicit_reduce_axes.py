from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.explicit_reduce_axes import ExplicitReduceAxes
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def reduce_model(op, opset, **attrs):
    nodes = [helper.make_node(op, ["x"], ["y"], name="reduce", **attrs)]
    return make_model(nodes, [tensor_input("x", [2, 3, 4])], [tensor_input("y", [1, 1, 1])], opset=opset)


def axes_of(model):
    node = model.graph.node[0]
    for attr in node.attribute:
        if attr.name == "axes":
            return list(attr.ints)
    init_by_name = {t.name: t for t in model.graph.initializer}
    from onnx import numpy_helper

    return numpy_helper.to_array(init_by_name[node.input[1]]).tolist()


def test_reduce_mean_without_axes_attribute_gets_every_axis():
    model = reduce_model("ReduceMean", 13)
    assert named(model, "reduce-without-axes")
    result = run_pass(ExplicitReduceAxes, model)
    assert result.modified and axes_of(result.model) == [0, 1, 2]
    assert named(result.model, "reduce-without-axes") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(ExplicitReduceAxes, result.model).modified  # idempotent


def test_reduce_sum_13_gets_an_axes_input():
    model = reduce_model("ReduceSum", 13)
    assert named(model, "reduce-without-axes")
    result = run_pass(ExplicitReduceAxes, model)
    assert len(result.model.graph.node[0].input) == 2 and axes_of(result.model) == [0, 1, 2]
    assert named(result.model, "reduce-without-axes") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0


def test_an_empty_constant_axes_input_is_replaced():
    nodes = [helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="reduce")]
    model = make_model(nodes, [tensor_input("x", [2, 3])], [tensor_input("y", [1, 1])],
                       [init("axes", np.array([], np.int64))], opset=18)
    result = run_pass(ExplicitReduceAxes, model)
    assert axes_of(result.model) == [0, 1]
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0


def test_noop_with_empty_axes_and_given_axes_are_left_alone():
    noop = reduce_model("ReduceSum", 13, noop_with_empty_axes=1)
    result = run_pass(ExplicitReduceAxes, noop)
    assert not result.modified and any("identity" in n for n in result.notes)
    assert not run_pass(ExplicitReduceAxes, reduce_model("ReduceMean", 13, axes=[1])).modified
