"""A model in the fix pipeline: what the passes so far made of it, and how it is being verified."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atccheck.fixing.outcome import PassOutcome
from atccheck.passes.base import FixPass
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.verifier import Verdict


@dataclass
class State:
    serial: int
    model: "onnx.ModelProto"
    report: Report
    parent: "State | None" = None
    step: PassOutcome | None = None
    pass_cls: type[FixPass] | None = None
    job: "Future[Verdict] | None" = None
    # the serialization the worker made for onnxruntime (None when it made none), as soon as it
    # exists: the output can be staged from it while the run is still going
    serialized: "Future[bytes | None]" = field(default_factory=Future)

    def lineage(self) -> list[State]:
        """The states from the start of the pipeline up to this one, oldest first."""
        chain: list[State] = []
        node: State | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return chain
