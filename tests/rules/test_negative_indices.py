from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, tensor_input

NAME = "negative-indices"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def gather(indices, data_shape=(1, 8, 16), axis=1, constant=True):
    node = helper.make_node("Gather", ["x", "idx"], ["y"], axis=axis, name="take")
    indices = np.asarray(indices, dtype=np.int64)
    inputs = [tensor_input("x", list(data_shape))]
    inits = [init("idx", indices)] if constant else []
    if not constant:
        inputs.append(tensor_input("idx", list(indices.shape), TensorProto.INT64))
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return make_model([node], inputs, [out], inits, opset=13)


def test_the_last_step_taken_with_minus_one_is_an_error():
    [f] = found(check(gather(-1), soc="Ascend310P3", cann="9.0"))
    assert f.code == "AC308" and f.severity.value == "error" and f.location.node == "take"
    assert f.data["negatives"] == 1 and f.data["lowest"] == -1
    assert f.fix.pass_name == "non-negative-indices" and f.fix.safe
    assert "atlasoxol_09_0062" in f.source


def test_indices_from_the_start_do_not_fire():
    assert found(check(gather([0, 7]), soc="Ascend310P3", cann="9.0")) == []


def test_indices_known_only_at_run_time_are_not_judged():
    assert found(check(gather([-1], constant=False), soc="Ascend310P3", cann="9.0")) == []


def test_a_gather_that_folds_at_build_time_is_not_reported():
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "idx"], ["y"], axis=0, name="dims")]
    out = helper.make_tensor_value_info("y", TensorProto.INT64, None)
    model = make_model(nodes, [tensor_input("x", [2, 3, 4])], [out], [init("idx", np.array([-2, -1], np.int64))],
                       opset=13)
    assert found(check(model, soc="Ascend310P3", cann="9.0")) == []


def test_scatternd_indices_too_and_older_profiles_get_an_info():
    node = helper.make_node("ScatterND", ["d", "i", "u"], ["o"], name="scatter")
    model = make_model([node], [tensor_input("d", [4, 3]), tensor_input("u", [2, 3])], [tensor_input("o", [4, 3])],
                       [init("i", np.array([[-1], [0]], np.int64))], opset=13)
    [f] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "error"
    [old] = found(check(model, soc="Ascend310", cann="6.0"))
    assert old.severity.value == "info" and "unverified" in old.message
