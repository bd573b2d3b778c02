from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.engine import check_prepared, prepare
from atccheck.tables import tables
from atccheck.target import resolve_target
from builders import init, make_model, tensor_input

LIMITS = tables().limits
CONV_W = LIMITS["conv_fmap_w_max"].value
POOL_W = LIMITS["pool_fmap_w_max"].value
RESIZE_HW = LIMITS["resize_nearest_max_hw"].value
NMS_BOXES = LIMITS["nms_max_output_boxes_warn"].value


def findings(report, name="oversized-block"):
    return [f for f in report.findings if f.name == name]


def conv_model(width):
    weight = init("w", np.zeros((4, 3, 3, 3), np.float32))
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3])
    return make_model([node], [tensor_input("x", [1, 3, 8, width])], [tensor_input("y", [1, 4, 6, width - 2])], [weight])


def test_conv_width_above_the_published_range():
    f = findings(check(conv_model(CONV_W + 1), soc="Ascend310P3"))
    assert len(f) == 1
    assert f[0].severity.value == "warning"
    assert f[0].data["width"] == CONV_W + 1 and f[0].data["limit"] == CONV_W
    assert str(CONV_W + 1) in f[0].message and str(CONV_W) in f[0].message and "Ascend310P3" in f[0].message


def test_conv_width_at_the_limit_passes():
    assert findings(check(conv_model(CONV_W), soc="Ascend310P3")) == []


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_pool_width(op):
    def model(width):
        node = helper.make_node(op, ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2, 2])
        return make_model([node], [tensor_input("x", [1, 3, 4, width])], [tensor_input("y", [1, 3, 2, width // 2])])

    over = findings(check(model(POOL_W + 2), soc="Ascend910B3"))
    assert [f.data["limit_name"] for f in over] == ["pool_fmap_w_max"]
    assert findings(check(model(POOL_W), soc="Ascend910B3")) == []


def test_dynamic_width_is_skipped():
    weight = init("w", np.zeros((4, 3, 3, 3), np.float32))
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3])
    model = make_model([node], [tensor_input("x", [1, 3, 8, "w"])], [tensor_input("y", [1, 4, 6, "w2"])], [weight])
    assert findings(check(model, soc="Ascend310P3")) == []


def resize_model(hw_in, hw_out, mode="nearest"):
    scales = init("scales", np.array([1, 1, hw_out[0] / hw_in[0], hw_out[1] / hw_in[1]], np.float32))
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", mode=mode)
    return make_model([node], [tensor_input("x", [1, 1, *hw_in])], [tensor_input("y", [1, 1, *hw_out])], [scales], opset=11)


def test_nearest_resize_over_the_limit_on_ascend310_falls_back_to_aicpu():
    report = check(resize_model((RESIZE_HW, 8), (RESIZE_HW * 2, 8)), soc="Ascend310", cann="8.0")
    f = findings(report)
    assert len(f) == 1
    assert f[0].severity.value == "warning" and f[0].data["aicpu_kernel"] is True
    assert f[0].data["dims_over_limit"] == {"output H": RESIZE_HW * 2}
    assert "AI CPU" in f[0].message


def test_nearest_resize_without_aicpu_kernel_is_an_error():
    # The 2022 kernel tables (CANN 5.0/6.0 profiles) list no AI CPU ResizeNearestNeighborV2 for ascend310.
    kernel = tables().kernel("canndev-2022-06", "ascend310", "ResizeNearestNeighborV2")
    assert kernel is not None and not kernel.aicpu
    f = findings(check(resize_model((RESIZE_HW + 1, 8), (RESIZE_HW + 1, 8)), soc="Ascend310", cann="6.0"))
    assert [x.severity.value for x in f] == ["error"]
    assert f[0].data["dims_over_limit"] == {"input H": RESIZE_HW + 1, "output H": RESIZE_HW + 1}


def test_resize_limit_only_on_chips_without_fp32_vadds_and_nearest_mode():
    big = resize_model((RESIZE_HW, 8), (RESIZE_HW * 2, 8))
    assert findings(check(big, soc="Ascend310P3")) == []  # fp32_vadds not false
    linear = resize_model((RESIZE_HW, 8), (RESIZE_HW * 2, 8), mode="linear")
    assert findings(check(linear, soc="Ascend310")) == []
    assert findings(check(resize_model((RESIZE_HW, 8), (RESIZE_HW, 16)), soc="Ascend310")) == []


def test_resize_on_a_chip_without_kernel_facts_is_a_warning():
    prepared = prepare(resize_model((RESIZE_HW, 8), (RESIZE_HW * 2, 8)))
    target = resolve_target("Ascend310", "8.0")
    unknown_family = dataclasses.replace(target, soc=dataclasses.replace(target.soc, kernel_family="no-such-family"))
    f = findings(check_prepared(prepared, unknown_family))
    assert [x.severity.value for x in f] == ["warning"] and f[0].data["aicpu_kernel"] is None


def nms_model(boxes):
    inits = [init("max_boxes", np.array([boxes], np.int64)), init("iou", np.array([0.5], np.float32))]
    node = helper.make_node("NonMaxSuppression", ["b", "s", "max_boxes", "iou"], ["sel"], name="nms")
    return make_model([node], [tensor_input("b", [1, 1000, 4]), tensor_input("s", [1, 1, 1000])],
                      [tensor_input("sel", [None, 3], TensorProto.INT64)], inits, opset=11)


def test_nms_boxes_above_the_page_warning():
    f = findings(check(nms_model(NMS_BOXES + 1), soc="Ascend910B3"))
    assert [x.severity.value for x in f] == ["warning"]
    assert f[0].data == {"max_output_boxes_per_class": NMS_BOXES + 1, "limit": NMS_BOXES}
    assert findings(check(nms_model(NMS_BOXES), soc="Ascend910B3")) == []


def test_real_models_are_within_limits(shared_models):
    report = check(shared_models / "ppocr_v4_det.onnx", soc="Ascend310", input_shapes="x:1,3,640,640")
    assert findings(report) == []


def test_real_model_with_a_very_wide_input(shared_models):
    report = check(shared_models / "ppocr_v4_det.onnx", soc="Ascend310P3", input_shapes=f"x:1,3,32,{CONV_W * 2}")
    widths = {f.data["width"] for f in findings(report) if f.location.op_type == "Conv"}
    assert CONV_W * 2 in widths
    assert all(w > CONV_W for w in widths)
