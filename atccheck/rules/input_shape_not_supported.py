"""input-shape-not-supported: an input whose shape the published operator page does not allow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import page_facts, page_finding
from atccheck.rules.base import Rule, register

KIND = "input-shape-required"
CHANNEL = "C"  # in a fact's lengths: the size of axis 1 of input 0


@register
class InputShapeNotSupported(Rule):
    """An input of a rank or length the op's published page rules out (PRelu's slope, say).

    ## What it does
    Fires on a node named by an ``input-shape-required`` fact when the input the fact names
    has a known rank outside the page's ranks, or is 1-D with a length the page does not
    allow (``C`` is the size of axis 1 of the first input; with a 1-D first input only 1).
    A 1-D input longer than 1 on a first input of rank 3 or more gets a warning even when
    its length is allowed: ONNX lines a 1-D input up with the last axis, while the page
    reads it as per-channel, so ATC would compute something else. Shapes come from the
    constant value when the input is one, else from shape inference; unknown shapes are not
    judged.

    ## Why
    The published CANN page for PRelu says ``slope`` must be 1-D, of length 1 or C.
    Exporters write per-channel slopes as ``[C, 1, 1]`` (so that ONNX broadcasting puts
    them on axis 1), which the page rules out.

    ## Example
    ``PRelu(x[1, 64, 56, 56], slope[64, 1, 1])``: the slope is rank 3; the page wants 1-D.

    ## Fix
    ``atccheck fix`` (prelu-slope-1d, safe) gives the slope a 1-D shape where that means the
    same in ONNX, and otherwise writes the node as ``Relu(x) + slope * Min(x, 0)``, which
    ONNX and ATC read alike.

    ## Facts
    ``op_tables/op_facts.json`` kind ``input-shape-required``: the shape constraint of the
    published PRelu page (8.5 English page; profiles 8.0 and 9.0; other profiles get an
    info, the page does not speak for them). ONNX's broadcasting rule for the warning:
    the ONNX PRelu spec (unidirectional broadcasting of slope to X).
    """

    code = "AC307"
    name = "input-shape-not-supported"
    severity = Severity.ERROR
    fact_kind = KIND  # runs on the ops these facts name

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        here, facts = page_facts(node, KIND) or ((), ())
        for fact in here or facts:
            found = self._judge(node, fact.params or {}, fact.severity, fact.note or "", bool(here))
            if found is not None:
                message, severity, data = found
                yield page_finding(self, node, KIND, fact, bool(here), message, severity,
                                   "give the input the shape the page asks for", data)

    @staticmethod
    def _judge(node: NodeContext, params: Mapping[str, Any], severity: str, note: str,
               covered: bool) -> tuple[str, Severity, dict[str, Any]] | None:
        index, label = int(params["index"]), params["input"]
        name = node.input_name(index)
        if not name:
            return None
        value = node.ctx.const_value(name)
        info = node.input_info(index)
        shape: Sequence[Any] | None = tuple(value.shape) if value is not None else (
            info.shape if info is not None else None)
        if shape is None:
            return None
        data: dict[str, Any] = {"input": label, "shape": list(shape)}
        page = "the published page" if covered else "the published page of a later CANN"
        ranks = params.get("ranks") or []
        if ranks and len(shape) not in ranks:
            return (f"{node.op_type} input '{label}' has shape {list(shape)} (rank {len(shape)}); "
                    f"{page} says {label} {note}", Severity(severity), data)
        lengths = params.get("lengths")
        if not lengths or len(shape) != 1 or not isinstance(shape[0], int):
            return None
        first = node.input_info(0)
        first_shape = first.shape if first is not None else None
        if first_shape is None:
            return None
        allowed = [n for n in lengths if isinstance(n, int)]
        if CHANNEL in lengths and len(first_shape) >= 2:
            if not isinstance(first_shape[1], int):
                return None
            allowed.append(first_shape[1])
        length = shape[0]
        if length not in allowed:
            return (f"{node.op_type} input '{label}' has length {length}; {page} says {label} {note} "
                    f"(allowed here: {' or '.join(map(str, sorted(set(allowed))))})", Severity(severity), data)
        if length > 1 and len(first_shape) >= 3:
            data["axis_meaning"] = "last axis in ONNX, channel in ATC"
            return (f"{node.op_type} input '{label}' is 1-D of length {length} on a rank-{len(first_shape)} input: "
                    "ONNX applies it along the last axis, the published page reads it as per-channel, so ATC "
                    "would compute something else", Severity.WARNING, data)
        return None
