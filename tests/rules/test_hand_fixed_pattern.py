"""hand-fixed-pattern: patterns Huawei's ModelZoo ports rewrite by hand (op_facts.json hand-fixed-practice)."""

from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "hand-fixed-pattern"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def clip(with_max: bool):
    inits = [init("lo", np.array(0.0, np.float32))] + ([init("hi", np.array(6.0, np.float32))] if with_max else [])
    node = helper.make_node("Clip", ["x", "lo"] + (["hi"] if with_max else []), ["y"])
    return make_model([node], [tensor_input("x", [2, 3])], [tensor_input("y", [2, 3])], inits, opset=11)


def test_clip_with_min_and_no_max_under_the_2022_plugin():
    # clip_plugin.cc (2022): Cast + ClipByValue only; Huawei's xcit port repairs this Clip by hand.
    [f] = found(check(clip(False), soc="Ascend310", cann="6.0"))
    assert f.severity.value == "warning" and f.data["pattern"] == "min-without-max" and "xcit" in f.source
    assert found(check(clip(True), soc="Ascend310", cann="6.0")) == []
    # The 9.x plugin adds Maximum/Minimum for a one-sided clip: nothing on 9.0.
    assert found(check(clip(False), soc="Ascend910B3", cann="9.0")) == []


def test_reflect_pad_is_an_info_since_padv3_accepts_reflect():
    # cann_source.md section 7: PadV3 check_supported accepts constant/reflect/edge; TResNet's port replaces it.
    pads = init("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")
    model = make_model([node], [tensor_input("x", [1, 2, 4, 4])], [tensor_input("y", [1, 2, 6, 6])], [pads], opset=13)
    [f] = found(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "info" and "PadV3 accepts reflect" in f.message


def test_random_normal_like_under_the_2022_kernels():
    # kernels.json: RandomStandardNormal has no kernel in the 2022 configs; TDNN's port removes the node.
    model = single_op_model("RandomNormalLike", [[2, 3]], [2, 3], opset=11)
    [f] = found(check(model, soc="Ascend310", cann="6.0"))
    assert f.severity.value == "warning" and "tdnn" in f.source


def test_random_normal_like_on_8_1_kernels_is_aicpu_fallback():
    # kernels.json cann-8.1.RC1: RandomStandardNormal has an AI CPU kernel only: aicpu-fallback reports the node.
    model = single_op_model("RandomNormalLike", [[2, 3]], [2, 3], opset=11)
    report = check(model, soc="Ascend310P3", cann="9.0")
    assert found(report) == []
    [cpu] = [f for f in report.findings if f.name == "aicpu-fallback"]
    assert cpu.data["ascend_ops"] == ["RandomStandardNormal"]


def test_conv1d_needs_no_hand_rewrite():
    # cann_onnx_registry.json attribute_or_rank_dependent_mappings ai.onnx::Conv: kernel_shape of length 1 ->
    # Unsqueeze + Conv2D + Squeeze in both eras, the rewrite the speech ports do by hand.
    w = init("w", np.zeros((4, 2, 3), np.float32))
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3])
    model = make_model([node], [tensor_input("x", [1, 2, 16])], [tensor_input("y", [1, 4, 14])], [w], opset=11)
    for cann in ("6.0", "9.0"):
        report = check(model, soc="Ascend310P3", cann=cann)
        assert [f for f in report.findings if f.severity.value != "info"] == []
