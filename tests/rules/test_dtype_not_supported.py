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


def test_dtype_only_the_aicpu_kernel_takes_is_a_warning_reported_once_per_node():
    model = make_model([helper.make_node("Greater", ["a", "b"], ["y"])],
                       [tensor_input("a", [2, 3], TensorProto.INT16), tensor_input("b", [2, 3], TensorProto.INT16)],
                       [helper.make_tensor_value_info("y", TensorProto.BOOL, [2, 3])], opset=13)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    assert f.severity.value == "warning" and f.data["fact"] == "kernels:aicpu"


def test_page_only_omission_is_a_warning_in_the_page_era_and_info_before():
    model = single_op_model("Div", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.INT8)
    [f] = found(check(model, soc="Ascend910B3", cann="9.0"))
    # RealDiv's AI Core dtypes are op_select_format's (no list); its AI CPU kernel takes int8: the page's omission
    # and the AI CPU facts together say it runs on AI CPU.
    assert f.severity.value == "warning" and f.data["fact"] == "page+aicpu"
    # CANN 6.0 on a family the 2022 kernel configs lack: only the 9.0 page speaks, as an info.
    [old] = found(check(model, soc="Ascend910_9392", cann="6.0"))
    assert old.severity.value == "info" and old.data["fact"] == "page"
    # Where the kernel tables know the op, they decide: the 2022 RealDiv AI Core kernel lacks int8.
    [kernel] = found(check(model, soc="Ascend310P3", cann="6.0"))
    assert kernel.data["fact"] == "kernels:aicpu"


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


def test_op_select_format_op_without_aicpu_kernel_is_an_error_for_a_dtype_the_page_omits():
    # kernels.json cann-8.1.RC1 ascend310p Conv2D: AI Core dtypes by op_select_format, aicpu false; the 9.0 Conv
    # page lists float16/float32 only: nowhere to place float64 (EZ3003).
    [f] = found(check(float64_conv(), soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "error" and f.atc_error == "EZ3003" and f.data["fact"] == "page+no-aicpu"
    # CANN 6.0: the 9.0 page does not speak for that release, so the same facts give a warning.
    [old] = found(check(float64_conv(), soc="Ascend310", cann="6.0"))
    assert old.severity.value == "warning" and old.data["fact"] == "page+no-aicpu"


def test_op_select_format_op_with_aicpu_kernel_warns_that_it_runs_on_aicpu():
    # kernels.json cann-8.1.RC1 ascend310p Add: op_select_format, AI CPU kernel takes uint16; the Add page omits uint16.
    model = single_op_model("Add", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.UINT16)
    [f] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "warning" and f.data["fact"] == "page+aicpu" and "runs on AI CPU" in f.message


def test_a_dtype_the_page_lists_on_an_op_select_format_op_is_not_judged():
    # The Add page lists double; which engine takes it is op_select_format's choice, which the configs do not record.
    model = single_op_model("Add", [[2, 3], [2, 3]], [2, 3], opset=13, elem_type=TensorProto.DOUBLE)
    assert found(check(model, soc="Ascend310P3", cann="8.0")) == []


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
    # op_facts.json partitioned-call-member Concat -> ConcatD; kernels.json: ConcatD op_select_format, no AI CPU
    # kernel; the Concat page omits bool. 2022 kernels (6.0): nowhere to place it (a warning: the 9.0 page does not
    # speak for 6.0); 8.1.RC1 lists a host CPU ConcatD kernel, so a warning that names it.
    model = single_op_model("Concat", [[2, 3], [2, 3]], [4, 3], opset=13, elem_type=TensorProto.BOOL, axis=0)
    [old] = found(check(model, soc="Ascend310", cann="6.0"))
    assert old.data["fact"] == "page+no-aicpu" and "ConcatD" in old.message
    [new] = found(check(model, soc="Ascend310P3", cann="8.0"))
    assert new.severity.value == "warning" and new.data["fact"] == "page+host-cpu"


def test_a_casting_precision_mode_lets_float32_reach_a_float16_only_page():
    """LpPool's page lists float16 only: force_fp16 casts float32 to it, must_keep_origin_dtype does not."""
    model = single_op_model("LpPool", [[1, 3, 8, 8]], [1, 3, 4, 4], opset=17, kernel_shape=[2, 2], strides=[2, 2])
    assert found(check(model, soc="Ascend310", cann="9.0", precision_mode="force_fp16")) == []
    [f] = found(check(model, soc="Ascend310", cann="9.0", precision_mode="must_keep_origin_dtype"))
    assert f.severity.value == "warning" and "--precision_mode keeps float32 as float32" in f.message
