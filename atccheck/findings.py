"""Typed findings: what a rule reports about a model for a target."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


class Severity(str, enum.Enum):
    """What ATC will do.

    error: ATC rejects the model. warning: it converts, degraded (AI CPU fallback, slow path,
    changed numerics). info: a caveat atccheck could not verify.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]

    def __str__(self) -> str:
        return self.value


ROOT_GRAPH = "main"


@dataclass(frozen=True)
class Location:
    """Where in the model: graph path (``main``, ``main/If_0:then_branch``), node, op type."""

    graph: str = ROOT_GRAPH
    node: str | None = None
    op_type: str | None = None
    domain: str = ""


@dataclass(frozen=True)
class FixSuggestion:
    """Which ``atccheck fix`` pass removes the finding, or ``manual``.

    The check engine attaches it from the passes' declarations (``atccheck.fixlinks``); the
    pass reads what it needs from the finding itself (its location and ``data``).
    """

    pass_name: str
    safe: bool | None = None

    MANUAL = "manual"

    @classmethod
    def manual(cls) -> "FixSuggestion":
        return cls(cls.MANUAL, None)


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: Severity
    message: str
    location: Location
    hint: str
    fix: FixSuggestion
    source: str
    atc_error: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    # The hint to show instead of ``hint`` when a pass answers the finding, ``{pass_name}`` naming
    # it. A rule may give it; the check engine, which attaches the fix, resolves it (then None).
    fix_hint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def __reduce__(self) -> tuple:
        # picklable for worker processes: the read-only data view travels as a plain dict
        return (self.__class__, (self.code, self.name, self.severity, self.message, self.location, self.hint,
                                 self.fix, self.source, self.atc_error, dict(self.data), self.fix_hint))

    @property
    def node(self) -> str | None:
        return self.location.node

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (schema documented in docs/json-report.md)."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "node": self.location.node,
            "op_type": self.location.op_type,
            "domain": self.location.domain,
            "graph": self.location.graph,
            "atc_error": self.atc_error,
            "hint": self.hint,
            "fix": self.fix.pass_name,
            "fix_safe": self.fix.safe,
            "source": self.source,
            "data": _jsonable(self.data),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value
