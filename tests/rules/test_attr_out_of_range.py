from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "attr-out-of-range"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def test_plugin_enum_violation_is_an_error_with_the_source():
    model = single_op_model("MaxPool", [[1, 3, 8, 8]], None, opset=11, kernel_shape=[2, 2], storage_order=1)
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))  # the page says the same: reported once
    assert f.severity.value == "error" and f.atc_error == "E11010"
    assert f.data["basis"] == "CANN source" and "storage_order=1" in f.message and "CANN 9.0" in f.message


def test_page_enum_violation_names_the_page():
    model = single_op_model("ArgMax", [[2, 3]], None, opset=13, axis=1, select_last_index=1)
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    [f] = found(check(model, soc="Ascend910B3", cann="8.0"))
    assert f.data["basis"] == "published page" and f.data["allowed"] == [0]


def test_default_attribute_value_is_checked_for_enum_limits():
    # Resize mode defaults to nearest: within the enum, so nothing fires; cubic does in 8.0.
    scales = init("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    roi = init("roi", np.array([], dtype=np.float32))

    def resize(**attrs):
        node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attrs)
        return make_model([node], [tensor_input("x", [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, scales], opset=13)

    assert found(check(resize(), soc="Ascend910B3", cann="8.0")) == []
    [f] = found(check(resize(mode="cubic"), soc="Ascend910B3", cann="8.0"))
    assert f.data["value"] == "cubic"
    # The 9.x plugin maps cubic to Resize: the page limit is superseded there.
    assert found(check(resize(mode="cubic"), soc="Ascend910B3", cann="9.0")) == []


def test_rank_bound_limit_only_applies_to_that_rank():
    w4 = init("w", np.zeros((2, 3, 3, 3), dtype=np.float32))
    conv2d = single_op_model("Conv", [[1, 3, 8, 8]], None, opset=13, initializers=[w4], auto_pad="SAME_LOWER")
    assert found(check(conv2d, soc="Ascend910B3", cann="9.0")) == []
    w5 = init("w", np.zeros((2, 3, 3, 3, 3), dtype=np.float32))
    conv3d = single_op_model("Conv", [[1, 3, 8, 8, 8]], None, opset=13, initializers=[w5], auto_pad="SAME_LOWER")
    [f] = found(check(conv3d, soc="Ascend910B3", cann="9.0"))
    assert f.data["attr"] == "auto_pad"


def test_unsupported_attribute_fires_only_when_not_default():
    explicit_default = single_op_model("MaxPool", [[1, 3, 8, 8]], None, opset=11, kernel_shape=[2, 2], dilations=[1, 1])
    assert found(check(explicit_default, soc="Ascend910B3", cann="9.0")) == []
    dilated = single_op_model("MaxPool", [[1, 3, 8, 8]], None, opset=11, kernel_shape=[2, 2], dilations=[2, 2])
    [f] = found(check(dilated, soc="Ascend910B3", cann="9.0"))
    assert f.data["attr"] == "dilations"


def test_length_limit_applies_to_the_documented_rank_only():
    one_d = single_op_model("MaxPool", [[1, 3, 8]], None, opset=11, kernel_shape=[2], pads=[1, 1])
    assert found(check(one_d, soc="Ascend910B3", cann="9.0")) == []


def test_einsum_equation_is_matched_as_a_pattern_and_suggests_decomposition():
    def einsum(equation, second):
        return single_op_model("Einsum", [[2, 3, 4], second], None, opset=13, equation=equation)

    # 'xyz,xyw->xzw' is the listed 'abc,abd->acd' with other letters
    assert found(check(einsum("xyz,xyw->xzw", [2, 3, 5]), soc="Ascend910B3", cann="9.0")) == []
    [f] = found(check(einsum("bij,bjk->bik", [2, 4, 5]), soc="Ascend910B3", cann="9.0"))
    assert f.fix.pass_name == "decompose-einsum" and "abc,acd->abd" in f.message


def test_a_value_no_pass_can_rewrite_says_manual():
    model = single_op_model("GridSample", [[1, 2, 4, 4], [1, 3, 3, 2]], None, opset=16, mode="bicubic")
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.fix.pass_name == "decompose-grid-sample"  # bicubic has an equivalent graph
    resize = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                              coordinate_transformation_mode="asymmetric")
    model = make_model([resize], [tensor_input("x", [1, 2, 3, 4, 5])], [tensor_input("y", [1, 2, 6, 8, 10])],
                       [init("sizes", np.array([1, 2, 6, 8, 10], np.int64))])
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.fix.pass_name == "manual" and "export Resize" in f.hint


def test_nothing_for_profiles_the_limit_does_not_cover():
    model = single_op_model("ArgMax", [[2, 3]], None, opset=11, axis=1, select_last_index=1)
    assert found(check(model, soc="Ascend310P3", cann="6.0")) == []
