"""What the annotation-style emitters (github, markdown) share: one entry per distinct message.

Not an output format (``FORMATS`` does not list it). A model whose opset is beyond the profile
gives the same finding on hundreds of nodes; these formats show it once, naming the first nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from atccheck.findings import Finding

SHOWN_NODES = 5

# Control characters (and Unicode line breaks) as escapes: a node named "a\nb" must not break a
# line-oriented report or a one-line error in two.
_ESCAPES = {i: f"\\x{i:02x}" for i in [*range(32), 127, 0x85]}
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def one_line(text: str) -> str:
    """``text`` with every control character escaped, so it prints as one line."""
    return text.translate(_ESCAPES)


def message_groups(findings: Iterable[Finding]) -> list[list[Finding]]:
    """Findings with the same severity, rule, message and hint, most severe first, then by code."""
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.severity, f.code, f.name, f.message, f.hint), []).append(f)
    return sorted(groups.values(), key=lambda g: (-g[0].severity.rank, g[0].code))


def first_nodes(group: Iterable[Finding], show: Callable[[str], str] = one_line, limit: int = SHOWN_NODES) -> str:
    """``a, b, c, d, e (+3 more)``: the group's first node names, each through ``show``; '' if none."""
    nodes = [f.location.node for f in group if f.location.node]
    more = len(nodes) - limit
    return ", ".join(show(n) for n in nodes[:limit]) + (f" (+{more} more)" if more > 0 else "")


def explained_per_node(findings: Iterable[Finding]) -> dict[str, int]:
    """Per rule code, the per-node findings that a model-level finding of the same rule explains.

    A model imported at an opset beyond the profile fails the lookup on every node: one cause,
    reported once at model level and again on each node. Summaries count such a cause once.
    """
    findings = list(findings)
    model_level = {f.code for f in findings if f.location.node is None}
    counts: dict[str, int] = {}
    for f in findings:
        if f.location.node is not None and f.code in model_level:
            counts[f.code] = counts.get(f.code, 0) + 1
    return counts


def per_node_summary(findings: Iterable[Finding]) -> str:
    """One line for many per-node findings that a model-level finding already explains."""
    by_op: dict[str, int] = {}
    count = 0
    for f in findings:
        count += 1
        by_op[f.location.op_type or "?"] = by_op.get(f.location.op_type or "?", 0) + 1
    ops = ", ".join(f"{op} x{n}" for op, n in sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"  per node: {count} node{'' if count == 1 else 's'} ({ops}); -v lists them"
