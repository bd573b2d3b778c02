from __future__ import annotations

import pytest
from onnx import helper

from atccheck.api import check
from builders import make_model, single_op_model, tensor_input


def findings(report, name="domain-without-opset-import"):
    return [f for f in report.findings if f.name == name]


def model_with(nodes, imports):
    outputs = [tensor_input(n.output[0], [1, 4]) for n in nodes]
    graph = helper.make_graph(nodes, "g", [tensor_input("x", [1, 4])], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports])


@pytest.mark.parametrize("cann", ["5.0", "6.0", "8.0", "9.0"])
def test_ai_onnx_spelled_on_the_node_but_imported_as_empty(cann):
    model = model_with([helper.make_node("Relu", ["x"], ["y"], name="relu", domain="ai.onnx")], [("", 13)])
    found = findings(check(model, soc="Ascend310", cann=cann))
    assert [f.location.node for f in found] == ["relu"]
    f = found[0]
    assert f.severity.value == "error" and f.atc_error == "E19999"
    assert "domain[ai.onnx] has no responding version" in f.message
    assert f.data["same_domain_spelled_differently"] is True
    assert "set the node's domain to ''" in f.hint


def test_custom_domain_never_imported():
    model = make_model([helper.make_node("FusedConv", ["x"], ["y"], name="fc", domain="com.microsoft")],
                       [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])
    found = findings(check(model, soc="Ascend310P3", cann="9.0"))
    assert len(found) == 1 and found[0].data["domain"] == "com.microsoft"
    assert found[0].data["same_domain_spelled_differently"] is False
    # the node is this rule's, not custom-domain-op's: the parser stops before the pre-check lookup
    assert not [f for f in check(model, soc="Ascend310P3", cann="9.0").findings if f.name == "custom-domain-op"]


def test_one_finding_per_node_including_subgraphs():
    inner = helper.make_node("Relu", ["x"], ["t"], name="inner", domain="ai.onnx")
    then_g = helper.make_graph([inner], "then", [], [tensor_input("t", [1, 4])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="ident")], "else", [],
                               [tensor_input("e", [1, 4])])
    nodes = [
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Sigmoid", ["y"], ["z"], name="sig", domain="ai.onnx"),
    ]
    graph = helper.make_graph(nodes, "g", [tensor_input("c", [], 9), tensor_input("x", [1, 4])],
                              [tensor_input("z", [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    found = findings(check(model, soc="Ascend910B3", cann="8.0"))
    assert sorted(f.location.node for f in found) == ["inner", "sig"]
    assert {f.location.graph for f in found} == {"main", "main/branch:then_branch"}


def test_does_not_fire_when_the_spelling_matches():
    model = model_with([helper.make_node("Relu", ["x"], ["y"], name="relu", domain="ai.onnx")], [("ai.onnx", 13)])
    assert findings(check(model, soc="Ascend310", cann="8.0")) == []
    assert findings(check(single_op_model("Relu", [[1, 4]], [1, 4]), soc="Ascend310", cann="8.0")) == []


def test_empty_domain_node_with_an_ai_onnx_import_is_not_this_rules():
    # The released parser takes an empty-domain node's version from the model's only import.
    model = model_with([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("ai.onnx", 13)])
    assert findings(check(model, soc="Ascend310", cann="6.0")) == []


def test_constant_is_mapped_before_the_domain_lookup():
    import numpy as np

    const = helper.make_node("Constant", [], ["k"], name="k", domain="ai.onnx",
                             value=helper.make_tensor("v", 1, [1, 4], np.ones(4, dtype=np.float32)))
    add = helper.make_node("Add", ["x", "k"], ["y"], name="add")
    graph = helper.make_graph([const, add], "g", [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert findings(check(model, soc="Ascend310", cann="8.0")) == []
