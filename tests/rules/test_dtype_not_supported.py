from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import heads_model, init, make_model, single_op_model, tensor_input

NAME = "dtype-not-supported"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def conv():
    w = init("w", np.zeros((2, 3, 3, 3), dtype=np.float16))
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
    return make_model([node], [tensor_input("x", [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w], opset=13)


def test_page_says_must_keep_origin_dtype_rejects_float32_conv():
    [f] = found(check(conv(), soc="Ascend310P3", cann="9.0", precision_mode="must_keep_origin_dtype"))
    assert f.severity.value == "error" and f.data["fact"] == "page:origin-mode" and "float32" in f.message


def test_force_fp16_casts_float32_and_nothing_fires():
    assert found(check(conv(), soc="Ascend310P3", cann="9.0", precision_mode="force_fp16")) == []


def test_no_kernel_in_either_engine_is_an_error():
    model = make_model([helper.make_node("Pow", ["x", "e"], ["y"])],
                       [tensor_input("x", [2, 3]), tensor_input("e", [2, 3], TensorProto.UINT32)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], opset=15)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.severity.value == "error" and f.atc_error == "EZ3003" and f.data["dtype"] == "uint32"


def test_dtype_only_the_aicpu_kernel_takes_is_left_to_aicpu_fallback():
    model = make_model([helper.make_node("Greater", ["a", "b"], ["y"])],
                       [tensor_input("a", [2, 3], TensorProto.INT16), tensor_input("b", [2, 3], TensorProto.INT16)],
                       [helper.make_tensor_value_info("y", TensorProto.BOOL, [2, 3])], opset=13)
    report = check(model, soc="Ascend910B3", cann="9.0")
    assert found(report) == []
    [f] = [f for f in report.findings if f.name == "aicpu-fallback"]
    assert f.data["reason"] == "dtype-not-on-ai-core" and f.data["fact"] == "config" and f.data["dtypes"] == ["int16"]


def test_page_only_omission_is_a_warning_in_the_page_era_and_info_before():
    model = single_op_model("Div", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.INT8)
    # RealDiv's AI Core dtypes are op_select_format's: on ascend910b it offers no int8, the AI CPU kernel takes it,
    # so aicpu-fallback reports the node and this rule says nothing.
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []
    # CANN 6.0 on a family the 2022 kernel configs lack: only the 9.0 page speaks, as an info.
    [old] = found(check(model, soc="Ascend910_9392", cann="6.0"))
    assert old.severity.value == "info" and old.data["fact"] == "page"


def test_kernel_list_wins_over_a_page_that_omits_the_dtype():
    # The Reshape page omits float32; the Reshape kernel lists it.
    shape = init("s", np.array([3, 2], np.int64))
    model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"])], [tensor_input("x", [2, 3])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])], [shape], opset=13)
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []


def test_values_folded_at_compile_time_are_skipped():
    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Cast", ["s"], ["c"], to=TensorProto.INT64)]
    model = make_model(nodes, [tensor_input("x", [2, 3])],
                       [helper.make_tensor_value_info("c", TensorProto.INT64, [2])], opset=13)
    assert found(check(model, soc="Ascend910B3", cann="9.0")) == []


def test_cast_to_int64_is_not_in_the_page_output_list():
    model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT64)], [tensor_input("x", [2, 3])],
                       [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])], opset=13)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.data["output_dtype"] == "int64" and "int64" not in f.data["allowed"]


def test_int64_shape_arithmetic_that_folds_gets_info_not_errors():
    # kernels.json canndev-2022-06 ascend310: Mod/SelectV2/Unsqueeze have no int64 kernel in either engine; at
    # static input shapes ATC's constant folding (--oo_constant_folding, default true) computes them instead.
    report = check(heads_model(opset=11), soc="Ascend310", cann="6.0", input_shapes="x:1,16,64")
    mine = found(report)
    assert mine and all(f.severity.value == "info" and f.data["fact"] == "folded" for f in mine)
    assert {f.location.node for f in mine} >= {"mod", "where", "unsqueeze"}
    assert report.fails("error") is False
    # a fact that asks nothing: no annotation in a CI log, and no pass promised that does not answer it
    from atccheck.emit import render

    assert all(not f.needs_action and "simplify" not in f.hint for f in mine)
    assert not any(f.code == "AC304" for f in report.findings if f.needs_action)
    assert "AC304" not in render("github", [report])


def test_int64_shape_arithmetic_on_run_time_values_is_still_an_error():
    # The same Mod on a graph input: nothing folds it, and no kernel takes int64 (kernels.json canndev-2022-06).
    model = single_op_model("Mod", [[4], [4]], [4], opset=11, elem_type=TensorProto.INT64)
    [f] = found(check(model, soc="Ascend310", cann="6.0"))
    assert f.severity.value == "error" and f.atc_error == "EZ3003"


def float64_conv():
    w = init("w", np.zeros((2, 3, 3, 3), dtype=np.float64))
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
    return make_model([node], [tensor_input("x", [1, 3, 8, 8], TensorProto.DOUBLE)],
                      [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)], [w], opset=13)


def test_a_dtype_op_select_format_does_not_offer_and_no_aicpu_kernel_takes_is_an_error():
    # op_tables/curated/op_select_format.json cann-8.1.RC1 ascend310p Conv2D (impl/conv2d.py op_select_format):
    # float16/int8; kernels.json: no AI CPU Conv2D. float64 has no engine (EZ3003), in every profile the
    # kernels speak for.
    [f] = found(check(float64_conv(), soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "error" and f.atc_error == "EZ3003" and f.data["fact"] == "select-format"
    assert "op_select_format" in f.message and "curated/op_select_format.json" in f.source
    # canndev-2022-06 ascend310 SoftmaxV2: float16/float32 on AI Core, no AI CPU kernel.
    model = single_op_model("Softmax", [[2, 3]], [2, 3], opset=13, elem_type=TensorProto.DOUBLE)
    [old] = found(check(model, soc="Ascend310", cann="6.0"))
    assert old.severity.value == "error" and old.data["fact"] == "select-format"


def test_an_op_select_format_answer_decides_before_the_page():
    # The Add page lists double; op_select_format on ascend310p offers no double and the AI CPU Add takes it:
    # aicpu-fallback says so, this rule does not.
    model = single_op_model("Add", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.DOUBLE)
    report = check(model, soc="Ascend310P3", cann="8.0")
    assert found(report) == []
    assert [f.data["reason"] for f in report.findings if f.name == "aicpu-fallback"] == ["dtype-not-on-ai-core"]


def test_an_unread_op_select_format_answer_still_errs_where_the_page_omits_and_no_engine_is_left():
    # op_select_format.json canndev-2022-06 ascend310 SpaceToDepth: unknown (the dynamic impl the config
    # selects has no op_select_format); no AI CPU SpaceToDepth in the 2022 configs; the page omits int64.
    model = single_op_model("SpaceToDepth", [[1, 4, 4, 4]], [1, 16, 2, 2], opset=13, elem_type=TensorProto.INT64,
                            blocksize=2)
    [f] = found(check(model, soc="Ascend310", cann="6.0"))
    assert f.data["fact"] == "page+no-aicpu" and f.severity.value == "warning"


def test_resize_sizes_computed_from_a_folded_shape_are_not_judged():
    # The int64 sizes of a Resize come from the Shape of a tensor whose shape only folding makes static
    # (Shape -> Gather -> Div -> ... -> Reshape): ATC folds the sizes (--oo_constant_folding), no kernel sees them.
    base = heads_model(opset=11)
    nodes = list(base.graph.node) + [
        helper.make_node("Shape", ["rt"], ["rts"]),
        helper.make_node("Slice", ["rts", "s0", "s2", "ax0"], ["nc"]),
        helper.make_node("Mul", ["nc", "one2"], ["nc2"]),
        helper.make_node("Concat", ["nc2", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["rt", "", "", "sizes"], ["z"], name="resize", mode="nearest"),
    ]
    extra = [init(n, np.array(v, np.int64)) for n, v in
             (("s0", [0]), ("s2", [2]), ("ax0", [0]), ("one2", [1, 1]), ("hw", [16, 32]))]
    model = make_model(nodes, [tensor_input("x", ["B", "T", 64])],
                       [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
                       list(base.graph.initializer) + extra, opset=11)
    report = check(model, soc="Ascend310", cann="6.0", input_shapes="x:1,16,64")
    assert [f for f in found(report) if f.location.node == "resize"] == []
    assert report.context.is_static("z")


def test_bool_concat_judged_on_concatd():
    # op_facts.json partitioned-call-member Concat -> ConcatD; op_select_format.json: ConcatD's op_select_format
    # offers bool on ascend310 (2022) and ascend310p (8.1.RC1): the source wins over the Concat page, which
    # omits bool.
    model = single_op_model("Concat", [[2, 3], [2, 3]], [4, 3], opset=13, elem_type=TensorProto.BOOL, axis=0)
    assert found(check(model, soc="Ascend310", cann="6.0")) == []
    assert found(check(model, soc="Ascend310P3", cann="8.0")) == []


def test_force_fp16_casts_float32_where_op_select_format_offers_float16_only():
    # op_select_format.json cann-8.1.RC1 ascend310p MatMulV2, dynamic shapes (impl/dynamic/mat_mul.py): float16
    # only. force_fp16 casts float32 to it; must_keep_origin_dtype leaves float32, which no engine takes.
    model = make_model([helper.make_node("Gemm", ["a", "b"], ["y"])],
                       [tensor_input("a", ["N", 8]), tensor_input("b", [8, 4])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset=13)
    assert found(check(model, soc="Ascend310P3", cann="8.0")) == []
    [f] = found(check(model, soc="Ascend310P3", cann="8.0", precision_mode="must_keep_origin_dtype"))
    assert f.severity.value == "error" and f.data["fact"] == "select-format" and f.data["allowed"] == ["float16"]
    # static shapes: impl/mat_mul.py offers float32 too
    static = make_model([helper.make_node("Gemm", ["a", "b"], ["y"])], [tensor_input("a", [2, 8]),
                                                                         tensor_input("b", [8, 4])],
                        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset=13)
    assert found(check(static, soc="Ascend310P3", cann="8.0", precision_mode="must_keep_origin_dtype")) == []


def test_a_casting_precision_mode_lets_float32_reach_a_float16_only_page():
    """LpPool's page lists float16 only: force_fp16 casts float32 to it, must_keep_origin_dtype does not."""
    model = single_op_model("LpPool", [[1, 3, 8, 8]], [1, 3, 4, 4], opset=17, kernel_shape=[2, 2], strides=[2, 2])
    assert found(check(model, soc="Ascend310", cann="9.0", precision_mode="force_fp16")) == []
    [f] = found(check(model, soc="Ascend310", cann="9.0", precision_mode="must_keep_origin_dtype"))
    assert f.severity.value == "warning" and "--precision_mode keeps float32 as float32" in f.message


def test_the_op_a_fusion_pass_leaves_is_judged():
    # registry.json canndev-2022: ScatterND becomes TensorScatterUpdate; fusion_passes.json: the 2022
    # TensorScatterUpdateFusionPass replaces it by TensorMove + ScatterNdUpdate unconditionally; kernels.json
    # canndev-2022-06 ascend310: the ScatterNdUpdate AI Core kernel takes no uint8 and there is no AI CPU one.
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"])
    model = make_model([node], [tensor_input("x", [4, 4], TensorProto.UINT8), tensor_input("i", [2, 1], TensorProto.INT64),
                                tensor_input("u", [2, 4], TensorProto.UINT8)],
                       [helper.make_tensor_value_info("y", TensorProto.UINT8, [4, 4])], opset=13)
    [f] = found(check(model, soc="Ascend310", cann="6.0"))
    assert f.severity.value == "error" and f.data["fusion_pass"] == "TensorScatterUpdateFusionPass"
    assert "ScatterNdUpdate on Ascend310" in f.message
