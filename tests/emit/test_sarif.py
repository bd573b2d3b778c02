from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest

from atccheck.batch import UncheckedModel
from atccheck.emit import render
from atccheck.findings import Severity
from atccheck.rules import all_rules

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"  # vendored: never skips


@pytest.fixture
def validate():
    """Validate against the official SARIF 2.1.0 schema, URI formats included."""
    schema = json.loads(SCHEMA.read_text())
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("uri")(lambda v: bool(urlsplit(v).scheme) and " " not in v)
    checker.checks("uri-reference")(lambda v: " " not in v)
    validator = jsonschema.Draft4Validator(schema, format_checker=checker)

    def run(text: str) -> dict:
        doc = json.loads(text)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
        return doc

    return run


def sarif(reports, **opts):
    return render("sarif", reports, **opts)


def test_document_is_schema_valid_with_every_kind_of_entry(tmp_path, validate, make_report, make_finding):
    reports = [
        make_report(str(tmp_path / "a.onnx"), [make_finding(), make_finding(node=None, op_type=None, code="AC201",
                                                                            name="dynamic-input-shape")]),
        make_report(str(tmp_path / "a.onnx"), [make_finding(severity=Severity.INFO)], soc="Ascend910B3"),
    ]
    unchecked = [UncheckedModel(str(tmp_path / "broken.onnx"), "not an ONNX model, or truncated")]
    doc = validate(sarif(reports, unchecked=unchecked, root=tmp_path, rule_docs_url="https://example.org/docs/rules/"))
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1


def test_rules_come_from_the_registry_with_help(validate, make_report, make_finding, tmp_path):
    doc = validate(sarif([make_report(str(tmp_path / "m.onnx"), [make_finding()])], root=tmp_path,
                         rule_docs_url="https://example.org/atccheck/docs/rules"))
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    registered = all_rules()
    assert [r["id"] for r in rules] == [r.code for r in registered]
    for descriptor, rule in zip(rules, registered):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.docs().summary
        assert descriptor["help"]["text"] == rule.docs().text()
        assert descriptor["helpUri"] == f"https://example.org/atccheck/docs/rules/{rule.name}.md"
        level = {"error": "error", "warning": "warning", "info": "note"}[rule.severity.value]
        assert descriptor["defaultConfiguration"]["level"] == level


def test_without_a_docs_url_there_is_no_help_uri(validate, make_report, make_finding, tmp_path):
    doc = validate(sarif([make_report(str(tmp_path / "m.onnx"), [make_finding()])], root=tmp_path))
    assert all("helpUri" not in r for r in doc["runs"][0]["tool"]["driver"]["rules"])
    assert all(r["help"]["text"] for r in doc["runs"][0]["tool"]["driver"]["rules"])


def test_results_point_to_the_model_and_the_node(validate, make_report, make_finding, tmp_path):
    (tmp_path / "models").mkdir()
    model = str(tmp_path / "models" / "net v2.onnx")
    node_level = make_finding(node="/encoder/Gelu_3", graph="main/If_0:then_branch")
    model_level = make_finding(code="AC201", name="dynamic-input-shape", node=None, op_type=None)
    warning = make_finding(severity=Severity.WARNING, node="x")
    doc = validate(sarif([make_report(model, [node_level, model_level, warning])], root=tmp_path))
    run = doc["runs"][0]
    results = run["results"]
    assert len(results) == 3
    rules = run["tool"]["driver"]["rules"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uri"] == "models/net%20v2.onnx" and location["uriBaseId"] == "%SRCROOT%"
        assert run["artifacts"][location["index"]]["location"]["uri"] == location["uri"]
    first, second, third = results
    assert first["locations"][0]["logicalLocations"] == [
        {"name": "/encoder/Gelu_3", "fullyQualifiedName": "main/If_0:then_branch//encoder/Gelu_3", "kind": "node"}
    ]
    assert "logicalLocations" not in second["locations"][0]
    assert [r["level"] for r in results] == ["error", "error", "warning"]
    assert first["message"]["text"].startswith(node_level.message) and "Hint: decompose it" in first["message"]["text"]
    assert first["properties"]["soc"] == "Ascend310P3" and first["properties"]["atcError"] == "E19010"


def test_several_chips_prefix_messages_and_keep_alerts_apart(validate, make_report, make_finding, tmp_path):
    model = str(tmp_path / "m.onnx")
    twice = [make_finding(node=None, op_type=None, message="input a is dynamic"),
             make_finding(node=None, op_type=None, message="input b is dynamic")]
    doc = validate(sarif([make_report(model, twice), make_report(model, twice, soc="Ascend910B3")], root=tmp_path))
    results = doc["runs"][0]["results"]
    assert [r["message"]["text"].split("]")[0] for r in results] == ["[Ascend310P3"] * 2 + ["[Ascend910B3"] * 2
    prints = [r["partialFingerprints"]["atccheck/v1"] for r in results]
    assert len(set(prints)) == 4
    assert len(doc["runs"][0]["artifacts"]) == 1


def test_unchecked_models_fail_the_invocation(validate, tmp_path):
    doc = validate(sarif([], unchecked=[UncheckedModel(str(tmp_path / "x.onnx"), "empty file (ATC: E13015)")], root=tmp_path))
    invocation = doc["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "empty file" in note["message"]["text"]
    assert doc["runs"][0]["results"] == []


def test_clean_run_is_successful(validate, make_report, tmp_path):
    doc = validate(sarif([make_report(str(tmp_path / "m.onnx"), [])], root=tmp_path))
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_model_outside_the_root_gets_a_file_uri(validate, make_report, make_finding, tmp_path):
    inside = tmp_path / "root"
    inside.mkdir()
    doc = validate(sarif([make_report(str(tmp_path / "elsewhere.onnx"), [make_finding()])], root=inside))
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (tmp_path / "elsewhere.onnx").resolve().as_uri()


def test_internal_error_findings_get_a_descriptor(validate, make_report, make_finding, tmp_path):
    crash = make_finding(code="AC000", name="internal-error", severity=Severity.INFO, node=None, op_type=None)
    doc = validate(sarif([make_report(str(tmp_path / "m.onnx"), [crash])], root=tmp_path))
    run = doc["runs"][0]
    assert run["tool"]["driver"]["rules"][run["results"][0]["ruleIndex"]]["id"] == "AC000"


def test_real_model_report_is_valid(validate, shared_models, monkeypatch):
    from atccheck.api import check

    monkeypatch.chdir(shared_models)
    report = check("silero_vad.onnx", soc="Ascend310", cann="6.0")
    doc = validate(sarif([report]))
    results = doc["runs"][0]["results"]
    assert len(results) == len(report.findings) > 100
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"silero_vad.onnx"}
    assert sum("logicalLocations" in r["locations"][0] for r in results) == sum(1 for f in report.findings if f.node)
    assert Path("silero_vad.onnx").is_file()


def test_the_vendored_schema_is_the_shared_one(shared_reference):
    """The copy under tests/data stays the file the facts folder records."""
    assert SCHEMA.read_bytes() == (shared_reference / "sarif-schema-2.1.0.json").read_bytes()
