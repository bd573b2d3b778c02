"""A rule that crashes fails the check: an error finding naming the rule and the node, never a silent pass."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

import atccheck.engine as engine
from atccheck.api import check
from atccheck.cli.main import main
from atccheck.findings import Severity
from atccheck.rules.base import Rule
from builders import init, make_model, tensor_input


class ExplodingRule(Rule):
    code = "AC999"
    name = "exploding-rule"

    def node_ops(self, tables):
        return None

    def check_node(self, node):
        raise ZeroDivisionError("division by zero\nsecond line")

    def check_model(self, ctx):
        return iter(())


@pytest.fixture
def conv_model():
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv\nwith newline", kernel_shape=[3, 3])
    return make_model([node], [tensor_input("x", [1, 3, 8, 8])], [helper.make_tensor_value_info("y", 1, None)],
                      [init("w", np.ones((4, 3, 3, 3), np.float32))])


def test_a_crashing_rule_is_an_error_finding(conv_model, monkeypatch):
    monkeypatch.setattr(engine, "all_rules", lambda: [ExplodingRule])
    report = check(conv_model, soc="Ascend310P3")
    [finding] = report.findings
    assert finding.code == "AC000" and finding.severity is Severity.ERROR
    assert "exploding-rule" in finding.message and "conv\nwith newline" in finding.message
    assert "\n" not in finding.message.replace("conv\nwith newline", "")
    assert report.fails("error")


def test_a_mistyped_attribute_is_an_error_and_hidden_from_the_rules(conv_model):
    conv_model.graph.node[0].attribute.append(helper.make_attribute("strides", 2.0))
    conv_model.graph.node[0].attribute.append(helper.make_attribute("pads", ["a", "b"]))
    report = check(conv_model, soc="Ascend310P3")
    [finding] = [f for f in report.findings if f.code == "AC001"]
    assert finding.name == "malformed-attribute" and finding.severity is Severity.ERROR
    assert "'strides' is FLOAT where the ONNX schema of Conv (opset 13) declares INTS" in finding.message
    assert "'pads' is STRINGS" in finding.message
    assert not [f for f in report.findings if f.code == "AC000"]


@pytest.mark.parametrize("attr", [
    helper.make_attribute("kernel_shape", [3]),
    helper.make_attribute("kernel_shape", [], attr_type=onnx.AttributeProto.INTS),
    helper.make_attribute("kernel_shape", [2**62, -5]),
    helper.make_attribute("pads", [1, 1, 1]),
    helper.make_attribute("strides", [0, -1, 2, 4, 5]),
    helper.make_attribute("dilations", [0]),
    helper.make_attribute("group", 0),
    helper.make_attribute("group", -3),
    helper.make_attribute("auto_pad", b"\xff\xfe"),
])
def test_odd_attribute_values_never_crash_a_rule(conv_model, attr):
    node = conv_model.graph.node[0]
    kept = [a for a in node.attribute if a.name != attr.name]
    del node.attribute[:]
    node.attribute.extend([*kept, attr])
    for soc in ("Ascend310P3", "Ascend310"):
        report = check(conv_model, soc=soc)
        assert not [f.message for f in report.findings if f.code == "AC000"]


def test_an_undefined_element_type_is_named_not_a_crash(conv_model):
    conv_model.graph.input[0].type.tensor_type.elem_type = 999
    report = check(conv_model, soc="Ascend310P3")
    assert not [f.message for f in report.findings if f.code == "AC000"]


def test_the_cli_gate_fails_on_a_crashing_rule(conv_model, monkeypatch, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(conv_model, str(path))
    monkeypatch.setattr(engine, "all_rules", lambda: [ExplodingRule])
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3", "--format", "json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.output)
    assert [f["code"] for f in doc["findings"]] == ["AC000"]


@pytest.mark.parametrize("code", ["AC000", "AC001"])
def test_the_engine_findings_have_a_rule_page_like_any_rule(code):
    """A user who finds AC000 or AC001 in a report looks it up as any other code."""
    from click.testing import CliRunner

    from atccheck.cli.main import main
    from atccheck.rules import engine_findings

    [entry] = [r for r in engine_findings() if r.code == code]
    result = CliRunner().invoke(main, ["rule", code])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{code} {entry.name} (error)")
    assert "made by the check engine" in result.output


def string_constant(name: str, count: int) -> onnx.TensorProto:
    tensor = helper.make_tensor(name, onnx.TensorProto.STRING, [count], [b"a"] * count)
    return tensor


@pytest.mark.parametrize("op,position,extra", [
    ("Gather", 1, {}),  # negative-indices read the indices
    ("Pad", 2, {"mode": "constant"}),  # pad-value-not-zero reads the fill value
    ("NonMaxSuppression", 2, {}),  # oversized-block reads max_output_boxes_per_class
    ("Slice", 4, {}),  # slice-step-on-last-axis reads the steps
    ("Not", 0, {}),  # folding computes it
])
def test_a_text_constant_where_an_op_takes_numbers_crashes_no_rule(op, position, extra, tmp_path):
    """A string tensor in a numeric input makes the model invalid; the rules and constant folding
    read it as an unknown value (rules then say what they cannot judge) instead of failing on it."""
    inputs = [f"x{i}" for i in range(position + 1)]
    count = 4 if op in ("Gather", "Not", "Slice") else 1
    node = helper.make_node(op, inputs, ["y"], name="node", **extra)
    graph_inputs = [tensor_input(name, [1, 3, 8, 8]) for name in inputs if name != inputs[position]]
    model = make_model([node], graph_inputs, [helper.make_tensor_value_info("y", 1, None)],
                       [string_constant(inputs[position], count)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    for soc, cann in (("Ascend310P3", "8.0"), ("Ascend310", "6.0")):
        result = CliRunner().invoke(main, ["check", str(path), "--soc", soc, "--cann", cann, "--format", "json"])
        assert result.exit_code in (0, 1) and "internal error" not in result.stderr, result.stderr
        assert [f["message"] for f in json.loads(result.stdout)["findings"] if f["code"] == "AC000"] == []


def batch_norm_model() -> onnx.ModelProto:
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")
    params = [init(name, np.full(3, value, np.float32)) for name, value in (("s", 1.0), ("b", 0.0), ("m", 0.0),
                                                                           ("v", 1.0))]
    return make_model([node], [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 3, 8, 8])], params)


@pytest.mark.parametrize("change", ["float-axis-on-batch-norm", "input-of-elem-type-15",
                                    "value-info-contradicting-an-initializer"])
def test_odd_models_from_the_fuzzer_crash_no_rule(change, tmp_path):
    model = batch_norm_model()
    if change == "float-axis-on-batch-norm":
        model.graph.node[0].attribute.append(helper.make_attribute("axis", 1.5))
    elif change == "input-of-elem-type-15":
        model.graph.input[0].type.tensor_type.elem_type = onnx.TensorProto.COMPLEX128
    else:
        model.graph.value_info.append(helper.make_tensor_value_info("s", onnx.TensorProto.INT64, [7, 7]))
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    for soc, cann in (("Ascend310P3", "8.0"), ("Ascend310", "6.0"), ("Ascend910B3", "9.0"), ("Ascend310B1", "5.0")):
        report = check(str(path), soc=soc, cann=cann)
        assert not [f.message for f in report.findings if f.code == "AC000"]
