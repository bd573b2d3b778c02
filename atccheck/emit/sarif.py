"""SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

One document, one run, whatever the number of models and chips:

- ``tool.driver.rules``: every registered rule (id = code, name, summary, the full docs as
  ``help`` text and Markdown, default level), plus a descriptor for any other code a finding
  carries (``AC000`` internal-error). ``helpUri`` is ``<rule-docs-url>/<rule-name>.md`` when the
  ``rule-docs-url`` setting says where ``docs/rules/`` is published; atccheck has no website
  of its own, so without the setting there is no ``helpUri`` (the docs are in ``help``).
- ``results``: one per finding. The model file is the artifact (its path relative to the
  working directory, under ``%SRCROOT%``; absolute ``file:`` URI when outside it). ONNX files
  are binary, so the region is ``startLine: 1``: a placeholder GitHub needs to show the alert;
  the node is the logical location (``kind: "node"``, fully qualified as ``<graph>/<node>``),
  absent for model-level findings. ``partialFingerprints["atccheck/v1"]`` is the baseline
  fingerprint's hash (``:2``, ``:3``... appended for further findings sharing it), so alerts
  keep their identity across runs. With several chips in the
  document each message starts with ``[<soc>]``.
- ``invocations[0]``: ``executionSuccessful`` is false when a model could not be checked, and
  each such model is a ``toolExecutionNotifications`` entry at level error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.fileio import real_path
from atccheck.findings import Finding, Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel
    from atccheck.rules import EngineFinding, Rule

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "atccheck/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_location(model: str, root: Path) -> dict[str, str]:
    path = real_path(model)
    try:
        rel = path.relative_to(real_path(root))
    except ValueError:
        return {"uri": path.as_uri()}
    from urllib.parse import quote

    return {"uri": quote(rel.as_posix()), "uriBaseId": SRCROOT}


def rule_descriptor(rule: "type[Rule] | type[EngineFinding]", rule_docs_url: str | None) -> dict[str, Any]:
    from atccheck.rule_docs import help_uri

    docs = rule.docs()
    text = docs.text()
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": docs.summary},
        "fullDescription": {"text": docs.sections.get("What it does", docs.summary)},
        "help": {"text": text, "markdown": f"**{rule.code} {rule.name}**\n\n{text}"},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["onnx", "ascend", "atc"]},
    }
    uri = help_uri(rule.name, rule_docs_url)
    if uri:
        descriptor["helpUri"] = uri
    return descriptor


def adhoc_descriptor(finding: Finding) -> dict[str, Any]:
    """For a code without a catalogue entry."""
    return {
        "id": finding.code,
        "name": finding.name,
        "shortDescription": {"text": f"{finding.code} {finding.name}"},
        "defaultConfiguration": {"level": LEVELS[finding.severity]},
    }


def qualified_name(graph: str, node: str) -> str:
    """A node's fullyQualifiedName: its graph path, '::', its name. Graph paths and exporters' node
    names ('/model.22/Mul') both use '/', so '/' cannot join them without doubling up."""
    return f"{graph}::{node}"


def render(
    reports: Sequence[Report],
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    rule_docs_url: str | None = None,
    root: str | os.PathLike[str] | None = None,
    **_: Any,
) -> str:
    from atccheck import __version__
    from atccheck.baseline import fingerprint
    from atccheck.rules import all_rules, engine_findings

    base = Path(root) if root is not None else Path.cwd()
    engine_rules = {r.code: r for r in engine_findings()}  # described when a report holds one
    descriptors: list[dict[str, Any]] = [rule_descriptor(r, rule_docs_url) for r in all_rules()]
    rule_index = {d["id"]: i for i, d in enumerate(descriptors)}
    artifacts: list[dict[str, Any]] = []
    artifact_index: dict[str, int] = {}

    def artifact(model: str) -> dict[str, Any]:
        location = artifact_location(model, base)
        if location["uri"] not in artifact_index:
            artifact_index[location["uri"]] = len(artifacts)
            artifacts.append({"location": dict(location), "roles": ["analysisTarget"]})
        return {**location, "index": artifact_index[location["uri"]]}

    several_chips = len({r.target.soc.name for r in reports}) > 1
    occurrences: dict[str, int] = {}
    results = []
    for report in reports:
        target = report.target
        for f in report.findings:
            if f.code not in rule_index:
                rule_index[f.code] = len(descriptors)
                engine = engine_rules.get(f.code)
                descriptors.append(rule_descriptor(engine, rule_docs_url) if engine else adhoc_descriptor(f))
            prefix = f"[{target.soc.name}] " if several_chips else ""
            location: dict[str, Any] = {
                "physicalLocation": {"artifactLocation": artifact(report.model), "region": {"startLine": 1}},
            }
            if f.location.node:
                location["logicalLocations"] = [{
                    "name": f.location.node,
                    "fullyQualifiedName": qualified_name(f.location.graph, f.location.node),
                    "kind": "node",
                }]
            # Findings sharing a fingerprint (two model-level findings of one rule) stay distinct alerts.
            digest = fingerprint(f, report, base).digest()
            occurrences[digest] = occurrences.get(digest, 0) + 1
            if occurrences[digest] > 1:
                digest = f"{digest}:{occurrences[digest]}"
            results.append({
                "ruleId": f.code,
                "ruleIndex": rule_index[f.code],
                "level": LEVELS[f.severity],
                "message": {"text": f"{prefix}{f.message}\nHint: {f.hint}"},
                "locations": [location],
                "partialFingerprints": {FINGERPRINT_KEY: digest},
                "properties": {
                    "ruleName": f.name,
                    "soc": target.soc.name,
                    "cann": target.profile.id,
                    "precisionMode": target.precision_mode,
                    "graph": f.location.graph,
                    "opType": f.location.op_type,
                    "domain": f.location.domain,
                    "atcError": f.atc_error,
                    "hint": f.hint,
                    "fix": f.fix.pass_name,
                    "fixSafe": f.fix.safe,
                    "source": f.source,
                },
            })
    notifications = [
        {
            "level": "error",
            "message": {"text": f"could not check {item.path}: {item.problem}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact(item.path)}}],
        }
        for item in unchecked
    ]
    invocation: dict[str, Any] = {"executionSuccessful": not unchecked}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run = {
        "tool": {"driver": {"name": "atccheck", "version": __version__, "semanticVersion": __version__, "rules": descriptors}},
        "invocations": [invocation],
        "artifacts": artifacts,
        "results": results,
    }
    doc = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
