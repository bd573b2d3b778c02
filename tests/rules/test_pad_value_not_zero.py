from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, tensor_input

NAME = "pad-value-not-zero"
PADS = [0, 0, 1, 1, 0, 0, 1, 1]


def found(report):
    return [f for f in report.findings if f.name == NAME]


def pad(value, mode="constant", opset=13, constant=True):
    inputs = [tensor_input("x", [1, 2, 4, 4])]
    inits = [init("pads", np.array(PADS, np.int64))]
    names = ["x", "pads"]
    if value is not None:
        names.append("v")
        if constant:
            inits.append(init("v", np.array(value, np.float32)))
        else:
            inputs.append(tensor_input("v", []))
    node = helper.make_node("Pad", names, ["y"], name="pad", mode=mode)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return make_model([node], inputs, [out], inits, opset=opset)


def test_minus_infinity_before_a_max_pool_is_an_error():
    [f] = found(check(pad(-np.inf), soc="Ascend310P3", cann="9.0"))
    assert f.code == "AC310" and f.severity.value == "error" and f.data["value"] == -np.inf
    assert f.fix.pass_name == "pad-zero-then-fill" and "atlasoxol_09_0111" in f.source


def test_the_value_attribute_before_opset_11_counts_too():
    node = helper.make_node("Pad", ["x"], ["y"], name="pad", mode="constant", pads=PADS, value=1.0)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    model = make_model([node], [tensor_input("x", [1, 2, 4, 4])], [out], [], opset=10)
    [f] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.data["value"] == 1.0


def test_zero_no_value_other_modes_and_run_time_values_do_not_fire():
    for model in (pad(0.0), pad(None), pad(1.0, mode="reflect"), pad(1.0, constant=False)):
        assert found(check(model, soc="Ascend310P3", cann="9.0")) == []


def test_profiles_the_page_does_not_cover_get_an_info():
    [f] = found(check(pad(1.0), soc="Ascend310", cann="6.0"))
    assert f.severity.value == "info" and "unverified" in f.message
