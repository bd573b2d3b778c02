"""Text for people: findings grouped by rule, then by op type and message, with counts.

Identical findings on many nodes (a model whose opset is beyond the profile, say) collapse
into one line with the first few node names and a count. Colour only when asked (the CLI
asks when stdout is a terminal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from atccheck.emit._grouping import SHOWN_NODES, explained_per_node, first_nodes, one_line, per_node_summary
from atccheck.findings import Finding, Severity
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.baseline import BaselineOutcome
    from atccheck.precision.analysis import NumericsResult

COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
# A rule with a model-level finding and more per-node message groups than this is shown collapsed.
COLLAPSE_AFTER = 3


def _style(text: str, color: bool, **kwargs: Any) -> str:
    return click.style(text, **kwargs) if color else text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_one(report: Report, *, color: bool = False, verbose: bool = False, fail_on: str = "error") -> str:
    lines: list[str] = []
    head = f"{report.model}: {report.target.describe()}, {_plural(report.node_count, 'node')}"
    lines.append(_style(head, color, bold=True))
    groups = report.by_rule()
    explained = explained_per_node(report.findings)
    order = sorted(groups.items(), key=lambda kv: (-max(f.severity.rank for f in kv[1]), kv[1][0].code))
    for name, findings in order:
        severity = max((f.severity for f in findings), key=lambda s: s.rank)
        first = findings[0]
        explained_count = explained.get(first.code, 0)
        size = (f"{len(findings) - explained_count} + {explained_count} per node" if explained_count
                else str(len(findings)))
        title = f"{severity.value:<7} {first.code} {name} ({size})"
        lines.append("")
        lines.append(_style(title, color, fg=COLOURS[severity], bold=True))
        summaries = [f for f in findings if f.location.node is None]
        per_node = [f for f in findings if f.location.node is not None]
        node_groups = _group(per_node)
        for group in _group(summaries):
            lines.extend(_render_group(group, color=color, verbose=verbose))
        if summaries and len(node_groups) > COLLAPSE_AFTER and not verbose:
            lines.append(per_node_summary(per_node))
        else:
            for group in node_groups:
                lines.extend(_render_group(group, color=color, verbose=verbose))
    lines.append("")
    lines.extend(_shape_lines(report))
    lines.extend(numerics_lines(report.numerics))
    if report.atc_command is not None:
        lines.append(f"atc command: {report.atc_command.line}")
        lines.extend(f"  note: {note}" for note in report.atc_command.notes)
    counts = report.counts()
    for f in report.findings:
        if f.location.node is not None and f.code in explained:
            counts[f.severity.value] -= 1
    verdict = "fails" if report.fails(fail_on) else "passes"
    folded = sum(explained.values())
    also = f" (and {folded} per-node findings of {', '.join(sorted(explained))}, counted once)" if folded else ""
    summary = (
        f"{_plural(counts['error'], 'error')}, {_plural(counts['warning'], 'warning')}, "
        f"{counts['info']} info{also}: {verdict} --fail-on {fail_on}"
    )
    lines.append(_style(summary, color, bold=True))
    return "\n".join(lines) + "\n"


def _group(findings: list[Finding]) -> list[list[Finding]]:
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.severity, f.location.op_type, f.message, f.hint), []).append(f)
    return list(groups.values())


def _render_group(group: list[Finding], *, color: bool, verbose: bool) -> list[str]:
    first = group[0]
    out = [f"  {_style(first.severity.value, color, fg=COLOURS[first.severity])}: {one_line(first.message)}"]
    nodes = [f.location.node for f in group if f.location.node]
    if nodes:
        graphs = sorted({f.location.graph for f in group})
        if graphs == ["main"]:
            where = ""
        elif len(graphs) == 1:
            where = f" in {graphs[0]}"
        else:
            where = f" in {len(graphs)} graphs"
        limit = len(nodes) if verbose else SHOWN_NODES
        out.append(f"    nodes{where}: {first_nodes(group, limit=limit)}")
    extras = []
    if first.atc_error:
        extras.append(f"ATC {first.atc_error}")
    if first.fix.pass_name != "manual":
        safety = "safe" if first.fix.safe else "unsafe"
        extras.append(f"fix: {first.fix.pass_name} ({safety})")
    else:
        extras.append("fix: manual")
    out.append("    " + " | ".join(extras))
    out.append(f"    hint: {one_line(first.hint)}")
    if verbose:
        from atccheck.tables import tables

        out.append(f"    source: {tables().label_sources(first.source)}")
    return out


def numerics_lines(result: "NumericsResult | None") -> list[str]:
    """The precision preflight (check --numerics, fix): each output's error before and after the keep list."""
    if result is None:
        return []
    head = f"precision preflight ({result.mode}"
    if result.error is not None:
        return [f"{head}): not run: {one_line(result.error)}"]
    assumed = f", {result.assumed} with kernel dtypes assumed" if result.assumed else ""
    lines = [f"{head}; {'; '.join(result.inputs)}): {result.lowered} of {_plural(result.nodes, 'float node')} "
             f"computed below float32{assumed}"]
    after = {e.name: e for e in result.keep.after} if result.keep is not None else {}
    kept = len(result.keep.nodes) if result.keep is not None else 0
    for error in result.before:
        line = f"  output {error.name}: {error.describe()}{'' if error.ok else ' (beyond the threshold)'}"
        if error.name in after:
            line += f" -> with --keep_dtype ({_plural(kept, 'node')}): {after[error.name].describe()}"
        lines.append(line)
    if result.keep is not None:
        state = "restores the outputs" if result.keep.restored else f"does not restore the outputs ({result.keep.note})"
        shown = ", ".join(result.keep.nodes) or "none"
        lines.append(f"  keep_dtype: {shown}: {state} ({_plural(result.keep.simulations, 'simulation')}, "
                     f"{result.keep.seconds:.2f} s)")
    elif result.keep_note and not result.ok:
        lines.append(f"  keep_dtype: {result.keep_note}")
    if result.alternative is not None:
        alt = result.alternative
        lines.append(f"  {alt.mode}: " + "; ".join(f"{e.name} {e.describe()}" for e in alt.outputs)
                     + ("" if alt.ok else " (beyond the threshold)"))
    return lines


def _shape_lines(report: Report) -> list[str]:
    lines = []
    shapes = report.shapes
    if shapes.symbolic_inputs:
        dims = ", ".join(f"{d.input}[{d.axis}]={d.dim or '?'}" for d in shapes.symbolic_inputs)
        lines.append(f"symbolic input dims: {dims}")
    if shapes.unknown_values:
        lines.append(f"values with unknown or symbolic shape after inference: {shapes.unknown_values}")
    if shapes.static_by_infer_facts:
        named = ", ".join(shapes.first_static_by_infer_facts)
        more = ", ..." if shapes.static_by_infer_facts > len(shapes.first_static_by_infer_facts) else ""
        lines.append(f"static only by CANN {shapes.profile}'s infer-shape functions (ONNX leaves them data-dependent):"
                     f" {shapes.static_by_infer_facts} ({named}{more})")
    if shapes.inference_error:
        lines.append(f"shape inference stopped early: {shapes.inference_error}")
    return lines


def render(
    reports: Sequence[Report],
    *,
    color: bool = False,
    verbose: bool = False,
    fail_on: str = "error",
    baseline: "BaselineOutcome | None" = None,
    **_: Any,
) -> str:
    text = "\n".join(render_one(r, color=color, verbose=verbose, fail_on=fail_on) for r in reports)
    if baseline is not None:
        # The reports hold only new findings; say how many the baseline hid, so a clean-looking
        # report is not mistaken for a clean model.
        text += f"baseline: {baseline.summary()}; recorded findings are not shown\n"
    return text
