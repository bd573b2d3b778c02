from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "aicpu-fallback"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def scatter_elements(constant=False):
    indices = tensor_input("i", [2, 2], TensorProto.INT64)
    updates = tensor_input("u", [2, 2])
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    if constant:
        inits = [init("x", np.zeros((2, 3), np.float32)), init("i", np.zeros((2, 2), np.int64)),
                 init("u", np.ones((2, 2), np.float32))]
        return make_model([node], [], [out], inits, opset=13)
    return make_model([node], [tensor_input("x", [2, 3]), indices, updates], [out], opset=13)


def test_op_with_only_an_aicpu_kernel_on_this_chip():
    [f] = found(check(scatter_elements(), soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "warning" and f.data["ascend_op"] == "ScatterElements"
    assert f.data["family"] == "ascend310p" and "AI CPU" in f.message
    assert found(check(scatter_elements(), soc="Ascend910B3", cann="9.0")) == []  # AI Core kernel there


def test_values_folded_at_compile_time_are_not_reported():
    assert found(check(scatter_elements(constant=True), soc="Ascend310P3", cann="9.0")) == []


def test_no_kernel_facts_for_the_family_means_no_claim():
    # The 2022 kernel configs have no ascend910_93 family.
    assert found(check(scatter_elements(), soc="Ascend910_9392", cann="6.0")) == []


def slice_model(constant_bounds: bool, out_rank: int = 2):
    shape = [4, 6] if out_rank == 2 else [6]
    if constant_bounds:
        inits = [init("s", np.array([1], np.int64)), init("e", np.array([3], np.int64)),
                 init("a", np.array([out_rank - 1], np.int64))]
        inputs = [tensor_input("x", shape)]
    else:
        inits = [init("a", np.array([out_rank - 1], np.int64))]
        inputs = [tensor_input("x", shape), tensor_input("s", [1], TensorProto.INT64),
                  tensor_input("e", [1], TensorProto.INT64)]
    node = helper.make_node("Slice", ["x", "s", "e", "a"], ["y"])
    return make_model([node], inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits, opset=13)


def test_slice_with_constant_bounds_is_moved_to_ai_core_by_a_fusion_pass():
    assert found(check(slice_model(True), soc="Ascend910B3", cann="9.0")) == []
    [f] = found(check(slice_model(False), soc="Ascend910B3", cann="9.0"))
    assert f.data["ascend_op"] == "StridedSliceV2" and "constant" in f.hint


def test_slice_with_a_1d_output_stays_on_aicpu():
    [f] = found(check(slice_model(True, out_rank=1), soc="Ascend910B3", cann="9.0"))
    assert f.data["reason"] == "no-ai-core-kernel"


def resize(mode):
    roi = init("roi", np.array([], dtype=np.float32))
    scales = init("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode=mode)
    return make_model([node], [tensor_input("x", [1, 1, 4, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, scales], opset=13)


def test_linear_resize_is_rejected_by_check_supported_in_the_9x_mapping():
    [f] = found(check(resize("linear"), soc="Ascend910B3", cann="9.0"))
    assert f.data["reason"] == "check-supported" and f.data["ascend_op"] == "Resize"
    assert found(check(resize("nearest"), soc="Ascend910B3", cann="9.0")) == []
    # The 2022 plugins map linear to ResizeBilinearV2, which has an AI Core kernel.
    assert found(check(resize("linear"), soc="Ascend310P3", cann="6.0")) == []


def test_ops_with_an_ai_core_kernel_do_not_fire():
    assert found(check(single_op_model("Relu", [[2, 3]], [2, 3], opset=13), soc="Ascend310P3", cann="9.0")) == []


def compress():
    node = helper.make_node("Compress", ["x", "c"], ["y"], axis=0)
    return make_model([node], [tensor_input("x", [4, 4]), tensor_input("c", [4], TensorProto.BOOL)],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset=11)


def test_partitioned_call_is_as_slow_as_its_slowest_member():
    # registry.json: Compress is a PartitionedCall of Flatten, GatherV2, Squeeze, Where; kernels.json
    # (cann-8.1.RC1 ascend310p and canndev-2022-06 ascend310): Where has an AI CPU kernel only.
    for cann, soc in (("8.0", "Ascend310P3"), ("6.0", "Ascend310")):
        [f] = found(check(compress(), soc=soc, cann=cann))
        assert f.severity.value == "warning" and f.data["reason"] == "composite-member"
        assert f.data["ascend_ops"] == ["Where"] and "GatherV2" in f.data["members"]


def test_duplicate_registrations_judge_every_registered_op():
    # registry.json (9.x mapping): ScatterND is registered twice, as a PartitionedCall of ScatterNd* and as
    # TensorScatterUpdate; kernels.json cann-8.1.RC1: TensorScatterUpdate is AI CPU only on every family.
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"])
    model = make_model([node], [tensor_input("x", [4, 4]), tensor_input("i", [2, 1], TensorProto.INT64),
                                tensor_input("u", [2, 4])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 4])], opset=13)
    [f] = found(check(model, soc="Ascend910B3", cann="8.0"))
    assert "TensorScatterUpdate" in f.data["ascend_ops"] and "duplicate registrations" in f.message


def test_trilu_under_the_2022_mapping_runs_on_aicpu():
    # registry.json canndev-2022: Trilu is a PartitionedCall of Tril, Triu; canndev-2022-06 kernels: AI CPU only.
    model = single_op_model("Trilu", [[4, 4]], [4, 4], opset=14)
    [f] = found(check(model, soc="Ascend310", cann="6.0"))
    assert set(f.data["ascend_ops"]) == {"Tril", "Triu"}


def test_a_member_a_fact_rules_out_is_not_judged():
    # op_facts.json partitioned-call-member: a 2-D MaxPool becomes MaxPoolV3 only, so MaxPool3D and the
    # helper ops of its PartitionedCall are not the node's cost.
    model = single_op_model("MaxPool", [[1, 3, 8, 8]], [1, 3, 4, 4], opset=13, kernel_shape=[2, 2], strides=[2, 2])
    assert [f for f in found(check(model, soc="Ascend310P3", cann="8.0"))
            if f.data.get("reason") == "composite-member"] == []
