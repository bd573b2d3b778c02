from __future__ import annotations

import pytest
from onnx import helper

from atccheck.api import check
from builders import make_model, single_op_model, tensor_input

PROFILES = ["5.0", "6.0", "8.0", "9.0"]


def findings(report, name="multiple-opset-imports"):
    return [f for f in report.findings if f.name == name]


def relu_plus(extra_nodes=(), extra_opsets=None, functions=()):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")] + list(extra_nodes)
    return make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input(o, [1, 4]) for n in nodes for o in n.output],
                      extra_opsets=extra_opsets, functions=functions)


@pytest.mark.parametrize("cann", PROFILES)
def test_fires_once_per_model_in_every_released_profile(cann):
    model = relu_plus(
        [helper.make_node("FusedGemm", ["x"], ["z"], name="fused", domain="com.microsoft")],
        extra_opsets={"com.microsoft": 1, "ai.onnx.ml": 3},
    )
    found = findings(check(model, soc="Ascend310P3", cann=cann))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "error" and f.atc_error == "E16005"
    assert f.location.node is None  # model level
    assert "3 opset_import entries" in f.message and "com.microsoft" in f.message and "ai.onnx.ml" in f.message
    assert f.data["extra_imports_used"] == {"com.microsoft": 1}
    assert f.data["extra_imports_unused"] == ["ai.onnx.ml"]
    assert f.data["used_by_custom_domain_nodes"] == ["com.microsoft"]
    assert f.fix.pass_name == "single-opset-import" and f.fix.safe is True
    assert "cannot simply be dropped" in f.hint and "decompose or replace" in f.hint


def test_unused_extra_import_only_says_drop():
    model = relu_plus(extra_opsets={"ai.onnx.ml": 3})
    (f,) = findings(check(model, soc="Ascend310", cann="6.0"))
    assert f.data["extra_imports_used"] == {} and f.data["extra_imports_unused"] == ["ai.onnx.ml"]
    assert "cannot simply be dropped" not in f.hint and "can be dropped" in f.hint


def test_does_not_fire_with_one_import():
    model = single_op_model("Relu", [[1, 4]], [1, 4], opset=13)
    assert findings(check(model, soc="Ascend310", cann="8.0")) == []


def test_does_not_fire_without_default_domain_nodes():
    # Every node names its domain: the released parser never needs the single-import rule.
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu", domain="ai.onnx"),
        helper.make_node("Foo", ["y"], ["z"], name="foo", domain="com.example"),
    ]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [tensor_input("x", [1, 4])], [tensor_input("z", [1, 4])]),
        opset_imports=[helper.make_opsetid("ai.onnx", 13), helper.make_opsetid("com.example", 1)],
    )
    assert findings(check(model, soc="Ascend310P3", cann="9.0")) == []


def test_default_domain_node_inside_a_subgraph_counts():
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="inner_relu")], "then", [],
                               [tensor_input("t", [1, 4])])
    else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["e"], name="inner_relu2")], "else", [],
                               [tensor_input("e", [1, 4])])
    nodes = [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g,
                              domain="ai.onnx")]
    model = helper.make_model(
        helper.make_graph(nodes, "g", [tensor_input("c", [], 9), tensor_input("x", [1, 4])],
                          [tensor_input("y", [1, 4])]),
        opset_imports=[helper.make_opsetid("ai.onnx", 13), helper.make_opsetid("ai.onnx.ml", 3)],
    )
    (f,) = findings(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.data["default_domain_nodes"] == 2


def test_import_used_only_by_local_function_calls_is_told_apart():
    body = [helper.make_node("Relu", ["a"], ["b"])]
    fn = helper.make_function("local.fn", "MyRelu", ["a"], ["b"], body, [helper.make_opsetid("", 13)])
    model = relu_plus([helper.make_node("MyRelu", ["x"], ["w"], name="call", domain="local.fn")],
                      extra_opsets={"local.fn": 1}, functions=[fn])
    (f,) = findings(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.data["used_only_by_local_function_calls"] == ["local.fn"]
    assert f.data["used_by_custom_domain_nodes"] == []
    assert "inlined" in f.hint


def test_both_spellings_of_ai_onnx_imported():
    model = relu_plus([helper.make_node("Sigmoid", ["x"], ["s"], name="sig", domain="ai.onnx")],
                      extra_opsets={"ai.onnx": 13})
    (f,) = findings(check(model, soc="Ascend310", cann="8.0"))
    assert f.data["kept_import"] == "" and f.data["extra_imports_used"] == {"ai.onnx": 1}
    assert f.data["used_by_custom_domain_nodes"] == []


def test_real_quantized_model_as_a_user_sees_it(shared_models):
    from click.testing import CliRunner

    from atccheck.cli.main import main

    path = shared_models / "text2tashkeel_rawi_int8.onnx"
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3", "--format", "json"])
    assert result.exit_code == 1, result.output
    import json

    report = json.loads(result.stdout)
    mine = [f for f in report["findings"] if f["name"] == "multiple-opset-imports"]
    assert len(mine) == 1 and mine[0]["atc_error"] == "E16005"
    assert mine[0]["data"]["used_by_custom_domain_nodes"] == ["com.microsoft"]
    custom = [f for f in report["findings"] if f["name"] == "custom-domain-op"]
    assert {f["op_type"] for f in custom} == {"DynamicQuantizeLSTM"}
    assert all(f["domain"] == "com.microsoft" and f["atc_error"] == "E19010" for f in custom)
    text = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3"]).output
    assert "AC103 multiple-opset-imports (1)" in text and "AC105 custom-domain-op" in text
