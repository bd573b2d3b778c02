from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.prelu_slope_1d import PreluSlope1d
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, run_pass


def prelu(x_shape, slope):
    nodes = [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")]
    return make_model(nodes, [tensor_input("x", x_shape)], [tensor_input("y", x_shape)],
                      [init("slope", np.asarray(slope, np.float32))])


def slope_shapes(model):
    inits = {t.name: list(t.dims) for t in model.graph.initializer}
    return [inits.get(n.input[1]) for n in model.graph.node if n.op_type == "PRelu"]


def test_per_channel_slope_on_a_feature_map_is_spelled_out_exactly():
    # [C,1,1] lines up with the channel in ONNX; a 1-D [C] would line up with W instead
    model = prelu([1, 3, 4, 4], np.array([0.1, 0.2, 0.3]).reshape(3, 1, 1))
    result = run_pass(PreluSlope1d, model)
    assert result.modified
    assert [n.op_type for n in result.model.graph.node] == ["Relu", "Min", "Mul", "Add"]
    assert result.model.graph.output[0].name == "y"
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(PreluSlope1d, result.model).modified  # idempotent: no PRelu left


def test_a_one_element_slope_becomes_1d():
    model = prelu([1, 3, 4, 4], np.full((1, 1, 1), 0.25))
    result = run_pass(PreluSlope1d, model)
    assert slope_shapes(result.model) == [[1]]
    assert len(result.model.graph.initializer) == 1  # the old slope is gone
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(PreluSlope1d, result.model).modified


def test_a_row_slope_on_a_rank_2_input_becomes_1d():
    model = prelu([2, 5], np.linspace(0.1, 0.5, 5).reshape(1, 5))
    result = run_pass(PreluSlope1d, model)
    assert slope_shapes(result.model) == [[5]]
    assert max_error(model, result.model).max_abs == 0.0


def test_a_1d_slope_is_left_alone():
    assert not run_pass(PreluSlope1d, prelu([2, 5], np.linspace(0.1, 0.5, 5))).modified
