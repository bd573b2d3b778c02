from __future__ import annotations

import re

from atccheck.batch import UncheckedModel
from atccheck.emit import render
from atccheck.emit.github import escape_data, escape_property
from atccheck.findings import Severity

COMMAND = re.compile(r"^::(error|warning|notice) file=([^,]*),title=([^:]*)::(.*)$")


def parse(text: str) -> list[tuple[str, str, str, str]]:
    lines = text.splitlines()
    parsed = [COMMAND.match(line) for line in lines]
    assert all(parsed), lines
    return [m.groups() for m in parsed]


def unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_escaping():
    assert escape_data("50% done\nnext\r") == "50%25 done%0Anext%0D"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"


def test_one_annotation_per_rule_and_message(make_report, make_finding):
    findings = [make_finding(node=f"gelu_{i}") for i in range(8)]
    findings.append(make_finding(severity=Severity.INFO, code="AC403", name="memory-over-budget", node=None,
                                 message="estimate 3 GiB", atc_error=None))
    findings.append(make_finding(severity=Severity.WARNING, code="AC401", name="oversized-block", node="pool"))
    annotations = parse(render("github", [make_report("models/a,b.onnx", findings)]))
    assert [a[0] for a in annotations] == ["error", "warning", "notice"]
    level, file, title, message = annotations[0]
    assert unescape(file) == "models/a,b.onnx"
    assert unescape(title) == "AC101 unsupported-op [Ascend310P3, CANN 8.0]"
    text = unescape(message)
    assert text.startswith(findings[0].message)
    assert "Nodes: gelu_0, gelu_1, gelu_2, gelu_3, gelu_4 (+3 more)" in text
    assert "Hint: decompose it" in text and "ATC error: E19010" in text
    assert "Nodes" not in unescape(annotations[2][3])


def test_unchecked_models_are_errors(make_report):
    annotations = parse(render("github", [make_report("ok.onnx", [])],
                               unchecked=[UncheckedModel("bad.onnx", "empty file (ATC: E13015)")]))
    assert annotations == [("error", "bad.onnx", "atccheck could not check this model", "empty file (ATC: E13015)")]


def test_clean_reports_print_nothing(make_report):
    assert render("github", [make_report("ok.onnx", [])]) == ""
