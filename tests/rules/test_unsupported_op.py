from __future__ import annotations

import pytest
from onnx import helper

from atccheck.api import check
from builders import make_model, single_op_model, tensor_input


def findings(report, name="unsupported-op"):
    return [f for f in report.findings if f.name == name]


@pytest.mark.parametrize("op", ["Gelu", "GroupNormalization"])
def test_fires_on_ops_without_a_plugin(op):
    model = single_op_model(op, [[1, 8, 4, 4]] + ([[8], [8]] if op == "GroupNormalization" else []),
                            [1, 8, 4, 4], opset=21 if op == "GroupNormalization" else 20,
                            **({"num_groups": 2} if op == "GroupNormalization" else {}))
    report = check(model, soc="Ascend310P3", cann="9.0")
    found = findings(report)
    assert len(found) == 1
    assert found[0].severity.value == "error" and found[0].atc_error == "E13010"
    assert found[0].location.op_type == op


def test_custom_op_in_default_domain_is_named_as_such():
    model = single_op_model("FindMax", [[4, 4]], [4], opset=11)
    found = findings(check(model, soc="Ascend310", cann="6.0"))
    assert len(found) == 1 and found[0].atc_error == "E19010"
    assert found[0].data["standard_onnx_op"] is False
    assert "ai.onnx::11::FindMax" in found[0].message


def test_loop_inside_a_subgraph_is_found():
    body = helper.make_graph(
        [helper.make_node("Identity", ["v_in"], ["v_out"])],
        "body",
        [tensor_input("i", []), tensor_input("c", []), tensor_input("v_in", [2])],
        [tensor_input("c", []), tensor_input("v_out", [2])],
    )
    loop = helper.make_node("Loop", ["n", "cond", "x0"], ["y"], body=body, name="the_loop")
    model = make_model([loop], [tensor_input("n", [], 7), tensor_input("cond", [], 9), tensor_input("x0", [2])],
                       [tensor_input("y", [2])])
    found = findings(check(model, soc="Ascend910B3", cann="8.0"))
    assert [f.location.node for f in found] == ["the_loop"]
    assert found[0].fix.pass_name == "unroll-loop" and found[0].fix.safe is False


def test_does_not_fire_on_registered_ops():
    model = single_op_model("Relu", [[1, 3]], [1, 3], opset=13)
    assert findings(check(model, soc="Ascend310", cann="6.0")) == []


def test_unknown_op_in_a_registered_custom_domain_is_described_by_its_domain():
    model = single_op_model("NPUNoSuchOp", [[2, 3]], [2, 3], opset=13, domain="npu", extra_opsets={"npu": 1})
    found = findings(check(model, soc="Ascend910B3", cann="9.0"))
    assert len(found) == 1 and "domain 'npu'" in found[0].message
    assert "default domain" not in found[0].message
