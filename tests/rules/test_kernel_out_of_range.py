from __future__ import annotations

import numpy as np

from atccheck.api import check
from atccheck.tables import tables
from builders import init, single_op_model

NAME = "kernel-out-of-range"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def conv(kernel_hw, width=None, batch=1, **attrs):
    kh, kw = kernel_hw
    weight = init("w", np.zeros((2, 3, kh, kw), dtype=np.float32))
    w = width or max(kw, 8)
    return single_op_model("Conv", [[batch, 3, max(kh, 8), w]], None, opset=13, initializers=[weight], **attrs)


def test_large_conv_kernel_is_a_slow_path_in_static_shape():
    limit = tables().limit("conv_filter_hw_max")
    report = check(conv((1, limit + 1), kernel_shape=[1, limit + 1]), soc="Ascend310P3", cann="9.0")
    [f] = found(report)
    assert f.severity.value == "warning" and "l0a_dma" in f.message
    assert f.data["limit"] == limit and f.fix.pass_name == "split-large-kernel-conv" and f.fix.safe


def test_large_conv_kernel_in_dynamic_shape_is_e60011():
    limit = tables().limit("conv_filter_hw_max")
    model = conv((1, limit + 1), batch="N", kernel_shape=[1, limit + 1])
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "error" and f.atc_error == "E60011"


def test_kernel_read_from_weight_dims_when_kernel_shape_is_absent():
    limit = tables().limit("conv_filter_hw_max")
    [f] = found(check(conv((limit + 5, 1)), soc="Ascend310P3", cann="8.0"))
    assert f.data["kernel_hw"] == [limit + 5, 1]


def test_fixpipe_chips_have_the_larger_limit():
    small, large = tables().limit("conv_filter_hw_max"), tables().limit("conv_filter_hw_max_fixpipe")
    model = conv((1, small + 10), kernel_shape=[1, small + 10])
    assert small + 10 <= large
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []  # fixpipe: within 511
    assert len(found(check(model, soc="Ascend310P3", cann="9.0"))) == 1


def test_one_d_conv_runs_as_2d_with_h_1():
    limit = tables().limit("conv_filter_hw_max")
    weight = init("w", np.zeros((2, 3, limit + 1), dtype=np.float32))
    model = single_op_model("Conv", [[1, 3, limit + 8]], None, opset=13, initializers=[weight],
                            kernel_shape=[limit + 1])
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.data["kernel_hw"] == [1, limit + 1]


def test_conv_stride_above_the_max_is_a_slow_path():
    stride = tables().limit("conv_stride_max") + 1
    model = conv((3, 3), width=200, kernel_shape=[3, 3], strides=[1, stride])
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.severity.value == "warning" and f.data["attr"] == "strides"


def test_ordinary_conv_does_not_fire():
    assert found(check(conv((3, 3), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), soc="Ascend310P3")) == []


def test_maxpool_window_above_area_limit_goes_to_aicpu():
    side = 16  # 16*16 = 256 > pool_aicpu_window_area
    assert side * side > tables().limit("pool_aicpu_window_area")
    model = single_op_model("MaxPool", [[1, 3, 32, 32]], None, opset=13, kernel_shape=[side, side])
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "warning" and "AI CPU" in f.message
    small = single_op_model("MaxPool", [[1, 3, 32, 32]], None, opset=13, kernel_shape=[15, 15])
    assert found(check(small, soc="Ascend310P3", cann="9.0")) == []


def test_pool_kernel_beyond_the_published_range_is_an_error():
    kmax = tables().limit("pool_kernel_max")
    model = single_op_model("MaxPool", [[1, 1, 1, kmax + 1]], None, opset=13, kernel_shape=[1, kmax + 1])
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.severity.value == "error"


def test_avgpool_large_non_global_kernel_falls_back_to_aicpu():
    limit = tables().limit("avgpool_kernel_hw_max")
    model = single_op_model("AveragePool", [[1, 1, 1, limit + 20]], None, opset=13, kernel_shape=[1, limit + 1])
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.severity.value == "warning" and "AvgPoolV2" in f.message  # AvgPoolV2 has an AI CPU kernel


def test_avgpool_global_kernel_is_accepted():
    limit = tables().limit("avgpool_kernel_hw_max")
    model = single_op_model("AveragePool", [[1, 1, 1, limit + 1]], None, opset=13, kernel_shape=[1, limit + 1])
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []


def test_canndev_avgpool_large_stride_takes_the_aicpu_path():
    stride = tables().limit("pool_aicpu_stride") + 1
    model = single_op_model("AveragePool", [[1, 1, 4, 200]], None, opset=13, kernel_shape=[2, 2], strides=[1, stride])
    assert len(found(check(model, soc="Ascend310P3", cann="6.0"))) == 1
    assert found(check(model, soc="Ascend310P3", cann="9.0")) == []  # the 9.x plugin has no such path


def test_real_model_stft_conv_with_dynamic_batch(shared_models):
    # silero-vad's STFT is a 1-D Conv with a 256-wide kernel and strides of 64/128, on a dynamic batch.
    report = check(shared_models / "silero_vad_op18_ifless.onnx", soc="Ascend310P3", cann="9.0")
    errors = [f for f in found(report) if f.severity.value == "error"]
    assert errors and all(f.atc_error == "E60011" and f.data["kernel_hw"] == [1, 256] for f in errors)
    strides = [f for f in found(report) if f.data.get("attr") == "strides"]
    assert strides and all(f.severity.value == "warning" for f in strides)
    # On a fixpipe chip (limit 511) the kernel is within range; the strides still take the slow path.
    on_910b = found(check(shared_models / "silero_vad_op18_ifless.onnx", soc="Ascend910B3", cann="9.0"))
    assert on_910b and all(f.data.get("attr") == "strides" for f in on_910b)


def avgpool(shape, kernel, **attrs):
    return single_op_model("AveragePool", [shape], None, opset=13, kernel_shape=kernel, **attrs)


def test_avgpool_17x17_runs_on_aicpu_by_the_published_page():
    # limits.json avgpool_page_window_area_max (AveragePool page atlasoxol_09_0022: kH*kW > 256 runs on AI CPU).
    [f] = found(check(avgpool([1, 1, 64, 64], [17, 17]), soc="Ascend910B3", cann="8.0"))
    assert f.severity.value == "warning" and f.data["reason"] == "page" and f.data["window_area"] == 289
    assert found(check(avgpool([1, 1, 64, 64], [16, 16]), soc="Ascend910B3", cann="8.0")) == []  # 256: not above


def test_avgpool_v2_window_area_rejection_with_an_output_width_of_one():
    # avg_pool_v2.py: kH*kW > 255 (AVGV2_KERNEL_SIZE_H_MUL_W) and a side > 20 (AVGV2_KERNEL_SIZE) and output
    # H != 1, W == 1; ascend910b's AvgPoolV2 config sets check_supported and an AI CPU kernel exists.
    [f] = found(check(avgpool([1, 1, 60, 30], [30, 30]), soc="Ascend910B3", cann="8.0"))
    assert f.data["reason"] == "check-supported" and "W 1" in f.message


def test_check_supported_is_claimed_only_where_the_config_sets_the_flag():
    # kernels.json cann-8.1.RC1 ascend310p AvgPoolV2: no check_supported flag, so check_supported never runs there;
    # only the page's statement remains.
    [f] = found(check(avgpool([1, 1, 1, 300], [1, 256]), soc="Ascend310P3", cann="8.0"))
    assert f.data["reason"] == "page" and f.data["check_supported"] is False
    [g] = found(check(avgpool([1, 1, 1, 300], [1, 256]), soc="Ascend910B3", cann="8.0"))
    assert g.data["reason"] == "check-supported"


def test_maxpool_window_threshold_is_the_plugin_sources_255():
    # max_pool_onnx_plugin.cpp: kH*kW > 255 builds the AI CPU graph (the page says > 256): 16x16 = 256 counts.
    model = single_op_model("MaxPool", [[1, 1, 32, 32]], None, opset=13, kernel_shape=[16, 16])
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.data["window_area_limit"] == 255
