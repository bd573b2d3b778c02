from __future__ import annotations

import xml.etree.ElementTree as ET

from atccheck.batch import UncheckedModel
from atccheck.catalogue import find_rule
from atccheck.emit import render
from atccheck.findings import Severity
from atccheck.rules import all_rules


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    return root


def counts(element: ET.Element) -> tuple[int, int, int]:
    return int(element.get("tests")), int(element.get("failures")), int(element.get("errors"))


def test_a_testcase_per_model_chip_and_rule(make_report, make_finding):
    rules = [find_rule("unsupported-op"), find_rule("opset-not-registered")]
    reports = [
        make_report("models/a.onnx", [make_finding(), make_finding(node="gelu_2")]),
        make_report("models/a.onnx", [], soc="Ascend910B3"),
        make_report("models/b.onnx", []),
    ]
    root = parse(render("junit", reports, rules=rules))
    suites = root.findall("testsuite")
    assert len(suites) == 3
    assert counts(root) == (6, 1, 0)
    assert [counts(s) for s in suites] == [(2, 1, 0), (2, 0, 0), (2, 0, 0)]
    first = suites[0].findall("testcase")
    assert [c.get("name") for c in first] == ["AC101 unsupported-op", "AC102 opset-not-registered"]
    failure = first[0].find("failure")
    assert failure.get("type") == "error" and failure.get("message").endswith("(+1 more)")
    assert "main/gelu_1 (Gelu)" in failure.text and "main/gelu_2 (Gelu)" in failure.text
    assert first[1].find("failure") is None
    props = {p.get("name"): p.get("value") for p in suites[1].find("properties")}
    assert props["soc"] == "Ascend910B3" and props["model"] == "models/a.onnx"


def test_findings_below_fail_on_pass_with_output(make_report, make_finding):
    rules = [find_rule("unsupported-op")]
    report = make_report("m.onnx", [make_finding(severity=Severity.WARNING)])
    root = parse(render("junit", [report], rules=rules, fail_on="error"))
    case = root.find("testsuite/testcase")
    assert case.find("failure") is None and "warning AC101" in case.find("system-out").text
    root = parse(render("junit", [report], rules=rules, fail_on="warning"))
    assert counts(root) == (1, 1, 0)
    root = parse(render("junit", [report], rules=rules, fail_on="never"))
    assert counts(root) == (1, 0, 0)


def test_default_rules_are_the_registry_plus_unregistered_codes(make_report, make_finding):
    crash = make_finding(code="AC000", name="internal-error", severity=Severity.INFO, node=None)
    root = parse(render("junit", [make_report("m.onnx", [crash])]))
    names = [c.get("name") for c in root.findall("testsuite/testcase")]
    assert names == [f"{r.code} {r.name}" for r in all_rules()] + ["AC000 internal-error"]


def test_unchecked_model_is_an_error_testcase(make_report):
    root = parse(render("junit", [make_report("ok.onnx", [])], rules=[find_rule("unsupported-op")],
                        unchecked=[UncheckedModel("bad.onnx", "not an ONNX model, or truncated")]))
    assert counts(root) == (2, 0, 1)
    suite = root.findall("testsuite")[-1]
    assert suite.get("name") == "bad.onnx" and counts(suite) == (1, 0, 1)
    error = suite.find("testcase/error")
    assert error.get("message") == "not an ONNX model, or truncated"


def test_characters_xml_cannot_hold_are_replaced(make_report, make_finding):
    odd = make_finding(node="n\x01<&>\"", message="bad \x0b byte & <tag>")
    text = render("junit", [make_report("m.onnx", [odd])], rules=[find_rule("unsupported-op")])
    failure = parse(text).find("testsuite/testcase/failure")
    assert failure.get("message") == "bad \ufffd byte & <tag>"
    assert "n\ufffd<&>\"" in failure.text
