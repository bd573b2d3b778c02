from __future__ import annotations

import pickle

import pytest

from atccheck.findings import Finding, FixSuggestion, Location, Severity


def sample() -> Finding:
    return Finding(
        code="AC101", name="unsupported-op", severity=Severity.ERROR, message="m",
        location=Location(node="n", op_type="Gelu"), hint="h",
        fix=FixSuggestion("decompose-gelu", True), source="s", atc_error="E19010",
        data={"parser_key": "ai.onnx::20::Gelu"},
    )


def test_findings_are_read_only():
    finding = sample()
    with pytest.raises(TypeError):
        finding.data["x"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        finding.code = "AC999"  # type: ignore[misc]


def test_findings_pickle_for_worker_processes():
    finding = sample()
    again = pickle.loads(pickle.dumps(finding))
    assert again == finding and again.to_dict() == finding.to_dict()
    with pytest.raises(TypeError):
        again.data["k"] = 0  # type: ignore[index]
