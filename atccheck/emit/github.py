"""GitHub Actions workflow commands: ``::error``/``::warning``/``::notice`` annotations.

Printed in a workflow step, each line becomes an annotation on the model file (ONNX is
binary, so annotations are file-level). Findings with the same rule, message and hint on
several nodes become one annotation naming the first nodes and the count, because GitHub
shows only a few annotations per step. A model that could not be checked is an ``::error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from atccheck.findings import Finding, Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
SHOWN_NODES = 5


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(command: str, file: str, title: str, message: str) -> str:
    return f"::{command} file={escape_property(file)},title={escape_property(title)}::{escape_data(message)}"


def _groups(findings: Sequence[Finding]) -> list[list[Finding]]:
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.severity, f.code, f.name, f.message, f.hint), []).append(f)
    return sorted(groups.values(), key=lambda g: (-g[0].severity.rank, g[0].code))


def render(reports: Sequence[Report], *, unchecked: Sequence["UncheckedModel"] = (), **_: Any) -> str:
    lines = []
    for report in reports:
        soc = report.target.soc.name
        for group in _groups(report.findings):
            first = group[0]
            nodes = [f.location.node for f in group if f.location.node]
            message = first.message
            if nodes:
                more = len(nodes) - SHOWN_NODES
                message += f"\nNodes: {', '.join(nodes[:SHOWN_NODES])}" + (f" (+{more} more)" if more > 0 else "")
            message += f"\nHint: {first.hint}"
            if first.atc_error:
                message += f"\nATC error: {first.atc_error}"
            title = f"{first.code} {first.name} [{soc}, CANN {report.target.profile.id}]"
            lines.append(annotation(COMMANDS[first.severity], report.model, title, message))
    for item in unchecked:
        lines.append(annotation("error", item.path, "atccheck could not check this model", item.problem))
    return "".join(line + "\n" for line in lines)
