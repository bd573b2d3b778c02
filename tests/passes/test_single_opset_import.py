from __future__ import annotations

from onnx import helper

from atccheck.passes.single_opset_import import SingleOpsetImport
from builders import make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def relu_model(**kw):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])], **kw)


def test_an_unused_import_is_dropped_and_e16005_goes():
    model = relu_model(extra_opsets={"com.microsoft": 1})
    assert named(model, "multiple-opset-imports")
    result = run_pass(SingleOpsetImport, model)
    assert result.modified
    assert [(e.domain, e.version) for e in result.model.opset_import] == [("", 13)]
    assert named(result.model, "multiple-opset-imports") == []
    assert_valid(result.model)
    assert not run_pass(SingleOpsetImport, result.model).modified  # idempotent


def test_a_model_local_function_is_inlined_and_its_domain_dropped():
    body = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Neg", ["r"], ["b"])]
    function = helper.make_function("local", "ReluNeg", ["a"], ["b"], body, [helper.make_opsetid("", 13)])
    nodes = [helper.make_node("ReluNeg", ["x"], ["t"], domain="local", name="call"),
             helper.make_node("Sigmoid", ["t"], ["y"], name="sigmoid")]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                       extra_opsets={"local": 1}, functions=[function])
    assert named(model, "multiple-opset-imports")
    assert [f.location.node for f in named(model, "custom-domain-op")] == ["call"]
    result = run_pass(SingleOpsetImport, model)
    assert [n.op_type for n in result.model.graph.node] == ["Relu", "Neg", "Sigmoid"]
    assert named(result.model, "custom-domain-op") == []
    assert not result.model.functions
    assert [e.domain for e in result.model.opset_import] == [""]
    assert named(result.model, "multiple-opset-imports") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0


def test_the_ai_onnx_spelling_becomes_the_empty_domain():
    model = relu_model()
    model.graph.node[0].domain = "ai.onnx"
    model.opset_import[0].domain = "ai.onnx"
    result = run_pass(SingleOpsetImport, model)
    assert result.model.graph.node[0].domain == ""
    assert [(e.domain, e.version) for e in result.model.opset_import] == [("", 13)]
    assert_valid(result.model)


def test_a_used_custom_domain_stays_and_says_why():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("DeformConv", ["r"], ["y"], domain="com.example", name="custom")]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                       extra_opsets={"com.example": 1, "com.unused": 2})
    result = run_pass(SingleOpsetImport, model)
    assert sorted(e.domain for e in result.model.opset_import) == ["", "com.example"]
    assert any("com.example" in n and "plugin" in n for n in result.notes)
