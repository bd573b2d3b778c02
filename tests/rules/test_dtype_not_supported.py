from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.engine import check
from builders import init, make_model, single_op_model, tensor_input

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
    assert f.severity.value == "warning" and f.data["fact"] == "page"
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
