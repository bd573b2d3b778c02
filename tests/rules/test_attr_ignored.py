from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "attr-ignored"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def gemm(**attrs):
    b = init("b", np.zeros((4, 5), dtype=np.float32))
    return single_op_model("Gemm", [[3, 4]], [3, 5], opset=13, initializers=[b], **attrs)


def test_gemm_alpha_ignored_by_the_2022_plugin():
    [f] = found(check(gemm(alpha=0.5), soc="Ascend310P3", cann="6.0"))
    assert f.severity.value == "warning" and f.data["attr"] == "alpha" and f.data["basis"] == "CANN source"
    assert "alpha=0.5" in f.message


def test_gemm_alpha_beta_per_era():
    model = gemm(alpha=0.5, beta=0.25)
    on_page = found(check(model, soc="Ascend910B3", cann="8.0"))
    assert {f.data["attr"] for f in on_page} == {"alpha", "beta"}
    assert all(f.data["basis"] == "published page" for f in on_page)
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []  # the 9.x plugin applies them
    assert found(check(gemm(alpha=1.0), soc="Ascend310P3", cann="6.0")) == []


def resize(**attrs):
    roi = init("roi", np.array([], dtype=np.float32))
    scales = init("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attrs)
    return make_model([node], [tensor_input("x", [1, 1, 4, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, scales], opset=13)


def test_resize_default_nearest_mode_is_reported_with_the_onnx_default():
    found_ = found(check(resize(coordinate_transformation_mode="asymmetric"), soc="Ascend910B3", cann="9.0"))
    [f] = found_
    assert f.data["attr"] == "nearest_mode" and f.data["default_used"] and "round_prefer_floor" in f.message


def test_resize_honoured_values_do_not_fire():
    model = resize(coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []


def test_resize_coordinate_mode_computed_as_asymmetric():
    model = resize(coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="round_prefer_ceil")
    [f] = found(check(model, soc="Ascend310P3", cann="6.0"))
    assert f.data["attr"] == "coordinate_transformation_mode"


def test_resize_conditions_on_mode():
    model = resize(mode="linear", coordinate_transformation_mode="tf_half_pixel_for_nn")
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []  # the facts are about the nearest path


def test_averagepool_same_lower_is_treated_as_same():
    model = single_op_model("AveragePool", [[1, 1, 4, 4]], None, opset=13, kernel_shape=[2, 2], auto_pad="SAME_LOWER")
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.data["value"] == "SAME_LOWER"
    same_upper = single_op_model("AveragePool", [[1, 1, 4, 4]], None, opset=13, kernel_shape=[2, 2],
                                 auto_pad="SAME_UPPER")
    assert found(check(same_upper, soc="Ascend310P3", cann="9.0")) == []


def test_resize_opset18_axes_present_is_reported():
    roi = init("roi", np.array([], dtype=np.float32))
    scales = init("scales", np.array([2, 2], dtype=np.float32))
    node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], axes=[2, 3], nearest_mode="round_prefer_ceil")
    model = make_model([node], [tensor_input("x", [1, 1, 4, 4])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, scales], opset=18)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.data["attr"] == "axes"


def test_pytorch_nearest_upsample_asymmetric_floor_is_an_info():
    # op_facts.json ignored-attr Resize nearest_mode (resize plugin: asymmetric -> align_corners=false,
    # half_pixel_centers=false; nearest_mode never read): what ResizeNearestNeighborV2 computes for that pair is
    # not in the reference facts, so the verdict is an info that says so.
    model = resize(coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    for cann, soc in (("6.0", "Ascend310P3"), ("9.0", "Ascend910B3")):
        [f] = found(check(model, soc=soc, cann=cann))
        assert f.severity.value == "info" and f.data["unverified"] is True
        assert "not in the reference facts" in f.message
    # Another pair the plugin equally ignores stays a warning.
    [w] = found(check(resize(coordinate_transformation_mode="half_pixel", nearest_mode="floor"),
                      soc="Ascend910B3", cann="9.0"))
    assert w.severity.value == "warning"
