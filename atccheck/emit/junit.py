"""JUnit XML, for CI systems that show test results (GitLab, Jenkins, Azure Pipelines, ...).

One ``<testsuite>`` per model x chip, one ``<testcase>`` per rule that ran (the ``rules``
option; all registered rules by default, plus any other code a finding carries). A rule
with findings at or above ``fail_on`` is a ``<failure>``; findings below it are listed in the
passing testcase's ``<system-out>``. A model that could not be checked is a suite with one
``<error>`` testcase. No timestamps or durations, so the output is reproducible.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atccheck.findings import Finding, Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel
    from atccheck.rules import Rule

# Characters XML 1.0 cannot carry at all (node names are arbitrary strings).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _line(f: Finding) -> str:
    where = f"{f.location.graph}/{f.location.node} ({f.location.op_type})" if f.location.node else "model"
    atc = f" [ATC {f.atc_error}]" if f.atc_error else ""
    return f"{f.severity.value} {f.code} at {where}: {f.message}{atc}\n  hint: {f.hint}"


def _threshold(fail_on: str) -> int | None:
    return None if fail_on == "never" else Severity(fail_on).rank


def render(
    reports: Sequence[Report],
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    rules: Sequence[type["Rule"]] | None = None,
    fail_on: str = "error",
    **_: Any,
) -> str:
    from atccheck.rules import all_rules

    catalogue = [(r.code, r.name) for r in (rules if rules is not None else all_rules())]
    threshold = _threshold(fail_on)
    root = ET.Element("testsuites", name="atccheck")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for report in reports:
        target = report.target
        label = f"{report.model} [{target.soc.name}]"
        suite = ET.SubElement(root, "testsuite", name=_clean(f"{report.model} on {target.describe()}"))
        props = ET.SubElement(suite, "properties")
        for key, value in (("model", report.model), *target.to_dict().items(), ("fail_on", fail_on)):
            ET.SubElement(props, "property", name=key, value=_clean(value))
        by_code: dict[str, list[Finding]] = {}
        for f in report.findings:
            by_code.setdefault(f.code, []).append(f)
        cases = list(catalogue) + sorted({(f.code, f.name) for f in report.findings} - set(catalogue))
        failures = 0
        for code, name in cases:
            case = ET.SubElement(suite, "testcase", classname=_clean(label), name=f"{code} {name}", file=_clean(report.model))
            found = by_code.get(code, [])
            failing = [f for f in found if threshold is not None and f.severity.rank >= threshold]
            if failing:
                failures += 1
                worst = max(failing, key=lambda f: f.severity.rank).severity.value
                more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
                failure = ET.SubElement(case, "failure", type=worst, message=_clean(failing[0].message + more))
                failure.text = _clean("\n".join(_line(f) for f in found))
            elif found:
                ET.SubElement(case, "system-out").text = _clean("\n".join(_line(f) for f in found))
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        totals["tests"] += len(cases)
        totals["failures"] += failures
    for item in unchecked:
        suite = ET.SubElement(root, "testsuite", name=_clean(item.path), tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname=_clean(item.path), name="model can be checked", file=_clean(item.path))
        error = ET.SubElement(case, "error", type="input-error", message=_clean(item.problem))
        error.text = _clean(f"{item.path}: {item.problem}")
        totals["tests"] += 1
        totals["errors"] += 1
    for attr, count in totals.items():
        root.set(attr, str(count))
    root.set("skipped", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
