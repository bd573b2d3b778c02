"""A rule that crashes fails the check: an error finding naming the rule and the node, never a silent pass."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

import atccheck.engine as engine
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
    report = engine.check(conv_model, soc="Ascend310P3")
    [finding] = report.findings
    assert finding.code == "AC000" and finding.severity is Severity.ERROR
    assert "exploding-rule" in finding.message and "conv\nwith newline" in finding.message
    assert "\n" not in finding.message.replace("conv\nwith newline", "")
    assert report.fails("error")


def test_a_crash_on_a_mistyped_attribute_names_the_attribute(conv_model, monkeypatch):
    conv_model.graph.node[0].attribute.append(helper.make_attribute("strides", 2.0))
    monkeypatch.setattr(engine, "all_rules", lambda: [ExplodingRule])
    [finding] = engine.check(conv_model, soc="Ascend310P3").findings
    assert "attribute 'strides' is FLOAT where the ONNX schema of Conv" in finding.message
    assert "INTS" in finding.message


def test_the_cli_gate_fails_on_a_crashing_rule(conv_model, monkeypatch, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(conv_model, str(path))
    monkeypatch.setattr(engine, "all_rules", lambda: [ExplodingRule])
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3", "--format", "json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.output)
    assert [f["code"] for f in doc["findings"]] == ["AC000"]
