from __future__ import annotations

from onnx import TensorProto, helper

from atccheck.passes.int64_to_int32 import Int64ToInt32
from atccheck.passes.int64_to_int32_unproven import Int64ToInt32Unproven
from builders import make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass

# kernels.json cann-8.1.RC1 ascend310: the Mul and Abs AI Core kernels take no int64 (Mul: what op_select_format
# offers there), their AI CPU kernels do: aicpu-fallback names each int64 input.
SOC = "Ascend310"


def int64_findings(model):
    return [f for rule in ("dtype-not-supported", "aicpu-fallback") for f in named(model, rule, soc=SOC)
            if f.data.get("dtype") == "int64"]


def product_of_inputs():
    nodes = [helper.make_node("Mul", ["a", "b"], ["y"], name="mul")]
    return make_model(nodes, [tensor_input("a", [4], TensorProto.INT64), tensor_input("b", [4], TensorProto.INT64)],
                      [helper.make_tensor_value_info("y", TensorProto.INT64, [4])])


def test_unbounded_values_move_to_int32_only_in_the_unsafe_pass():
    model = product_of_inputs()
    assert int64_findings(model)
    assert not run_pass(Int64ToInt32, model, soc=SOC).modified
    unsafe = run_pass(Int64ToInt32Unproven, model, unsafe=True, soc=SOC)
    assert unsafe.modified and any("without a proof" in n for n in unsafe.notes)
    assert [n.op_type for n in unsafe.model.graph.node] == ["Cast", "Cast", "Mul", "Cast"]
    assert int64_findings(unsafe.model) == []
    assert_valid(unsafe.model)
    assert max_error(model, unsafe.model).max_abs == 0.0  # the seeded inputs are small
    assert not run_pass(Int64ToInt32Unproven, unsafe.model, unsafe=True, soc=SOC).modified  # idempotent


def test_it_is_declared_unsafe():
    assert Int64ToInt32Unproven.safe is False and Int64ToInt32.safe is True
