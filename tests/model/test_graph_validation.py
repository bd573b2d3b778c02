from __future__ import annotations

import pytest
from onnx import helper

from atccheck.errors import InputError
from atccheck.model.loading import load_model
from builders import make_model, tensor_input


def test_a_cycle_is_an_invalid_graph_not_a_hang():
    nodes = [
        helper.make_node("Add", ["x", "b"], ["a"], name="add"),
        helper.make_node("Relu", ["a"], ["b"], name="relu"),
    ]
    model = make_model(nodes, [tensor_input("x", [2])], [tensor_input("b", [2])])
    with pytest.raises(InputError, match="cycle"):
        load_model(model)


def test_unsorted_but_acyclic_graph_is_accepted():
    nodes = [
        helper.make_node("Relu", ["a"], ["b"], name="relu"),
        helper.make_node("Neg", ["x"], ["a"], name="neg"),
    ]
    model = make_model(nodes, [tensor_input("x", [2])], [tensor_input("b", [2])])
    assert len(load_model(model).model.graph.node) == 2
