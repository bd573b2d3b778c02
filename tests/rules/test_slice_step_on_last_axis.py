from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, tensor_input

NAME = "slice-step-on-last-axis"
END = 2**63 - 1


def found(report):
    return [f for f in report.findings if f.name == NAME]


def sliced(axes, steps, shape=(1, 3, 8, 8), starts=None, with_axes=True):
    starts = starts if starts is not None else [0] * len(steps)
    inits = [init("starts", np.array(starts, np.int64)), init("ends", np.array([END] * len(steps), np.int64)),
             init("steps", np.array(steps, np.int64))]
    names = ["x", "starts", "ends", "axes" if with_axes else "", "steps"]
    if with_axes:
        inits.append(init("axes", np.array(axes, np.int64)))
    node = helper.make_node("Slice", names, ["y"], name="focus")
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return make_model([node], [tensor_input("x", list(shape))], [out], inits, opset=13)


def test_yolov5_focus_slice_is_an_error_naming_the_axis():
    [f] = found(check(sliced([2, 3], [2, 2]), soc="Ascend310P3", cann="8.0"))
    assert f.code == "AC309" and f.severity.value == "error" and f.location.node == "focus"
    assert (f.data["axis"], f.data["step"], f.data["rank"]) == (3, 2, 4)
    assert f.fix.pass_name == "unstride-last-axis-slice" and "atlasoxol_09_0150" in f.source


def test_negative_axis_and_axes_left_out_count_too():
    assert len(found(check(sliced([-1], [3]), soc="Ascend910B3", cann="9.0"))) == 1
    # no axes input: steps apply to axes 0..n-1; on a rank-2 input axis 1 is the last
    assert len(found(check(sliced(None, [1, 2], shape=(4, 6), with_axes=False), soc="Ascend910B3"))) == 1


def test_steps_on_other_axes_or_step_one_do_not_fire():
    assert found(check(sliced([2], [2]), soc="Ascend310P3", cann="9.0")) == []
    assert found(check(sliced([2, 3], [2, 1]), soc="Ascend310P3", cann="9.0")) == []


def test_a_slice_of_a_static_shape_folds_and_is_not_reported():
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Unsqueeze", ["s", "zero"], ["s2"]),
             helper.make_node("Slice", ["s2", "starts", "ends", "axes", "steps"], ["y"], name="dims")]
    inits = [init("zero", np.array([0], np.int64)), init("starts", np.array([0], np.int64)),
             init("ends", np.array([END], np.int64)), init("axes", np.array([1], np.int64)),
             init("steps", np.array([2], np.int64))]
    out = helper.make_tensor_value_info("y", TensorProto.INT64, None)
    model = make_model(nodes, [tensor_input("x", [2, 3, 4, 5])], [out], inits, opset=13)
    assert found(check(model, soc="Ascend310P3", cann="9.0")) == []


def test_profiles_the_page_does_not_cover_get_an_info():
    [f] = found(check(sliced([3], [2]), soc="Ascend310", cann="6.0"))
    assert f.severity.value == "info" and "unverified" in f.message
