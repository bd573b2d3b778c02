"""Reports built directly from findings, so emitter tests do not depend on which rules fire."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.report import Report
from atccheck.target import resolve_target


def finding(
    code: str = "AC101",
    name: str = "unsupported-op",
    severity: Severity = Severity.ERROR,
    node: str | None = "gelu_1",
    op_type: str | None = "Gelu",
    message: str = "Gelu (a standard ONNX op) has no ONNX parser plugin in CANN 8.0 at any opset",
    graph: str = "main",
    hint: str = "decompose it",
    atc_error: str | None = "E19010",
) -> Finding:
    return Finding(
        code=code,
        name=name,
        severity=severity,
        message=message,
        location=Location(graph=graph, node=node, op_type=op_type),
        hint=hint,
        fix=FixSuggestion("decompose-gelu", True),
        source="test",
        atc_error=atc_error,
        data={"parser_key": "ai.onnx::20::Gelu"},
    )


def report(model: str, findings: list[Finding], soc: str = "Ascend310P3", cann: str = "8.0") -> Report:
    return Report(model=model, target=resolve_target(soc, cann), findings=list(findings), node_count=3)


@pytest.fixture
def make_finding() -> Callable[..., Finding]:
    return finding


@pytest.fixture
def make_report() -> Callable[..., Report]:
    return report
