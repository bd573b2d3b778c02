from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "reduce-without-axes"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def test_reduce_mean_without_axes_attribute():
    model = single_op_model("ReduceMean", [[2, 3, 4]], None, opset=13)
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "warning" and f.fix.pass_name == "explicit-reduce-axes" and f.fix.safe
    assert f.data["rank"] == 3


def test_reduce_sum_13_without_axes_input_and_with_an_empty_one():
    absent = single_op_model("ReduceSum", [[2, 3]], None, opset=13)
    assert len(found(check(absent, soc="Ascend910B3", cann="9.0"))) == 1
    empty = init("axes", np.array([], dtype=np.int64))
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    model = make_model([node], [tensor_input("x", [2, 3])], [out], [empty], opset=13)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.data["axes"] == "an empty axes input"


def test_explicit_axes_or_noop_do_not_fire():
    assert found(check(single_op_model("ReduceMax", [[2, 3]], None, opset=13, axes=[1]), soc="Ascend910B3")) == []
    noop = single_op_model("ReduceSum", [[2, 3]], None, opset=13, noop_with_empty_axes=1)
    assert found(check(noop, soc="Ascend910B3", cann="9.0")) == []


def test_non_constant_axes_input_is_not_judged():
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"])
    model = make_model([node], [tensor_input("x", [2, 3]), tensor_input("axes", [1], TensorProto.INT64)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset=13)
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []


def test_profiles_the_page_does_not_cover_get_an_info():
    model = single_op_model("ReduceMin", [[2, 3]], None, opset=11)
    [f] = found(check(model, soc="Ascend310P3", cann="6.0"))
    assert f.severity.value == "info" and "unverified" in f.message


def test_ops_without_the_fact_do_not_fire():
    assert found(check(single_op_model("ReduceProd", [[2, 3]], None, opset=13), soc="Ascend910B3")) == []


def test_opset_only_the_newer_source_registers_is_still_checked():
    # ReduceMean-18 is registered for CANN 8.0 only by the 9.x source (opset-not-registered warns);
    # the node still reaches the plugin, so its missing axes matter.
    model = single_op_model("ReduceMean", [[2, 3]], None, opset=18)
    [f] = found(check(model, soc="Ascend910B3", cann="8.0"))
    assert f.data["axes"] == "no axes input"
