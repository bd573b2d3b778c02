"""Command rules share the catalogue with model rules, and each runner sees only its own kind."""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from atccheck.atc.lint import CommandContext, CommandRule, lint_command
from atccheck.catalogue import catalogue, command_rule, command_rules, find_rule
from atccheck.rules import Rule, all_rules, engine_findings, register
from atccheck.rules.base import registered_rules


def token_model() -> onnx.ModelProto:
    """One input with batch and sequence symbolic, as a text model exports it."""
    x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq"])
    graph = helper.make_graph([helper.make_node("Relu", ["tokens"], ["out"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


RULES_DIR = Path(__file__).resolve().parents[3] / "atccheck" / "atc" / "lint" / "rules"


def test_the_model_engine_gets_no_command_rule_and_the_lint_no_model_rule():
    assert all(issubclass(r, Rule) and not issubclass(r, CommandRule) for r in all_rules())
    assert all(issubclass(r, CommandRule) and not issubclass(r, Rule) for r in command_rules())
    assert set(catalogue()) == set(all_rules()) | set(command_rules()) | set(engine_findings())
    assert not set(engine_findings()) & (set(all_rules()) | set(command_rules()))  # documented, never run
    with pytest.raises(KeyError):
        command_rule("unsupported-op")  # a model rule cannot report a command defect


def test_every_ac5_code_is_a_command_rule_in_its_own_module():
    codes = [r.code for r in command_rules()]
    assert codes == [f"AC{n}" for n in range(501, 542)]
    modules = {r.__module__.rsplit(".", 1)[-1] for r in command_rules()}
    assert modules == {p.stem for p in RULES_DIR.glob("*.py") if not p.name.startswith("_")}
    assert all(r.__module__.rsplit(".", 1)[-1] == r.name.replace("-", "_") for r in command_rules())


def test_find_rule_answers_for_command_rules():
    assert find_rule("AC519").name == "gear-rule"
    assert find_rule("unknown-atc-flag").code == "AC501"


def test_every_lint_finding_names_a_command_rule_with_its_defaults():
    text = ('atc --model=m.onnx --framework=5 --output=net/ --soc_version=Ascend --input_shapes="x:1" '
            '--log=verbose stray -model=m.onnx')
    findings = lint_command(text, token_model(), model_path="m.onnx").findings
    assert findings
    by_code = {r.code: r for r in command_rules()}
    for f in findings:
        assert by_code[f.code].name == f.name


def test_the_registry_refuses_a_command_rule_that_reuses_a_model_rule_name():
    catalogue()

    class Clash(CommandRule):
        """Summary.

        ## What it does
        x
        ## Why
        x
        ## Example
        x
        ## Fix
        x
        ## Facts
        x
        """

        code = "AC599"
        name = "unsupported-op"

    with pytest.raises(ValueError, match="duplicate"):
        register(Clash)
    assert "AC599" not in registered_rules()


def test_a_command_rule_needs_a_known_stage():
    class Bad(CommandRule):
        """S.

        ## What it does
        x
        ## Why
        x
        ## Example
        x
        ## Fix
        x
        ## Facts
        x
        """

        code = "AC598"
        name = "bad-stage-rule"
        stage = "somewhere"

    with pytest.raises(ValueError, match="stage"):
        register(Bad)
    assert re.match(r"^AC\d{3}$", Bad.code)


def test_a_value_rule_checks_a_parsed_command_on_its_own():
    from atccheck.atc.facts import known_flags
    from atccheck.atc.lint.context import Collector
    from atccheck.tables import tables

    text = "atc --model=m.onnx --framework=5 --output=net.om --soc_version=Ascend310P3 --output=net.om"
    cmd = lint_command(text, None, model_path="m.onnx").commands[0]
    out = Collector()
    ctx = CommandContext(cmd, out, tables(), known_flags(tables()), None, None, "m.onnx")
    command_rule("output-not-a-base-name").check(cmd, ctx)
    assert [(f.code, f.severity.value) for f in out.findings] == [("AC524", "warning")]
    out.findings.clear()
    command_rule("unknown-atc-flag").check(cmd, ctx)  # a parser-stage rule judges parse events, not the command
    assert out.findings == []


def test_a_parser_rule_judges_the_events_of_its_type():
    from atccheck.atc.facts import known_flags
    from atccheck.atc.lint.context import Collector
    from atccheck.atc.lint.parse import UnknownFlag
    from atccheck.tables import tables

    cmd = lint_command("atc --modle=m.onnx --output=net", None).commands[0]
    assert [type(e) for e in cmd.events] == [UnknownFlag]
    out = Collector()
    ctx = CommandContext(cmd, out, tables(), known_flags(tables()), None, None, None)
    rule = command_rule("unknown-atc-flag")
    assert rule.event is UnknownFlag
    rule.report(cmd.events[0], ctx)
    assert [(f.code, f.location.node) for f in out.findings] == [("AC501", "--modle")]
    assert "--model" in out.findings[0].hint
