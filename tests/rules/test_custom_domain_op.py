from __future__ import annotations

import pytest
from onnx import helper

from atccheck.api import check
from builders import make_model, single_op_model, tensor_input


def findings(report, name="custom-domain-op"):
    return [f for f in report.findings if f.name == name]


@pytest.mark.parametrize(("cann", "error"), [("5.0", "E19010"), ("6.0", "E19010"), ("8.0", "E19010"), ("9.0", "E13010")])
def test_fires_on_a_custom_domain_with_the_profile_error(cann, error):
    model = single_op_model("DeformConv2D", [[1, 8, 16, 16], [1, 18, 16, 16]], [1, 8, 16, 16], domain="com.example",
                            extra_opsets={"com.example": 1})
    found = findings(check(model, soc="Ascend310P3", cann=cann))
    assert len(found) == 1
    f = found[0]
    assert f.atc_error == error and f.severity.value == "error"
    assert "com.example::1::DeformConv2D" in f.message
    assert f.data["status"] == "custom-domain"
    assert f.fix.pass_name == "manual"
    assert 'OriginOpType("com.example::1::DeformConv2D")' in f.hint


def test_contrib_op_with_a_decomposition_suggests_it():
    model = single_op_model("FastGelu", [[1, 8]], [1, 8], domain="com.microsoft", extra_opsets={"com.microsoft": 1})
    (f,) = findings(check(model, soc="Ascend910B3", cann="8.0"))
    assert f.fix.pass_name == "decompose-contrib-fast-gelu" and f.fix.safe is True
    assert "decompose-contrib-fast-gelu" in f.hint


def test_onnxruntime_nchwc_layout_says_to_save_at_extended_level():
    model = single_op_model("ReorderInput", [[1, 8, 16, 16]], [1, 8, 16, 16], domain="com.microsoft.nchwc",
                            extra_opsets={"com.microsoft.nchwc": 1})
    [f] = findings(check(model, soc="Ascend310P3", cann="8.0"))
    assert f.fix.pass_name == "manual" and "'extended'" in f.hint


def test_local_function_call_is_an_unregistered_custom_op():
    body = [helper.make_node("Relu", ["a"], ["b"])]
    fn = helper.make_function("local.fn", "MyRelu", ["a"], ["b"], body, [helper.make_opsetid("", 13)])
    call = helper.make_node("MyRelu", ["x"], ["y"], name="call", domain="local.fn")
    model = make_model([call], [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                       extra_opsets={"local.fn": 1}, functions=[fn])
    (f,) = findings(check(model, soc="Ascend310", cann="6.0"))
    assert f.data["status"] == "local-function" and f.location.node == "call"
    assert "model-local function" in f.message and "local.fn::1::MyRelu" in f.message
    assert f.fix.pass_name == "single-opset-import" and "inline" in f.hint


def test_registered_npu_domain_does_not_fire_on_9_0_but_does_on_6_0():
    model = single_op_model("NPURmsNorm", [[1, 8], [8]], [1, 8], domain="npu", extra_opsets={"npu": 1})
    assert findings(check(model, soc="Ascend910B3", cann="9.0")) == []
    assert len(findings(check(model, soc="Ascend910B3", cann="6.0"))) == 1


def test_does_not_fire_on_standard_ops_or_unimported_domains():
    assert findings(check(single_op_model("Relu", [[1, 4]], [1, 4]), soc="Ascend310", cann="8.0")) == []
    # no opset_import for the domain: domain-without-opset-import owns it
    no_import = single_op_model("DeformConv2D", [[1, 8, 4, 4]], [1, 8, 4, 4], domain="com.example")
    report = check(no_import, soc="Ascend310", cann="8.0")
    assert findings(report) == [] and findings(report, "domain-without-opset-import")


def test_custom_op_inside_a_subgraph():
    inner = helper.make_node("Foo", ["x"], ["t"], name="inner_foo", domain="com.example")
    then_g = helper.make_graph([inner], "then", [], [tensor_input("t", [1, 4])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [tensor_input("e", [1, 4])])
    node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)
    model = make_model([node], [tensor_input("c", [], 9), tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                       extra_opsets={"com.example": 1})
    (f,) = findings(check(model, soc="Ascend310P3", cann="9.0"))
    assert f.location.node == "inner_foo" and f.location.graph == "main/branch:then_branch"


def test_real_quantized_model(shared_models):
    report = check(shared_models / "text2tashkeel_rawi_int8.onnx", soc="Ascend310", cann="9.0")
    found = findings(report)
    assert len(found) == 2 and {f.location.op_type for f in found} == {"DynamicQuantizeLSTM"}
    assert all(f.atc_error == "E13010" for f in found)
