"""Markdown: a summary for a pull-request comment.

A headline, one table row per model x chip (and per model that could not be checked), the
baseline's count of new and recorded findings when one is in use, then a collapsible section
per model x chip with findings (rule, message, the first nodes and the hint, identical
messages on many nodes grouped) or with an atc command, which ends the section. The document stays under ``max_chars`` (GitHub refuses
comments over 65,536 characters): sections that do not fit are counted, not cut mid-way.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from atccheck.emit._grouping import first_nodes, message_groups
from atccheck.findings import Finding
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.baseline import BaselineOutcome
    from atccheck.batch import UncheckedModel

MAX_CHARS = 60_000
_SPECIAL = re.compile(r"([\\`*_\[\]|<>])")


def escape(text: str) -> str:
    """Inline text with Markdown and HTML meaning removed; one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{_cell_safe(text)}{pad}{fence}"


def _cell_safe(text: str) -> str:
    # A '|' splits a table row even inside a code span; '\|' is GitHub's escape for it.
    return " ".join(text.split()).replace("|", "\\|")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _verdict(reports: Sequence[Report], fail_on: str) -> str:
    """'model.onnx fails on Ascend310', 'all 4 checks pass', '1 of 4 checks fails' (a check is one
    model on one chip)."""
    failing = sum(1 for r in reports if r.fails(fail_on))
    if len(reports) == 1:
        report = reports[0]
        return f"{code(report.model)} {'fails' if failing else 'passes'} on {report.target.soc.name}"
    if not failing:
        return f"all {len(reports)} checks pass" if reports else "no model checked"
    return f"{failing} of {_plural(len(reports), 'check')} {'fails' if failing == 1 else 'fail'}"


def _counts_text(report: Report) -> str:
    counts = report.counts()
    parts = [_plural(counts["error"], "error"), _plural(counts["warning"], "warning"), f"{counts['info']} info"]
    return ", ".join(parts)


def _rule_link(f: Finding, rule_docs_url: str | None) -> str:
    from atccheck.rule_docs import help_uri

    uri = help_uri(f.name, rule_docs_url)
    return f"[{f.name}]({uri})" if uri else f.name


def _section(report: Report, fail_on: str, rule_docs_url: str | None) -> str:
    verdict = "fails" if report.fails(fail_on) else "passes"
    # Inside <summary> Markdown is not parsed: HTML escaping, <code> instead of backticks.
    lines = [
        f"<details><summary><code>{html.escape(report.model)}</code> on {html.escape(report.target.describe())}: "
        f"{_counts_text(report)} ({verdict})</summary>",
        "",
    ]
    for group in message_groups(report.findings):
        first = group[0]
        entry = f"- **{first.severity.value}** {first.code} {_rule_link(first, rule_docs_url)}: {escape(first.message)}"
        nodes = first_nodes(group, show=code)
        if nodes:
            entry += f"<br>nodes: {nodes}"
        if first.atc_error:
            entry += f"<br>ATC error {escape(first.atc_error)}"
        entry += f"<br>hint: {escape(first.hint)}"
        lines.append(entry)
    if report.atc_command is not None:
        line = report.atc_command.line
        fence = "~~~~" if "```" in line else "```"
        lines += ["", "atc command:", "", f"{fence}sh", line, fence]
        lines += [f"- note: {escape(note)}" for note in report.atc_command.notes]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def render(
    reports: Sequence[Report],
    *,
    unchecked: Sequence["UncheckedModel"] = (),
    fail_on: str = "error",
    rule_docs_url: str | None = None,
    baseline: "BaselineOutcome | None" = None,
    max_chars: int = MAX_CHARS,
    **_: Any,
) -> str:
    headline = f"## atccheck: {_verdict(reports, fail_on)} (--fail-on {fail_on})"
    if unchecked:
        headline += f", {_plural(len(unchecked), 'model')} could not be checked"
    lines = [headline, ""]
    lines += ["| Model | Target | Errors | Warnings | Info | Result |", "|---|---|--:|--:|--:|---|"]
    for report in reports:
        counts = report.counts()
        result = "**fails**" if report.fails(fail_on) else "passes"
        lines.append(
            f"| {code(report.model)} | {escape(report.target.describe())} | {counts['error']} | "
            f"{counts['warning']} | {counts['info']} | {result} |"
        )
    for item in unchecked:
        lines.append(f"| {code(item.path)} | - | - | - | - | **could not be checked**: {escape(item.problem)} |")
    lines.append("")
    if baseline is not None:
        gone = len(baseline.gone)
        lines.append(
            f"Baseline: {_plural(baseline.new, 'new finding')}; {baseline.unchanged} recorded in the baseline and not shown; "
            f"{gone} baseline {'entry' if gone == 1 else 'entries'} no longer {'occurs' if gone == 1 else 'occur'}."
        )
        lines.append("")
    text = "\n".join(lines) + "\n"
    sections = [_section(r, fail_on, rule_docs_url) for r in reports if r.findings or r.atc_command is not None]
    shown = 0
    for section in sections:
        if len(text) + len(section) + 200 > max_chars:
            break
        text += section
        shown += 1
    if shown < len(sections):
        text += f"{len(sections) - shown} more sections with findings left out to stay under GitHub's comment size limit; the other report formats have them.\n"
    return text
