from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.passes.split_large_pool import SplitLargePool, factor
from atccheck.tables import tables
from builders import make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

AREA = tables().limit("pool_aicpu_window_area")
STRIDE = tables().limit("pool_aicpu_stride")


def pool_model(op, x_shape, kernel, strides=None, outputs=("y",), **attrs):
    node = helper.make_node(op, ["x"], list(outputs), name="pool", kernel_shape=kernel,
                            strides=strides if strides is not None else kernel, **attrs)
    graph_outputs = [helper.make_tensor_value_info(o, onnx.TensorProto.INT64 if o == "idx" else 1, None)
                     for o in outputs if o]
    model = make_model([node], [tensor_input("x", x_shape)], graph_outputs, opset=13)
    return onnx.shape_inference.infer_shapes(model)


def windows(model):
    return [list(helper.get_attribute_value(a)) for n in model.graph.node for a in n.attribute if a.name == "kernel_shape"]


def kernel_findings(model, soc="Ascend310P3", cann="8.0"):
    return rule_findings(model, "kernel-out-of-range", soc, cann)


def test_average_pool_window_area_on_the_2022_plugins():
    model = pool_model("AveragePool", [1, 2, 35, 40], [16, 16])  # rows and columns left over: floor mode
    new = assert_rewrite(SplitLargePool, model, pass_context("Ascend310", "6.0"))
    assert set(op_types(new)) == {"AveragePool"} and len(windows(new)) == 2
    assert all(a * b <= AREA for a, b in windows(new))
    assert kernel_findings(model, "Ascend310", "6.0") and kernel_findings(new, "Ascend310", "6.0") == []


def test_max_pool_window_area():
    model = pool_model("MaxPool", [2, 3, 64, 70], [32, 32])
    new = assert_rewrite(SplitLargePool, model, pass_context())
    assert np.prod([np.prod(w) for w in windows(new)]) == 32 * 32
    assert kernel_findings(model) and kernel_findings(new) == []


def test_max_pool_stride_above_63():
    model = pool_model("MaxPool", [1, 1, 130, 4], [64, 2])
    new = assert_rewrite(SplitLargePool, model, pass_context())
    assert all(max(w) <= STRIDE for w in windows(new)) and kernel_findings(new) == []


def test_average_pool_side_above_255_on_8_0():
    model = pool_model("AveragePool", [1, 1, 2, 905], [1, 300])
    new = assert_rewrite(SplitLargePool, model, pass_context())
    assert all(max(w) <= STRIDE for w in windows(new))
    assert kernel_findings(new) == []


def test_one_dimensional_max_pool():
    model = pool_model("MaxPool", [1, 4, 1100], [512])
    new = assert_rewrite(SplitLargePool, model, pass_context())
    assert all(len(w) == 1 and w[0] <= STRIDE for w in windows(new))


def test_ceil_mode_with_sizes_that_are_multiples_of_the_kernel():
    assert_rewrite(SplitLargePool, pool_model("MaxPool", [1, 1, 64, 64], [32, 32], ceil_mode=1), pass_context())


def test_unused_indices_output_is_not_an_obstacle():
    model = pool_model("MaxPool", [1, 1, 64, 64], [32, 32], outputs=("y", ""))
    assert apply(SplitLargePool, model, pass_context()).modified


@pytest.mark.parametrize("model,why", [
    (pool_model("MaxPool", [1, 1, 64, 64], [32, 32], strides=[16, 16]), "differ"),
    (pool_model("MaxPool", [1, 1, 64, 64], [32, 32], pads=[1, 1, 1, 1]), "pads"),
    (pool_model("AveragePool", [1, 1, 2, 600], [1, 257]), "prime factor"),
    (pool_model("MaxPool", [1, 1, 70, 64], [32, 32], ceil_mode=1), "ceil_mode"),
    (pool_model("MaxPool", [1, 1, 64, 64], [32, 32], outputs=("y", "idx")), "Indices"),
])
def test_refusals(model, why):
    result = apply(SplitLargePool, model, pass_context())
    assert not result.modified and why in result.notes[0]


def test_pools_within_the_limits_are_left_alone(shared_models):
    small = pool_model("MaxPool", [1, 1, 64, 64], [15, 15])  # 225 <= 255
    global_avg = pool_model("AveragePool", [1, 1, 2, 300], [2, 300])  # global: AvgPoolV2 accepts it
    for model in (small, global_avg, onnx.load(shared_models / "mtcnn_onet.onnx")):
        result = apply(SplitLargePool, model, pass_context())
        assert not result.modified and result.notes == []


def test_factorisation():
    assert [a * b for a, b in factor([16, 16], AREA, STRIDE)] == [128, 2]
    assert factor([1, 257], AREA, STRIDE) is None
    for hw in ([32, 32], [1, 300], [64, 2], [45, 60], [128, 128]):
        stages = factor(hw, AREA, STRIDE)
        assert [int(np.prod([s[0] for s in stages])), int(np.prod([s[1] for s in stages]))] == hw
        assert all(a * b <= AREA and a <= STRIDE and b <= STRIDE for a, b in stages)
