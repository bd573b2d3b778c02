from __future__ import annotations

from onnx import helper

from atccheck.api import check
from builders import init, make_model, tensor_input


def findings(report, name="duplicate-node-name"):
    return [f for f in report.findings if f.name == name]


def chain(names, inputs=("x",), initializers=()):
    nodes, prev = [], inputs[0]
    for i, name in enumerate(names):
        nodes.append(helper.make_node("Relu", [prev], [f"v{i}"], name=name))
        prev = f"v{i}"
    graph_inputs = [tensor_input(n, [1, 4]) for n in inputs]
    return make_model(nodes, graph_inputs, [tensor_input(prev, [1, 4])], list(initializers))


def test_fires_once_per_repeated_name_on_the_second_node():
    model = chain(["blk/act", "blk/out", "blk/act", "blk/act", "blk/out", "head"])
    found = findings(check(model, soc="Ascend310", cann="8.0"))
    assert sorted(f.location.node for f in found) == ["blk/act", "blk/out"]
    by_name = {f.data["name"]: f for f in found}
    assert by_name["blk/act"].data["occurrences"] == 3 and by_name["blk/act"].data["node_indices"] == [0, 2, 3]
    assert by_name["blk/out"].data["node_indices"] == [1, 4]
    f = by_name["blk/act"]
    assert f.severity.value == "error" and f.atc_error == "E13009"
    assert f.fix.pass_name == "rename-duplicate-nodes" and f.fix.safe is True
    assert "blk/act" not in f.message  # the name lives in the location


def test_node_named_like_a_graph_input():
    model = chain(["x", "other"])
    (f,) = findings(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.location.node == "x" and f.data["graph_input"] is True and f.data["occurrences"] == 2
    assert "graph input" in f.message


def test_initializer_backed_input_is_a_constant_not_an_input_node():
    import numpy as np

    weights = init("w", np.ones((1, 4), dtype=np.float32))
    add = helper.make_node("Add", ["x", "w"], ["y"], name="w")
    model = make_model([add], [tensor_input("x", [1, 4]), tensor_input("w", [1, 4])], [tensor_input("y", [1, 4])],
                       [weights])
    assert findings(check(model, soc="Ascend310", cann="8.0")) == []


def test_does_not_fire_on_unique_or_unnamed_nodes():
    assert findings(check(chain(["a", "b", "c"]), soc="Ascend310", cann="8.0")) == []
    assert findings(check(chain(["", "", ""]), soc="Ascend310", cann="8.0")) == []


def test_subgraph_nodes_are_not_compared():
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="dup")], "then", [],
                               [tensor_input("t", [1, 4])])
    else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["e"], name="dup")], "else", [],
                               [tensor_input("e", [1, 4])])
    nodes = [
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Relu", ["y"], ["z"], name="dup"),
    ]
    model = make_model(nodes, [tensor_input("c", [], 9), tensor_input("x", [1, 4])], [tensor_input("z", [1, 4])])
    assert findings(check(model, soc="Ascend310P3", cann="8.0")) == []
