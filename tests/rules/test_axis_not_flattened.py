from __future__ import annotations

import pytest
from onnx import helper

from atccheck.api import check
from builders import make_model, single_op_model, tensor_input

NAME = "axis-not-flattened"


def found(model, cann="8.0"):
    return [f for f in check(model, soc="Ascend310P3", cann=cann).findings if f.name == NAME]


def log_softmax(shape, opset=11, **attrs):
    return single_op_model("LogSoftmax", [shape], shape, opset=opset, **attrs)


@pytest.mark.parametrize("cann", ["5.0", "6.0", "8.0", "9.0"])
def test_an_inner_axis_at_opset_11_is_computed_over_that_axis_alone(cann):
    [f] = found(log_softmax([2, 3, 4, 5], axis=1), cann)
    assert f.severity.value == "warning" and f.code == "AC319"
    assert f.data["onnx_axes"] == [1, 2, 3] and f.data["plugin_axis"] == 1 and f.data["axis_given"] is True
    assert "LogSoftmaxV2" in f.message and "logsoftmax_plugin.cc" in f.source
    assert f.fix.pass_name == "flatten-softmax-input" and f.fix.safe is True
    assert "Flatten" in f.hint and "flatten-softmax-input" in f.hint


def test_no_axis_means_axis_1_to_onnx_and_the_last_axis_to_the_plugin():
    [f] = found(log_softmax([2, 3, 4]))
    assert f.data["onnx_axes"] == [1, 2] and f.data["plugin_axis"] == 2 and f.data["axis_given"] is False
    assert found(log_softmax([2, 3])) == []  # rank 2: axis 1 is the last axis for both


@pytest.mark.parametrize("axis", [-1, 3])
def test_the_last_axis_is_the_same_for_both(axis):
    assert found(log_softmax([2, 3, 4, 5], axis=axis)) == []


def test_opset_13_and_later_is_one_axis_in_onnx_too():
    assert found(log_softmax([2, 3, 4, 5], opset=13, axis=1)) == []


def test_axis_0_of_a_matrix_flattens_everything():
    [f] = found(log_softmax([4, 6], axis=0))
    assert f.data["onnx_axes"] == [0, 1] and f.data["plugin_axis"] == 0


def test_an_unknown_rank_and_softmax_say_nothing():
    node = helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)
    unranked = make_model([node], [helper.make_tensor_value_info("x", 1, None)], [tensor_input("y", [2, 3, 4])],
                          opset=11)
    assert found(unranked) == []
    softmax = single_op_model("Softmax", [[2, 3, 4, 5]], [2, 3, 4, 5], opset=11, axis=1)
    assert found(softmax) == []  # Softmax's plugin marks opsets 8-12 for the fusion pass that flattens
