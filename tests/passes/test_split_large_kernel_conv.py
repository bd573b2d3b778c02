from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.passes.split_large_kernel_conv import SplitLargeKernelConv
from atccheck.tables import tables
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, assert_same_outputs, op_types, pass_context, rule_findings, run

LIMIT = tables().limit("conv_filter_hw_max")
LIMIT_FIXPIPE = tables().limit("conv_filter_hw_max_fixpipe")


def conv_model(x_shape, kernel, out_channels=4, group=1, bias=True, weight_input=False, opset=13, **attrs):
    rng = np.random.default_rng(7)
    in_per_group = x_shape[1] // group
    fan_in = in_per_group * int(np.prod(kernel))
    w = (rng.standard_normal([out_channels, in_per_group, *kernel]) / np.sqrt(fan_in)).astype(np.float32)
    inits, inputs, names = [], [tensor_input("x", x_shape)], ["x", "w"]
    if weight_input:
        inputs.append(tensor_input("w", list(w.shape)))
    else:
        inits.append(init("w", w))
    if bias:
        inits.append(init("b", rng.standard_normal(out_channels).astype(np.float32)))
        names.append("b")
    node = helper.make_node("Conv", names, ["y"], name="conv", kernel_shape=list(kernel), group=group, **attrs)
    model = make_model([node], inputs, [helper.make_tensor_value_info("y", 1, None)], inits, opset=opset)
    return onnx.shape_inference.infer_shapes(model)


def kernels(model):
    return [list(helper.get_attribute_value(a)) for n in model.graph.node if n.op_type == "Conv"
            for a in n.attribute if a.name == "kernel_shape"]


def test_wide_kernel_is_split_below_the_limit():
    model = conv_model([1, 2, 6, 400], [3, 300], pads=[1, 150, 1, 149])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert kernels(new) == [[3, 150], [3, 150]] and op_types(new).count("Add") == 1
    assert "w" not in {t.name for t in new.graph.initializer}
    assert rule_findings(new, "kernel-out-of-range", "Ascend310P3") == []


def test_grouped_strided_dilated_kernel():
    model = conv_model([1, 4, 3, 1200], [1, 260], out_channels=6, group=2, strides=[1, 2], dilations=[1, 2],
                       pads=[0, 7, 0, 3])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert all(k[1] <= LIMIT for k in kernels(new)) and len(kernels(new)) == 2


def test_one_dimensional_conv_like_an_stft_front_end():
    model = conv_model([1, 1, 1024], [256], out_channels=8, bias=False, strides=[128])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310"))
    assert kernels(new) == [[128], [128]]


def test_both_axes_oversized():
    model = conv_model([1, 1, 20, 20], [260, 300], out_channels=2, pads=[130, 150, 129, 149])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert kernels(new) == [[130, 150]] * 4


def test_tiles_reading_only_padding_are_dropped():
    model = conv_model([1, 1, 4, 4], [600, 600], out_channels=2, pads=[300, 300, 299, 299])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert kernels(new) == [[200, 200]] and "Add" not in op_types(new)


def test_auto_pad_same_upper():
    model = conv_model([1, 2, 5, 300], [3, 257], auto_pad="SAME_UPPER")
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert len(kernels(new)) == 2
    assert all(not [a for a in n.attribute if a.name == "auto_pad"] for n in new.graph.node if n.op_type == "Conv")


def test_fixpipe_chips_allow_511():
    model = conv_model([1, 1, 2, 700], [1, 300], bias=False)
    assert tables().socs["Ascend910B3"].fixpipe
    assert not apply(SplitLargeKernelConv, model, pass_context("Ascend910B3")).modified
    wider = conv_model([1, 1, 2, 1400], [1, 600], bias=False)
    new = assert_rewrite(SplitLargeKernelConv, wider, pass_context("Ascend910B3"))
    assert kernels(new) == [[1, 300], [1, 300]] and LIMIT_FIXPIPE >= 300


def test_dynamic_width_slices_relative_to_the_end():
    model = conv_model([1, 2, 4, "width"], [3, 300], pads=[1, 100, 1, 120], strides=[1, 3])
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"), shapes={"x": (1, 2, 4, 517)})
    assert kernels(new) == [[3, 150], [3, 150]]
    ends = [onnx.numpy_helper.to_array(t) for t in new.graph.initializer if "/ends" in t.name]
    assert ends and all((e < 0).all() or (e == 2**63 - 1).all() for e in ends)
    for width in (300 - 220, 999):  # the shortest width the Conv accepts, and a long one
        assert_same_outputs(model, new, SplitLargeKernelConv.tolerance, rtol=SplitLargeKernelConv.rtol, shapes={"x": (1, 2, 4, width)})


@pytest.mark.parametrize("opset", [10, 13])
def test_dynamic_width_where_a_tile_could_read_only_padding_is_padded_first(opset):
    model = conv_model([1, 1, 2, "width"], [1, 400], auto_pad="SAME_LOWER", opset=opset)
    new = assert_rewrite(SplitLargeKernelConv, model, pass_context("Ascend310P3"), shapes={"x": (1, 1, 2, 333)})
    assert op_types(new).count("Pad") == 1 and kernels(new) == [[1, 200], [1, 200]]
    for width in (1, 7):
        assert_same_outputs(model, new, SplitLargeKernelConv.tolerance, rtol=SplitLargeKernelConv.rtol, shapes={"x": (1, 1, 2, width)})


@pytest.mark.parametrize("model,why", [
    (conv_model([1, 1, 2, 600], [1, 300], weight_input=True), "not a constant"),
    (conv_model([1, 1, 4, "w"], [1, 600], auto_pad="SAME_UPPER", strides=[1, 2]), "static"),
])
def test_refusals(model, why):
    result = apply(SplitLargeKernelConv, model, pass_context("Ascend310P3"))
    assert not result.modified and why in result.notes[0]


def test_silero_stft_conv_with_dynamic_audio_length(shared_models):
    """silero_vad: a 1-D Conv with kernel 256 (> 255 on Ascend310) inside an If branch, length dynamic."""
    model = onnx.load(shared_models / "silero_vad.onnx")
    result = apply(SplitLargeKernelConv, model, pass_context("Ascend310"))
    assert result.modified and op_types(result.model).count("Conv") == op_types(model).count("Conv") + 1
    onnx.checker.check_model(result.model, full_check=True)
    rng = np.random.default_rng(0)
    for rate, samples in ((16000, 512), (8000, 256), (16000, 512)):
        feeds = {"input": rng.standard_normal((1, samples)).astype(np.float32),
                 "state": rng.standard_normal((2, 1, 128)).astype(np.float32), "sr": np.array(rate, np.int64)}
        expected, got = run(model, feeds), run(result.model, feeds)
        for name in expected:
            assert np.allclose(got[name], expected[name], atol=SplitLargeKernelConv.tolerance, rtol=SplitLargeKernelConv.rtol)


def test_small_kernels_are_left_alone(shared_models):
    model = onnx.load(shared_models / "ppocr_mobile_v2_cls.onnx")
    result = apply(SplitLargeKernelConv, model, pass_context("Ascend310"))
    assert not result.modified and result.notes == []
