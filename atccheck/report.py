"""The result of checking one model for one target."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.findings import Finding, Severity
from atccheck.target import Target

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.command import AtcCommand
    from atccheck.context import CheckContext

SCHEMA_VERSION = 1
FAIL_ON = ("error", "warning", "info", "never")


@dataclass(frozen=True)
class SymbolicDim:
    input: str
    axis: int
    dim: str | None  # the dim_param, or None when the dim is unset


@dataclass(frozen=True)
class ShapeSummary:
    """What shape inference left unknown, for one CANN profile: where ONNX leaves an output data-dependent,
    that profile's own infer-shape functions may make it static (``op_tables/infer_shapes.json``)."""

    symbolic_inputs: tuple[SymbolicDim, ...] = ()
    unknown_values: int = 0  # node outputs whose shape stayed unknown or symbolic
    first_unknown: tuple[str, ...] = ()  # a few of them, for the report
    inference_error: str | None = None
    profile: str | None = None  # the profile whose infer-shape facts these shapes include
    static_by_infer_facts: int = 0  # node outputs static only because of that profile's infer-shape facts
    first_static_by_infer_facts: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "symbolic_inputs": [{"input": d.input, "axis": d.axis, "dim": d.dim} for d in self.symbolic_inputs],
            "unknown_values": self.unknown_values,
            "first_unknown": list(self.first_unknown),
            "static_by_infer_facts": self.static_by_infer_facts,
            "first_static_by_infer_facts": list(self.first_static_by_infer_facts),
            "inference_error": self.inference_error,
        }


@dataclass
class Report:
    model: str
    target: Target
    findings: list[Finding]
    shapes: ShapeSummary = field(default_factory=ShapeSummary)
    node_count: int = 0
    opset_imports: dict[str, int] = field(default_factory=dict)
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # The context the rules ran in (model, shapes, tables), for emitters that need the graph,
    # such as ATC's pre-check report. Not part of the JSON report.
    context: "CheckContext | None" = field(default=None, repr=False, compare=False)
    # The atc command for this model and target (the generator `atc-cmd` and `fix` use), or
    # None when ATC would reject every command (symbolic inputs on a chip without dynamic shape).
    atc_command: "AtcCommand | None" = field(default=None, compare=False)

    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return counts

    def fails(self, fail_on: str = "error") -> bool:
        """Whether a finding reaches the --fail-on level ('never' never fails)."""
        if fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {FAIL_ON}")
        if fail_on == "never":
            return False
        threshold = Severity(fail_on).rank
        return any(f.severity.rank >= threshold for f in self.findings)

    def by_rule(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for f in self.findings:
            grouped.setdefault(f.name, []).append(f)
        return grouped

    def filtered(self, keep: Iterable[Finding]) -> "Report":
        return Report(
            model=self.model,
            target=self.target,
            findings=list(keep),
            shapes=self.shapes,
            node_count=self.node_count,
            opset_imports=dict(self.opset_imports),
            input_shapes=dict(self.input_shapes),
            context=self.context,
            atc_command=self.atc_command,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (schema in docs/json-report.md)."""
        from atccheck import __version__

        counts = self.counts()
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "atccheck", "version": __version__},
            "model": self.model,
            "target": self.target.to_dict(),
            "summary": {**counts, "total": len(self.findings), "nodes": self.node_count},
            "opset_imports": [{"domain": d, "version": v} for d, v in self.opset_imports.items()],
            "input_shapes": {k: list(v) for k, v in self.input_shapes.items()},
            "shapes": self.shapes.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "atc_command": self.atc_command.to_dict() if self.atc_command is not None else None,
        }
