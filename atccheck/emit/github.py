"""GitHub Actions workflow commands: ``::error``/``::warning``/``::notice`` annotations.

Printed in a workflow step, each line becomes an annotation on the model file (ONNX is
binary, so annotations are file-level). Findings with the same rule, message and hint on
several nodes become one annotation naming the first nodes and the count, because GitHub
shows only a few annotations per step. A finding that asks nothing of the user (a node ATC
folds away) is no annotation. A model that could not be checked is an ``::error``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atccheck.emit._grouping import first_nodes, message_groups
from atccheck.findings import Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.batch import UncheckedModel

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(command: str, file: str, title: str, message: str) -> str:
    return f"::{command} file={escape_property(file)},title={escape_property(title)}::{escape_data(message)}"


def render(reports: Sequence[Report], *, unchecked: Sequence["UncheckedModel"] = (), **_: Any) -> str:
    lines = []
    for report in reports:
        soc = report.target.soc.name
        for group in message_groups([f for f in report.findings if f.needs_action]):
            first = group[0]
            message = first.message
            nodes = first_nodes(group)
            if nodes:
                message += f"\nNodes: {nodes}"
            message += f"\nHint: {first.hint}"
            if first.atc_error:
                message += f"\nATC error: {first.atc_error}"
            title = f"{first.code} {first.name} [{soc}, CANN {report.target.profile.id}]"
            lines.append(annotation(COMMANDS[first.severity], report.model, title, message))
    for item in unchecked:
        lines.append(annotation("error", item.path, "atccheck could not check this model", item.problem))
    return "".join(line + "\n" for line in lines)
