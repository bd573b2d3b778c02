"""Checking with a gear option: every gear is judged as the static graph ATC builds for it.

With --dynamic_batch_size, --dynamic_image_size or --dynamic_dims ATC does not compile a
dynamic-shape graph: it builds one static graph per gear (hicann/ge
compiler/graph/preprocess/multi_batch_options.cc). So a geared model is checked as the static
model of every gear, and the findings are merged. Every gear is checked, not only the smallest
and largest: verdicts are not monotonic in the dims (a Reshape or a split that divides only
some sizes, a kernel table that lists some shapes), so the extremes prove nothing about the
gears between them. The cost is one shape inference and one rule pass per gear
(bench/bench_gears.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atccheck.engine import InputShapes, Prepared, check_prepared, prepare
from atccheck.findings import Finding
from atccheck.model.loading import LoadedModel, load_model
from atccheck.report import Report
from atccheck.tables import Tables, tables
from atccheck.target import Target

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.atc.spec import Gears, ShapeEntry


@dataclass
class GearedModel:
    """A model prepared once per gear of a gear option."""

    gears: "Gears"
    entries: "tuple[ShapeEntry, ...]"  # the --input_shape ATC gets: -1 on the gear axes
    prepared: tuple[tuple[str, Prepared], ...]  # (gear, the model at that gear's static shapes)


def prepare_gears(
    source: "str | os.PathLike[str] | onnx.ModelProto | LoadedModel",
    gears: "Gears",
    input_shapes: str | InputShapes | None = None,
) -> GearedModel:
    """Prepare the model at each gear's static shapes; raises UsageError (with ATC's code) for gear misuse."""
    from atccheck.atc.command import AtcRuleError, gears_in_graph_order, input_entries
    from atccheck.atc.spec import check_gears_against_shape, gear_shapes
    from atccheck.errors import UsageError

    loaded = source if isinstance(source, LoadedModel) else load_model(source)
    entries = input_entries(loaded.model, input_shapes)
    gears = gears_in_graph_order(loaded.model, input_shapes, gears) or gears
    problems = check_gears_against_shape(gears, entries)
    if problems:
        raise AtcRuleError(problems[0])
    prepared = []
    for label, shapes in gear_shapes(gears, entries):
        try:
            prepared.append((label, prepare(loaded, shapes, gear=True)))
        except UsageError as exc:  # a gear the input names or ranks refuse (a node it breaks is shape-mismatch)
            raise UsageError(f"{gears.option} gear {label}: {exc}") from None
    return GearedModel(gears, tuple(entries), tuple(prepared))


def merge_gear_findings(gears: "Gears", labelled: Sequence[tuple[str, Sequence[Finding]]]) -> list[Finding]:
    """One list for all gears: a finding every gear shares appears once; one that only some gears
    have names them in its message and in ``data["gears"]`` (with ``data["gear_option"]``)."""
    from dataclasses import replace

    first: dict[tuple[Any, ...], Finding] = {}
    seen_in: dict[tuple[Any, ...], list[str]] = {}
    for label, findings in labelled:
        for f in findings:
            key = (f.code, f.name, f.severity, f.message, f.location, f.atc_error)
            first.setdefault(key, f)
            where = seen_in.setdefault(key, [])
            if label not in where:
                where.append(label)
    merged = []
    for key, f in first.items():
        where = seen_in[key]
        if len(where) == len(labelled):
            merged.append(f)
            continue
        named = "; ".join(where)
        merged.append(replace(
            f,
            message=f"{f.message} [{gears.option} gear{'s' if len(where) > 1 else ''} {named}]",
            data={**f.data, "gears": list(where), "gear_option": gears.option},
        ))
    return merged


def check_geared(
    geared: GearedModel,
    target: Target,
    *,
    tbl: Tables | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """Check every gear as the static model ATC builds for it, merged into one report whose atc
    command carries the gear option."""
    from dataclasses import replace

    from atccheck.atc.command import AtcRuleError, command_for_report
    from atccheck.atc.spec import check_gear_count

    tbl = tbl or tables()
    problems = check_gear_count(geared.gears, target.soc, tbl)
    if problems:
        raise AtcRuleError(problems[0])
    reports = [(label, check_prepared(p, target, tbl=tbl, select=select, ignore=ignore, options=options))
               for label, p in geared.prepared]
    findings = merge_gear_findings(geared.gears, [(label, r.findings) for label, r in reports])
    shapes = {e.name or "": tuple(d if isinstance(d, int) else -1 for d in e.dims) for e in geared.entries}
    report = replace(reports[0][1], findings=findings, input_shapes=shapes)
    report.atc_command = command_for_report(report, geared.gears)
    return report
