"""Baselines: accept today's findings, fail only on new ones.

``atccheck check --write-baseline FILE`` records every finding of the run; ``--baseline FILE``
then hides the recorded ones, fails only on findings that are new, and lists recorded entries
that no longer occur (fixed, or their node renamed).

A finding is identified by its **fingerprint**, which leaves the message out on purpose (a
reworded message or a changed number must not turn an accepted finding into a new one):

- ``model``: the model's path relative to the baseline file's folder, with ``/`` separators (so
  the same baseline works from any working directory),
- ``soc``: the chip it was checked for (``--soc`` in ATC spelling),
- ``rule``: the rule name (``unsupported-op``),
- ``graph``, ``node``, ``op_type``: where in the model (``node`` is empty for model-level
  findings).

Several findings may share a fingerprint (two model-level findings of one rule, say); the
baseline stores a count per fingerprint and only findings beyond that count are new. Entries
for a model and chip that this run did not check are neither matched nor reported as gone, so
a baseline written for a whole folder also serves a pre-commit run on a few files; entries of a
model file that no longer exists are reported as gone.

The file is JSON, sorted, without timestamps, so that it reviews well in version control; the
``code`` and ``message`` of each entry are there for people and are not compared.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from atccheck.errors import UsageError
from atccheck.fileio import real_path
from atccheck.findings import Finding
from atccheck.report import Report

BASELINE_FORMAT = 1


@dataclass(frozen=True, order=True)
class Fingerprint:
    model: str
    soc: str
    rule: str
    graph: str
    node: str
    op_type: str

    def digest(self) -> str:
        """A short stable hash of the fingerprint (SARIF partialFingerprints use it)."""
        text = "\x1f".join(astuple(self))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def relative_model_path(model: str | os.PathLike[str], root: Path) -> str:
    """The model's path relative to ``root``, with '/' separators; absolute when that fails."""
    path = Path(model)
    try:
        rel = os.path.relpath(real_path(path), real_path(root))
    except ValueError:  # another drive on Windows
        rel = str(real_path(path))
    return rel.replace(os.sep, "/")


def fingerprint(finding: Finding, report: Report, root: Path) -> Fingerprint:
    loc = finding.location
    return Fingerprint(
        model=relative_model_path(report.model, root),
        soc=report.target.soc.name,
        rule=finding.name,
        graph=loc.graph,
        node=loc.node or "",
        op_type=loc.op_type or "",
    )


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: Fingerprint
    count: int
    code: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        fp = self.fingerprint
        return {
            "model": fp.model,
            "soc": fp.soc,
            "rule": fp.rule,
            "code": self.code,
            "graph": fp.graph,
            "node": fp.node,
            "op_type": fp.op_type,
            "count": self.count,
            "message": self.message,
        }

    def describe(self) -> str:
        fp = self.fingerprint
        where = f"{fp.graph}/{fp.node}" if fp.node else f"{fp.graph} (model level)"
        times = f" x{self.count}" if self.count > 1 else ""
        return f"{fp.model} [{fp.soc}] {self.code or fp.rule} {fp.rule} at {where}{times}"


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: tuple[BaselineEntry, ...]

    @property
    def root(self) -> Path:
        return real_path(self.path).parent

    def counts(self) -> Counter[Fingerprint]:
        counts: Counter[Fingerprint] = Counter()
        for entry in self.entries:
            counts[entry.fingerprint] += entry.count
        return counts


def build_entries(reports: Iterable[Report], root: Path) -> tuple[BaselineEntry, ...]:
    counts: Counter[Fingerprint] = Counter()
    first: dict[Fingerprint, Finding] = {}
    for report in reports:
        for finding in report.findings:
            fp = fingerprint(finding, report, root)
            counts[fp] += 1
            first.setdefault(fp, finding)
    return tuple(
        BaselineEntry(fp, counts[fp], first[fp].code, first[fp].message) for fp in sorted(counts)
    )


def baseline_text(reports: Iterable[Report], path: str | os.PathLike[str]) -> str:
    """The baseline file recording every finding of ``reports``, for a file written at ``path``."""
    from atccheck import __version__

    root = real_path(path).parent
    doc = {
        "atccheck_baseline": BASELINE_FORMAT,
        "written_by": f"atccheck {__version__}",
        "fingerprint": [f.name for f in fields(Fingerprint)],
        "findings": [e.to_dict() for e in build_entries(reports, root)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_baseline(reports: Iterable[Report], path: str | os.PathLike[str]) -> None:
    from atccheck.fileio import atomic_write_text

    atomic_write_text(path, baseline_text(reports, path))


def load_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Read a baseline file; UsageError when it is missing or not one atccheck wrote."""
    from atccheck.fileio import decode_text, read_small_file

    file = Path(path)
    if not file.exists() and not file.is_symlink():
        raise UsageError(f"baseline {file} does not exist; create it with --write-baseline {file}")
    text = decode_text(read_small_file(file, "baseline"), file, "baseline")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"baseline {file} is not valid JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"baseline {file} is not an atccheck baseline: its JSON is nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("atccheck_baseline") != BASELINE_FORMAT:
        raise UsageError(f"{file} is not an atccheck baseline (format {BASELINE_FORMAT}); write one with --write-baseline")
    findings = doc.get("findings", [])
    if not isinstance(findings, list):
        raise UsageError(f"baseline {file}: 'findings' must be a list")
    entries = []
    for i, item in enumerate(findings):
        try:
            fp = Fingerprint(
                model=str(item["model"]),
                soc=str(item["soc"]),
                rule=str(item["rule"]),
                graph=str(item["graph"]),
                node=str(item.get("node") or ""),
                op_type=str(item.get("op_type") or ""),
            )
            count = int(item.get("count", 1))
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
            raise UsageError(f"baseline {file}: entry {i} lacks model, soc, rule or graph") from None
        if count < 1:
            raise UsageError(f"baseline {file}: entry {i} has count {count}; it must be at least 1")
        entries.append(BaselineEntry(fp, count, str(item.get("code", "")), str(item.get("message", ""))))
    return Baseline(file, tuple(entries))


@dataclass(frozen=True)
class BaselineOutcome:
    """A run compared with a baseline."""

    reports: tuple[Report, ...]  # the reports with recorded findings removed: only new ones remain
    new: int
    unchanged: int
    gone: tuple[BaselineEntry, ...]  # recorded, checked this run, no longer found (count = how many fewer)

    def summary(self) -> str:
        return f"{self.new} new, {self.unchanged} recorded in the baseline, {len(self.gone)} baseline entries no longer occur"


def compare(baseline: Baseline, reports: Sequence[Report]) -> BaselineOutcome:
    """Split each report's findings into recorded and new; find recorded entries that are gone."""
    root = baseline.root
    remaining = baseline.counts()
    checked: set[tuple[str, str]] = set()
    out: list[Report] = []
    new = unchanged = 0
    for report in reports:
        checked.add((relative_model_path(report.model, root), report.target.soc.name))
        keep = []
        for finding in report.findings:
            fp = fingerprint(finding, report, root)
            if remaining[fp] > 0:
                remaining[fp] -= 1
                unchanged += 1
            else:
                keep.append(finding)
                new += 1
        out.append(report if len(keep) == len(report.findings) else report.filtered(keep))
    gone = []
    recorded = {e.fingerprint: e for e in baseline.entries}
    for fp, left in sorted(remaining.items()):
        # Entries of a model this run did not check stay quiet (a pre-commit run on a few
        # files), unless the model file is gone: then nothing will ever match them.
        if left > 0 and ((fp.model, fp.soc) in checked or not (root / fp.model).exists()):
            entry = recorded[fp]
            gone.append(BaselineEntry(fp, left, entry.code, entry.message))
    return BaselineOutcome(tuple(out), new, unchanged, tuple(gone))
