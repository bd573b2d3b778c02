"""The text report of one ``atccheck fix`` run: before/after counts, passes, what remains, the atc command."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from atccheck.emit._grouping import explained_per_node, first_nodes, message_groups, one_line, per_node_summary
from atccheck.emit._numbers import pass_numbers, verification_numbers

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.fixing.outcome import FixOutcome
    from atccheck.report import Report

STATUS_COLOURS = {"applied": "green", "reverted": "red", "skipped": "yellow", "unchanged": None}
SEVERITY_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}
SHOWN_WHYS = 3  # distinct reasons shown under one remaining finding (each node's is in the JSON report)


def _style(text: str, color: bool, **kwargs: Any) -> str:
    return click.style(text, **kwargs) if color else text


def _counts(report: "Report") -> str:
    c = report.counts()
    return f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info ({report.node_count} nodes)"


def render(outcome: "FixOutcome", color: bool = False) -> str:
    """The human report of one fix run."""
    from atccheck.fixing.outcome import TESTED, PassStatus

    lines: list[str] = []
    head = f"{outcome.source} -> {outcome.output if outcome.written else '(not written)'}: {outcome.target.describe()}"
    lines.append(_style(head, color, bold=True))
    lines.append(f"before: {_counts(outcome.before)}")
    lines.append(f"after:  {_counts(outcome.after)}")

    shown = [p for p in outcome.passes if not (p.status is PassStatus.SKIPPED and p.reason == "no finding calls for it")]
    if shown:
        lines.append("")
        lines.append(_style("passes:", color, bold=True))
        width = max(len(p.name) + (len(f" (round {p.round})") if p.round and p.round > 1 else 0) for p in shown)
        for p in shown:
            status = _style(f"{p.status.value:<9}", color, fg=STATUS_COLOURS.get(p.status.value))
            detail = []
            if p.status is PassStatus.APPLIED:
                detail.append(f"{p.nodes_before} -> {p.nodes_after} nodes")
                if p.verification == TESTED:
                    detail.append(f"tested, {pass_numbers(p)}")
                elif p.verification:
                    detail.append(p.verification)
            elif p.status is PassStatus.REVERTED:
                if p.max_abs_error is not None:
                    detail.append(pass_numbers(p))
                detail.append(p.reason or "")
            elif p.reason:
                detail.append(p.reason)
            round_text = f" (round {p.round})" if p.round and p.round > 1 else ""
            lines.append(f"  {status} {p.name + round_text:<{width}}  {'; '.join(d for d in detail if d)}")
            for note in p.notes[:4]:
                lines.append(f"            {note}")
            if len(p.notes) > 4:
                lines.append(f"            ... {len(p.notes) - 4} more note(s)")

    if outcome.warnings:
        lines.append("")
        lines.append(_style("warnings:", color, bold=True))
        lines.extend(f"  - {w}" for w in outcome.warnings)

    lines.append("")
    if outcome.remaining:
        lines.append(_style(f"remaining findings ({len(outcome.remaining)}):", color, bold=True))
        # grouped as check's reports group them: one entry per distinct message, the per-node findings a
        # model-level finding of the same rule explains folded into one line
        why_of = {id(item.finding): item.why for item in outcome.remaining}
        findings = [item.finding for item in outcome.remaining]
        explained = explained_per_node(findings)
        folded = [f for f in findings if f.location.node is not None and f.code in explained]
        for group in message_groups(f for f in findings if not (f.location.node is not None and f.code in explained)):
            f = group[0]
            sev = _style(f"{f.severity.value:<7}", color, fg=SEVERITY_COLOURS[f.severity.value])
            lines.append(f"  {sev} {f.code} {f.name}: {one_line(f.message)}")
            nodes_text = first_nodes(group)
            if nodes_text:
                lines.append(f"          nodes: {nodes_text}")
            if f.location.node is None and f.code in explained:
                lines.append("          " + per_node_summary(g for g in folded if g.code == f.code).strip()
                             .replace("-v lists them", "the JSON report lists them"))
            whys: dict[str, int] = {}
            for g in group:
                whys[why_of[id(g)]] = whys.get(why_of[id(g)], 0) + 1
            for k, (why, count) in enumerate(whys.items()):
                if k == SHOWN_WHYS:
                    lines.append(f"          ... {len(whys) - SHOWN_WHYS} more reason(s), per node in the JSON report")
                    break
                lines.append(f"          why{f' ({count} nodes)' if len(whys) > 1 and count > 1 else ''}: "
                             f"{one_line(why)}")
    else:
        lines.append(_style("remaining findings: none", color, bold=True))

    v = outcome.verification
    lines.append("")
    text = f"verification: {v.status}"
    if v.status == "verified" and v.max_abs_error is not None:
        text += f" ({verification_numbers(v)})"
    if v.reason:
        text += f": {v.reason}"
    lines.append(_style(text, color, fg="green" if v.verified else "yellow"))
    if v.needs:
        lines.append(f"  needs: {v.needs}")
    for label in v.inputs:
        lines.append(f"  inputs: {label}")
    if v.dropped:
        lines.append(f"  not compared on: {v.dropped}")
    if v.original_checker:
        lines.append(f"  note: onnx.checker already rejects the input model: {v.original_checker}")

    lines.append("")
    if outcome.written:
        extra = f" (weights in {outcome.external_data})" if outcome.external_data else ""
        lines.append(f"written: {outcome.output}{extra}")
    if outcome.atc_command is not None:
        lines.append(_style("atc command:", color, bold=True))
        lines.append(f"  {outcome.atc_command.line}")
        for note in outcome.atc_command.notes:
            lines.append(f"  note: {note}")
    elif outcome.atc_command_error:
        lines.append(f"atc command: none ({outcome.atc_command_error})")
    if outcome.runtime_error:
        lines.append(_style(f"not fixed: {outcome.runtime_error}", color, fg="red"))
    verdict = "errors remain" if outcome.fails() else "no error remains"
    lines.append(_style(verdict, color, bold=True, fg="red" if outcome.fails() else "green"))
    return "\n".join(lines) + "\n"
