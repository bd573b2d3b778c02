from __future__ import annotations

from onnx import helper

from atccheck.fixing.inputs import make_inputs
from atccheck.fixing.proof import same_computation
from atccheck.fixing.runtime import ModelSource, run_model
from atccheck.passes.rename_duplicate_nodes import RenameDuplicateNodes
from builders import make_model, tensor_input
from fix_harness import assert_valid, named, run_pass


def chain(names):
    nodes, x = [], "x"
    for i, name in enumerate(names):
        nodes.append(helper.make_node("Relu", [x], [f"t{i}"], name=name))
        x = f"t{i}"
    return make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input(x, [1, 4])])


def test_repeated_names_get_fresh_ones_and_the_finding_goes():
    model = chain(["relu", "relu", "relu", "relu_1"])
    assert named(model, "duplicate-node-name")
    result = run_pass(RenameDuplicateNodes, model)
    names = [n.name for n in result.model.graph.node]
    assert names[0] == "relu" and names[3] == "relu_1" and len(set(names)) == 4
    assert named(result.model, "duplicate-node-name") == []
    assert_valid(result.model)
    # onnxruntime refuses the original (two nodes named alike); the rename is proved instead
    feeds = make_inputs(model, {"x": (1, 4)})
    assert same_computation(model, result.model, feeds.sets)
    assert run_model(ModelSource(result.model), feeds)[0]["t3"].shape == (1, 4)
    assert not run_pass(RenameDuplicateNodes, result.model).modified  # idempotent


def test_a_node_named_like_a_graph_input_is_renamed():
    model = chain(["x", "other"])
    assert named(model, "duplicate-node-name")
    result = run_pass(RenameDuplicateNodes, model)
    assert result.model.graph.node[0].name != "x"
    assert named(result.model, "duplicate-node-name") == []


def test_unique_and_unnamed_nodes_are_left_alone():
    assert not run_pass(RenameDuplicateNodes, chain(["a", "", "", "b"])).modified
