from __future__ import annotations

from onnx import TensorProto, helper

from atccheck.model.shapes import infer_shapes
from builders import make_model, tensor_input


def if_model():
    """x[batch,4] -> If(cond) { then: Relu(x) with a stored symbolic value_info } -> y."""
    then_graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"])], "then", [], [tensor_input("r", ["batch", 4])]
    )
    then_graph.value_info.append(tensor_input("r", ["batch", 4]))
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["n"])], "else", [], [tensor_input("n", ["batch", 4])]
    )
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=else_graph, name="if")
    return make_model([node], [tensor_input("x", ["batch", 4]), tensor_input("cond", [], TensorProto.BOOL)],
                      [tensor_input("y", ["batch", 4])])


def test_user_shapes_reach_values_inside_subgraphs():
    index = infer_shapes(if_model(), {"x": (2, 4)})
    assert index.get("r").shape == (2, 4)
    assert index.get("n").shape == (2, 4)


def test_without_user_shapes_the_symbols_stay():
    index = infer_shapes(if_model(), {})
    assert index.get("r").shape == ("batch", 4)
