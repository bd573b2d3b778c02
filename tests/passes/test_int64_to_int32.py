from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.passes.int64_to_int32 import Int64ToInt32
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass

# kernels.json cann-8.1.RC1 ascend310: the Mul and Abs AI Core kernels take no int64 (Mul: what op_select_format
# offers there), their AI CPU kernels do: aicpu-fallback names each int64 input.
SOC = "Ascend310"


def int64_findings(model):
    return [f for rule in ("dtype-not-supported", "aicpu-fallback") for f in named(model, rule, soc=SOC)
            if f.data.get("dtype") == "int64"]


def indices_times_three():
    """ArgMax indices (bounded by a static axis) * 3, then Abs: every value provably fits int32."""
    nodes = [helper.make_node("ArgMax", ["x"], ["i"], axis=1, keepdims=0, name="argmax"),
             helper.make_node("Mul", ["i", "three"], ["m"], name="mul"),
             helper.make_node("Abs", ["m"], ["y"], name="abs")]
    return make_model(nodes, [tensor_input("x", [2, 5])], [helper.make_tensor_value_info("y", TensorProto.INT64, [2])],
                      [init("three", np.array(3, np.int64))])


def test_provably_small_values_move_to_int32_and_the_findings_go():
    model = indices_times_three()
    assert {f.location.node for f in int64_findings(model)} == {"mul", "abs"}
    result = run_pass(Int64ToInt32, model, soc=SOC)
    assert result.modified
    ops = [n.op_type for n in result.model.graph.node]
    assert ops == ["ArgMax", "Cast", "Mul", "Abs", "Cast"]  # the cast pair between Mul and Abs is gone
    assert result.model.graph.output[0].type.tensor_type.elem_type == TensorProto.INT64
    assert int64_findings(result.model) == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(Int64ToInt32, result.model, soc=SOC).modified  # idempotent


def test_values_from_graph_inputs_are_left_and_said_so():
    nodes = [helper.make_node("Mul", ["a", "b"], ["y"], name="mul")]
    model = make_model(nodes, [tensor_input("a", [4], TensorProto.INT64), tensor_input("b", [4], TensorProto.INT64)],
                       [helper.make_tensor_value_info("y", TensorProto.INT64, [4])])
    assert int64_findings(model)
    result = run_pass(Int64ToInt32, model, soc=SOC)
    assert not result.modified and any("nothing bounds 'a'" in n and "--unsafe-fixes" in n for n in result.notes)


def test_it_answers_the_dtype_findings_of_aicpu_fallback_not_its_others():
    model = indices_times_three()
    slow = [f for f in named(model, "aicpu-fallback", soc=SOC) if f.data.get("dtype") == "int64"]
    assert slow and all(f.data["reason"] == "dtype-not-on-ai-core" for f in slow)
    assert Int64ToInt32().answered(slow) == slow
    # kernels.json cann-8.1.RC1 ascend310p: ScatterElements has an AI CPU kernel only -- not a dtype question
    scatter = make_model([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"])],
                         [tensor_input("x", [4, 4]), tensor_input("i", [2, 4], TensorProto.INT64),
                          tensor_input("u", [2, 4])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 4])])
    other = named(scatter, "aicpu-fallback")
    assert [f.data["reason"] for f in other] == ["no-ai-core-kernel"] and Int64ToInt32().answered(other) == []
