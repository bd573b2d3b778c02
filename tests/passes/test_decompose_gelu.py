from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.passes.decompose_gelu import DecomposeGelu
from builders import make_model, single_op_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context


def gelu_model(approximate: str | None = None, elem_type: int = TensorProto.FLOAT) -> onnx.ModelProto:
    attrs = {"approximate": approximate} if approximate is not None else {}
    model = single_op_model("Gelu", [[2, 3, 5]], [2, 3, 5], opset=20, elem_type=elem_type, **attrs)
    model.ir_version = 9
    return model


@pytest.mark.parametrize("approximate", [None, "none", "tanh"])
def test_gelu_becomes_registered_arithmetic(approximate):
    model = gelu_model(approximate)
    new = assert_rewrite(DecomposeGelu, model, pass_context(cann="8.0"))
    ops = op_types(new)
    assert "Gelu" not in ops
    assert ("Tanh" in ops) == (approximate == "tanh") and ("Erf" in ops) == (approximate != "tanh")
    before = [f for f in check(model, "Ascend310P3", "8.0").findings if f.name == "unsupported-op"]
    after = [f for f in check(new, "Ascend310P3", "8.0").findings if f.name == "unsupported-op"]
    assert [f.location.op_type for f in before] == ["Gelu"] and after == []


def test_constants_follow_the_input_float_type():
    new = assert_rewrite(DecomposeGelu, gelu_model("tanh", TensorProto.FLOAT16), pass_context())
    assert {t.data_type for t in new.graph.initializer} == {TensorProto.FLOAT16}


def test_gelu_inside_an_if_branch_is_rewritten():
    def branch(name, op):
        return helper.make_graph([helper.make_node(op, ["x"], [f"{name}_y"], name=f"{name}_op")], name, [],
                                 [tensor_input(f"{name}_y", [4])])

    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("then", "Gelu"), else_branch=branch("else", "Relu"))
    model = make_model([node], [tensor_input("c", [], TensorProto.BOOL), tensor_input("x", [4])],
                       [tensor_input("y", [4])], opset=20, ir_version=9)
    new = assert_rewrite(DecomposeGelu, model, pass_context())
    assert "Gelu" not in op_types(new) and "Erf" in op_types(new)


def test_integer_input_is_left_with_a_note():
    model = gelu_model()
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.INT32
    result = apply(DecomposeGelu, model, pass_context())
    assert not result.modified
    assert "int32" in result.notes[0] and "Gelu" in op_types(result.model)


def test_nothing_to_do_without_gelu():
    model = single_op_model("Relu", [[2, 3]], [2, 3], opset=13)
    result = apply(DecomposeGelu, model, pass_context())
    assert not result.modified and result.notes == []
    assert result.model.SerializeToString() == model.SerializeToString()
