"""What ``atccheck fix`` returns: the outcome of each pass, the verification, what remains.

:class:`FixOutcome` is the result of :func:`atccheck.fixing.pipeline.fix`; its ``to_dict`` is the JSON
report of ``atccheck fix --format json`` (schema in docs/fix.md). Plain data: nothing here
runs a pass, verifies or writes.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.findings import Finding, Severity
from atccheck.report import Report
from atccheck.target import Target

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.atc.command import AtcCommand
    from atccheck.numerics import Comparison

SCHEMA_VERSION = 1


class PassStatus(str, enum.Enum):
    APPLIED = "applied"  # changed the model, and the change was verified (or could not be)
    UNCHANGED = "unchanged"  # ran, found nothing to do
    SKIPPED = "skipped"  # did not run: no finding called for it, or unsafe without --unsafe-fixes
    REVERTED = "reverted"  # raised, broke the checker, or changed the numbers: rolled back

    def __str__(self) -> str:
        return self.value


# How an applied step was verified.
PROVED = "proved"  # only names and shape annotations changed: same computation, no run needed
TESTED = "tested"  # onnxruntime outputs matched the model before the step within tolerance
UNVERIFIED = "unverified"  # onnxruntime could not run the original; only onnx.checker passed
DISABLED = "disabled"  # --no-verify: only onnx.checker ran


@dataclass
class PassOutcome:
    """What one pass did in one round."""

    name: str
    stage: str
    safe: bool
    status: PassStatus
    round: int | None = 1
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    nodes_before: int | None = None
    nodes_after: int | None = None
    verification: str | None = None
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    tolerance: float | None = None
    rtol: float | None = None
    removed: dict[str, int] = field(default_factory=dict)  # findings gone, by rule
    added: dict[str, int] = field(default_factory=dict)  # findings new, by rule
    seconds: float | None = None
    # how onnxruntime's outputs were judged: the method, the figure the verdict rests on and its bound
    comparison: "Comparison | None" = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "stage": self.stage,
            "safe": self.safe,
            "status": self.status.value,
            "round": self.round,
            "reason": self.reason,
            "notes": list(self.notes),
            "nodes_before": self.nodes_before,
            "nodes_after": self.nodes_after,
            "verification": self.verification,
            "max_abs_error": _num(self.max_abs_error),
            "max_rel_error": _num(self.max_rel_error),
            "tolerance": _num(self.tolerance),
            "rtol": _num(self.rtol),
            "findings_removed": dict(sorted(self.removed.items())),
            "findings_added": dict(sorted(self.added.items())),
            "seconds": round(self.seconds, 4) if self.seconds is not None else None,
            "judged_by": self.comparison.basis() if self.comparison is not None else None,
        }


@dataclass
class Verification:
    """How the result was shown to compute what the input did."""

    status: str  # verified | unverified | disabled | unchanged
    reason: str | None = None
    inputs: list[str] = field(default_factory=list)
    max_abs_error: float | None = None  # final model against the original
    max_rel_error: float | None = None
    original_checker: str | None = None  # onnx.checker's complaint about the input model, if any
    needs: str | None = None  # one line: the --inputs sample a comparison needs (the original fails on these)
    dropped: str | None = None  # input sets the original fails on, left out of the comparison, with the error
    # the final model's cosine similarity with the original per float output, when a step was judged by
    # cosine, and the threshold that step had to reach
    cosines: dict[str, float] | None = None
    cosine_threshold: float | None = None
    timeout_s: float | None = None  # the time limit the original's reference run hit, when it did

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "inputs": list(self.inputs),
            "max_abs_error": _num(self.max_abs_error),
            "max_rel_error": _num(self.max_rel_error),
            "original_checker_error": self.original_checker,
            "needs_inputs": self.needs,
            "inputs_dropped": self.dropped,
            "cosine": {k: round(v, 6) for k, v in self.cosines.items()} if self.cosines is not None else None,
            "cosine_threshold": self.cosine_threshold,
            "reference_timeout_s": self.timeout_s,
        }


@dataclass(frozen=True)
class RemainingFinding:
    finding: Finding
    why: str  # why no pass removed it

    def to_dict(self) -> dict[str, Any]:
        return {**self.finding.to_dict(), "why": self.why}


@dataclass
class FixOutcome:
    """The result of :func:`atccheck.fixing.pipeline.fix`: the new model, what each pass did, and what remains."""

    source: str
    target: Target
    before: Report
    after: Report
    passes: list[PassOutcome]
    remaining: list[RemainingFinding]
    verification: Verification
    model: "onnx.ModelProto" = field(repr=False)
    output: Path | None = None
    written: bool = False
    external_data: str | None = None  # the data file written beside the output, if any
    warnings: list[str] = field(default_factory=list)
    input_shapes: dict[str, list[int | str | None]] = field(default_factory=dict)
    atc_command: "AtcCommand | None" = None
    atc_command_error: str | None = None
    seconds: float | None = None
    # why onnxruntime cannot load the written model (then it is not called fixed), or None
    runtime_error: str | None = None

    def fails(self) -> bool:
        """Whether an error-severity finding remains or onnxruntime cannot load the result (exit code 1)."""
        return self.runtime_error is not None or any(f.severity is Severity.ERROR for f in self.after.findings)

    @property
    def applied(self) -> list[PassOutcome]:
        return [p for p in self.passes if p.status is PassStatus.APPLIED]

    def to_dict(self) -> dict[str, Any]:
        """The JSON report of ``atccheck fix --format json`` (schema in docs/fix.md)."""
        from atccheck import __version__

        def summary(report: Report) -> dict[str, int]:
            return {**report.counts(), "total": len(report.findings), "nodes": report.node_count}

        return {
            "schema_version": SCHEMA_VERSION,
            "kind": "fix",
            "tool": {"name": "atccheck", "version": __version__},
            "model": self.source,
            "output": str(self.output) if self.output is not None else None,
            "written": self.written,
            "external_data": self.external_data,
            "target": self.target.to_dict(),
            "input_shapes": {k: list(v) for k, v in self.input_shapes.items()},
            "summary": {
                "before": summary(self.before),
                "after": summary(self.after),
                "fixed": _fixed_count(self.before, self.after),
                "remaining": len(self.remaining),
                "errors_remaining": sum(1 for r in self.remaining if r.finding.severity is Severity.ERROR),
            },
            "passes": [p.to_dict() for p in self.passes],
            "verification": self.verification.to_dict(),
            "warnings": list(self.warnings),
            "remaining": [r.to_dict() for r in self.remaining],
            "atc_command": self.atc_command.to_dict() if self.atc_command is not None else None,
            "atc_command_error": self.atc_command_error,
            "onnxruntime_load_error": self.runtime_error,
            "seconds": round(self.seconds, 3) if self.seconds is not None else None,
        }


def _num(value: float | None) -> float | str | None:
    if value is None:
        return None
    return value if math.isfinite(value) else "inf"


def _fixed_count(before: Report, after: Report) -> int:
    return sum(finding_delta(before, after)[0].values())


def finding_delta(before: Report, after: Report) -> tuple[dict[str, int], dict[str, int]]:
    """Findings gone and findings new from one report to the next, counted by rule name."""
    from collections import Counter

    old = Counter(f.name for f in before.findings)
    new = Counter(f.name for f in after.findings)
    return dict(old - new), dict(new - old)

