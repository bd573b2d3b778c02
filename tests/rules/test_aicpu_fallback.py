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


def scatter_nd(dtype=TensorProto.FLOAT, opset=13, **attrs):
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"], **attrs)
    return make_model([node], [tensor_input("x", [4, 4], dtype), tensor_input("i", [2, 1], TensorProto.INT64),
                               tensor_input("u", [2, 4], dtype)],
                      [helper.make_tensor_value_info("y", dtype, [4, 4])], opset=opset)


def test_tensor_scatter_update_is_replaced_before_the_engine_is_chosen():
    # registry.json (9.x mapping): ScatterND is registered twice, as a PartitionedCall (TensorMove + ScatterNdUpdate
    # for reduction none) and as TensorScatterUpdate, which kernels.json cann-8.1.RC1 gives an AI CPU kernel only.
    # fusion_passes.json TensorScatterUpdateFusionPass (hicann/ops-nn tensor_scatter_update_fusion_pass.cpp)
    # replaces TensorScatterUpdate by TensorMove + ScatterNdUpdate, both on AI Core: no AI CPU op is left.
    assert found(check(scatter_nd(), soc="Ascend910B3", cann="8.0")) == []
    assert found(check(scatter_nd(opset=16, reduction="none"), soc="Ascend310P3", cann="9.0")) == []
    # The 2022 mapping: ScatterND is TensorScatterUpdate only, and the 2022 pass replaces it unconditionally.
    assert found(check(scatter_nd(), soc="Ascend310", cann="6.0")) == []


def test_the_fusion_pass_declines_a_bool_tensor_scatter_update():
    # The 2026 pass does not fire for a bool x (MeetRequirements): TensorScatterUpdate stays on AI CPU.
    [f] = found(check(scatter_nd(TensorProto.BOOL), soc="Ascend910B3", cann="8.0"))
    assert f.data["ascend_ops"] == ["TensorScatterUpdate"] and "bool" in f.data["fusion_passes"][
        "TensorScatterUpdateFusionPass"]
    assert "TensorScatterUpdateFusionPass leaves TensorScatterUpdate" in f.message


def test_scatter_nd_reduction_chooses_the_member():
    # scatter_nd_onnx_plugin.cpp builds TensorMove + ScatterNdMax for reduction max; kernels.json cann-8.1.RC1
    # ascend910b: ScatterNdMax has an AI CPU kernel only. The TensorScatterUpdate registration is rewritten.
    [f] = found(check(scatter_nd(opset=18, reduction="max"), soc="Ascend910B3", cann="8.0"))
    assert f.data["ascend_ops"] == ["ScatterNdMax"] and "ScatterNdUpdate" not in f.data["members"]
    assert found(check(scatter_nd(opset=18, reduction="add"), soc="Ascend910B3", cann="8.0")) == []


def trilu(shape, **attrs):
    node = helper.make_node("Trilu", ["x"], ["y"], **attrs)
    return make_model([node], [tensor_input("x", shape)], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                      opset=14)


def test_trilu_upper_chooses_triu_and_the_fusion_pass_makes_it_a_mul():
    # fusion_passes.json: the 2022 Trilu plugin builds Triu for upper=1 (the default), Tril for upper=0; the 2022
    # TrilFusionPass/TriuFusionPass replace a static-shape float32 Tril/Triu by a Mul (AI Core).
    assert found(check(trilu([4, 4]), soc="Ascend310", cann="6.0")) == []
    assert found(check(trilu([4, 4], upper=0), soc="Ascend310", cann="6.0")) == []
    # A dynamic shape: the pass leaves the op, which canndev-2022-06 kernels run on AI CPU only.
    [f] = found(check(trilu(["N", 4], upper=0), soc="Ascend310", cann="6.0"))
    assert f.data["ascend_op"] == "Tril" and f.data["fusion_pass"] == "TrilFusionPass"
    assert f.data["fusion_declined"] == "input 0 has a dynamic shape" and "TrilFusionPass leaves it" in f.message


def nms(constant_max: bool, batch="B"):
    inits = [init("iou", np.array([0.5], np.float32)), init("score", np.array([0.1], np.float32))]
    inputs = [tensor_input("boxes", [1, 16, 4]), tensor_input("scores", [1, 2, 16] if not batch else [batch, 2, 16])]
    if constant_max:
        inits.append(init("max", np.array([4], np.int64)))
    else:
        inputs.append(tensor_input("max", [1], TensorProto.INT64))
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["sel"])
    return make_model([node], inputs, [helper.make_tensor_value_info("sel", TensorProto.INT64, None)], inits, opset=11)


def test_non_max_suppression_v6_becomes_v7():
    from atccheck.context import NodeContext
    from atccheck.rules._placement import judged_op

    # fusion_passes.json NonMaxSuppressionV6Fusion: with a constant max_output_boxes_per_class and static scores,
    # the node GE compiles is NonMaxSuppressionV7.
    for model, expected, reason in ((nms(True, batch=None), "NonMaxSuppressionV7", ""),
                                    (nms(False, batch=None), "NonMaxSuppressionV6", "input 2 is not a constant"),
                                    (nms(True), "NonMaxSuppressionV6", "input 1 has a dynamic shape")):
        report = check(model, soc="Ascend310P3", cann="8.0")
        node = NodeContext(report.context.graph.nodes[0], report.context)
        op, fusion = judged_op(node, "NonMaxSuppressionV6")
        assert op == expected and fusion is not None and fusion.reason == reason
        assert fusion.pass_name == "NonMaxSuppressionV6Fusion"


def test_a_member_a_fact_rules_out_is_not_judged():
    # op_facts.json partitioned-call-member: a 2-D MaxPool becomes MaxPoolV3 only, so MaxPool3D and the
    # helper ops of its PartitionedCall are not the node's cost.
    model = single_op_model("MaxPool", [[1, 3, 8, 8]], [1, 3, 4, 4], opset=13, kernel_shape=[2, 2], strides=[2, 2])
    assert [f for f in found(check(model, soc="Ascend310P3", cann="8.0"))
            if f.data.get("reason") == "composite-member"] == []


def slice_to_shape_model():
    """Slice whose end is computed from the shape of an input with a dynamic batch: foldable once static."""
    inits = [init("s", np.array([1], np.int64)), init("a", np.array([1], np.int64)),
             init("i0", np.array([1], np.int64)), init("i1", np.array([2], np.int64))]
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Slice", ["shape", "i0", "i1"], ["e"]),
             helper.make_node("Slice", ["x", "s", "e", "a"], ["y"], name="cut")]
    return make_model(nodes, [tensor_input("x", ["n", 6])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                      inits, opset=13)


def test_the_finding_names_the_pass_its_hint_names():
    """Bounds that fold once the shapes are static: simplify answers the finding, and the hint says so."""
    [f] = [f for f in found(check(slice_to_shape_model(), soc="Ascend910B3", cann="9.0")) if f.location.node == "cut"]
    assert f.data["foldable_once_static"] is True
    assert f.fix is not None and f.fix.pass_name == "simplify" and "(simplify)" in f.hint


def test_a_finding_no_pass_answers_names_no_pass():
    """Bounds read from graph inputs never fold: the finding is manual and its hint names no pass."""
    from atccheck.passes import all_passes

    [f] = found(check(slice_model(False), soc="Ascend910B3", cann="9.0"))
    assert f.data["foldable_once_static"] is False
    assert f.fix is None or f.fix.pass_name == "manual"
    assert not any(p.name in f.hint for p in all_passes()) and "atccheck fix" not in f.hint


def test_add_double_on_ascend310p_runs_on_aicpu():
    # op_select_format.json cann-8.1.RC1 ascend310p Add (impl/dynamic/add.py op_select_format): bool, float16,
    # float32, int32, int64, int8, uint8 -- no double on that chip; the AI CPU Add kernel takes double.
    model = single_op_model("Add", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.DOUBLE)
    [f] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "warning" and f.data["reason"] == "dtype-not-on-ai-core"
    assert f.data["fact"] == "select-format" and "float64" not in f.data["aicore_dtypes"]
    assert "curated/op_select_format.json" in f.source
    # int64 is offered there (the function adds int64 and bool for Ascend310P), and not on Ascend310
    int64 = single_op_model("Add", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.INT64)
    assert found(check(int64, soc="Ascend310P3", cann="8.0")) == []
    [old] = found(check(int64, soc="Ascend310", cann="8.0"))
    assert old.data["dtypes"] == ["int64"]


def test_softmax_takes_only_the_float_dtypes_op_select_format_offers():
    # op_select_format.json: SoftmaxV2 offers bfloat16/float16/float32 on ascend910b; the AI CPU SoftmaxV2
    # takes double: a double Softmax runs on AI CPU.
    model = single_op_model("Softmax", [[2, 3]], [2, 3], opset=13, elem_type=TensorProto.DOUBLE)
    [f] = found(check(model, soc="Ascend910B3", cann="8.0"))
    assert f.data["aicore_dtypes"] == ["bfloat16", "float16", "float32"]
    assert found(check(single_op_model("Softmax", [[2, 3]], [2, 3], opset=13), soc="Ascend910B3", cann="8.0")) == []


def test_an_unread_op_select_format_answer_is_an_info():
    # op_select_format.json cann-8.1.RC1 ascend310p SpaceToDepth: unknown -- the config selects the dynamic impl,
    # which has no op_select_format. The page omits double and the AI CPU kernel takes it: an info, not a verdict.
    model = single_op_model("SpaceToDepth", [[1, 4, 4, 4]], [1, 16, 2, 2], opset=13, elem_type=TensorProto.DOUBLE,
                            blocksize=2)
    [f] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "info" and f.data["reason"] == "select-format-unknown"
    assert "no op_select_format" in f.data["unknown"]
    # A dtype the page lists is not doubted.
    listed = single_op_model("SpaceToDepth", [[1, 4, 4, 4]], [1, 16, 2, 2], opset=13, blocksize=2)
    assert found(check(listed, soc="Ascend310P3", cann="8.0")) == []


def test_precision_mode_decides_whether_float32_leaves_a_float16_only_ai_core_kernel():
    # op_select_format.json cann-8.1.RC1 ascend310p BatchMatMulV2, dynamic shapes (impl/dynamic/batch_matmul_v2.py):
    # float16 only; the AI CPU BatchMatMulV2 takes float32. force_fp16 casts float32 to float16 (atc_options.json
    # precision_fp16_casts): AI Core; must_keep_origin_dtype keeps float32: AI CPU.
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    model = make_model([node], [tensor_input("a", ["N", 4, 8]), tensor_input("b", ["N", 8, 4])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset=13)
    assert found(check(model, soc="Ascend310P3", cann="8.0")) == []
    [f] = found(check(model, soc="Ascend310P3", cann="8.0", precision_mode="must_keep_origin_dtype"))
    assert f.data["reason"] == "dtype-not-on-ai-core" and f.data["shapes"] == "dynamic"
    assert f.data["aicore_dtypes"] == ["float16"]
