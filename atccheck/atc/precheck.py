"""ATC's pre-check report (``atc --mode=3`` → ``check_result.json``), rebuilt from a check.

What ATC's ONNX parser does before it writes the report (hicann/ge@ffdcbc9f7
``parser/parser/onnx/onnx_parser.cc`` ModelParseToGraphImpl / Prechecker, and
``parser/parser/common/pre_checker.cc`` Save), restated:

1. Unnamed root-graph nodes are named ``<OpType>_<k>``, ``k`` counting the unnamed nodes in
   graph order from 0.
2. One synthetic ``Input`` node per graph input that no initializer backs, named like the
   input, in input order; then one ``Constant`` node per initializer (``FileConstant`` when its
   data is external), in the order of a name-sorted map, named ``<initializer>_Initializer_<i>``
   (9.x line) or ``<initializer>_<i>`` (Ascend/parser, the CANN 8.x-and-older line).
3. A root graph with no input or no output stops parsing (E16001) before the pre-check: the
   report then lists no op. ``Constant`` nodes whose value is external data become
   ``FileConstant``.
4. Every root node in list order gets its lookup type: ``Input``/``Constant``/``FileConstant``
   literally, else ``<domain>::<opset>::<OpType>``. A node whose domain has no opset_import
   stops the pre-check (E19999) and is not recorded; in every released CANN line a node with
   the empty domain in a model with other than one opset_import stops it with E16005.
5. A name seen before adds cause 9 ("The name is repeated in the graph.") to the node and to
   the earlier one; a type the parser registry lacks adds cause 1 ("The type is not
   supported."). Ops inside subgraphs are not examined.
6. The JSON: keys sorted (nlohmann), 2-space indent, no trailing newline; ``op`` absent when
   nothing was recorded; ``name`` is empty for ONNX; ``result`` ``failed`` when any op has a
   non-zero cause.

Our own findings go under the single extra key ``x_atccheck`` (schema in docs/atc.md), which
sorts after ATC's keys, so the file up to ``total`` reads exactly as ATC's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.errors import UsageError
from atccheck.findings import ROOT_GRAPH

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.context import CheckContext
    from atccheck.report import Report

EXTRA_KEY = "x_atccheck"
EXTRA_SCHEMA = "atccheck.atc_precheck/1"

CAUSE_TYPE_UNSUPPORTED = 1
CAUSE_NAME_REPEATED = 9
CAUSE_MESSAGES = {
    CAUSE_TYPE_UNSUPPORTED: "The type is not supported.",
    CAUSE_NAME_REPEATED: "The name is repeated in the graph.",
}

PARSER_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc"
PRECHECKER_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/common/pre_checker.cc"
OLD_PARSER_SOURCE = "Ascend/parser@069eb8b:parser/onnx/onnx_parser.cc"


@dataclass
class PrecheckOp:
    name: str
    type: str
    causes: list[int] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(code != 0 for code in self.causes)

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"name": self.name, "result": "failed" if self.failed else "success", "type": self.type}
        if self.causes:
            item["cause"] = [{"code": c, "message": CAUSE_MESSAGES[c]} for c in self.causes]
        return item


@dataclass
class Precheck:
    """The op list ATC's pre-check records, and why it stopped early, if it did."""

    ops: list[PrecheckOp]
    stop_error: str | None = None  # ATC code of an early stop (E16001, E16005, E19999)
    stop_message: str | None = None
    stop_node: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def fail(self) -> int:
        return sum(op.failed for op in self.ops)

    def atc_document(self) -> dict[str, Any]:
        """Exactly the keys and types of ATC's check_result.json."""
        doc: dict[str, Any] = {
            "fail": self.fail,
            "name": "",
            "pass": len(self.ops) - self.fail,
            "result": "failed" if self.fail else "success",
            "total": len(self.ops),
        }
        if self.ops:
            doc["op"] = [op.to_json() for op in self.ops]
        return doc


def _parser_type(gnode, ctx: "CheckContext", imports: dict[str, int]) -> tuple[str | None, str | None, str | None]:
    """(lookup type, stop error, stop message) as ConstructOriType builds it for this profile."""
    from atccheck.tables import normalize_domain

    node = gnode.node
    profile = ctx.target.profile
    if profile.single_opset_import:
        # Released parsers: the map is keyed by the raw domain; the empty domain borrows the only import.
        if node.domain:
            if node.domain not in imports:
                return None, "E19999", f"The opset of domain[{node.domain}] has no responding version."
            return f"{node.domain}::{imports[node.domain]}::{node.op_type}", None, None
        if len(imports) != 1:
            return None, "E16005", f"The model has {len(imports)} --domain_version fields, but only one is allowed."
        (domain, version), = imports.items()
        return f"{normalize_domain(domain)}::{version}::{node.op_type}", None, None
    domain = normalize_domain(node.domain)
    normalized = {normalize_domain(d): v for d, v in imports.items()}
    if domain not in normalized:
        return None, "E19999", f"The opset of domain[{domain}] has no responding version."
    return f"{domain}::{normalized[domain]}::{node.op_type}", None, None


def _registered(gnode, key: str, ctx: "CheckContext", notes: list[str]) -> bool:
    """Whether the profile's parser registry has this exact key."""
    from atccheck.context import NodeContext
    from atccheck.lookup import Status, resolve
    from atccheck.tables import normalize_domain

    domain, version_text, op_type = key.rsplit("::", 2)
    if domain == normalize_domain(gnode.domain) and ctx.opset_for(gnode.domain) == int(version_text):
        res = resolve(NodeContext(gnode, ctx))
        if res.status is Status.OPSET_UNVERIFIED:
            notes.append(f"{key}: only the newer 9.x source registers this opset; ATC {ctx.target.profile.id} may "
                         "report cause 1 for it")
            return True
        return res.status in (Status.REGISTERED, Status.NATIVE)
    reg = ctx.registry.lookup(domain, op_type)
    return reg is not None and reg.registered_at(int(version_text))


def run_precheck(ctx: "CheckContext") -> Precheck:
    """The pre-check ATC runs in --mode=3, on the root graph of the checked model."""
    from atccheck.model import onnxpb

    model = ctx.model
    graph = model.graph
    notes: list[str] = []
    initializers: dict[str, onnxpb.TensorProto] = {}
    for tensor in graph.initializer:
        if tensor.name:
            initializers[tensor.name] = tensor  # a std::map: the last tensor of a name wins
    if not graph.input:
        return Precheck([], "E16001", "The model has no input node.", None, notes)
    root = [g for g in ctx.graph.nodes if g.graph == ROOT_GRAPH]
    names: list[str] = []
    unnamed = 0
    for gnode in root:
        if gnode.node.name:
            names.append(gnode.node.name)
        else:
            names.append(f"{gnode.node.op_type}_{unnamed}")
            unnamed += 1
    synthetic: list[tuple[str, str]] = [("Input", vi.name) for vi in graph.input if vi.name not in initializers]
    pattern = ctx.target.profile.initializer_node_name  # profiles.json, per parser generation
    for i, name in enumerate(sorted(initializers, key=lambda n: n.encode("utf-8"))):
        external = initializers[name].data_location == onnxpb.TensorProto.EXTERNAL
        synthetic.append(("FileConstant" if external else "Constant", pattern.format(name=name, i=i)))
    if not graph.output:
        return Precheck([], "E16001", "The model has no output node.", None, notes)

    imports = {entry.domain: entry.version for entry in model.opset_import}
    ops: list[PrecheckOp] = []
    first_of: dict[str, PrecheckOp] = {}
    items: list[tuple[Any, str]] = [*zip(root, names), *synthetic]
    for subject, name in items:
        # A synthetic node is its type; a graph node is looked up unless it maps without a plugin.
        key = subject if isinstance(subject, str) else _constant_type(subject.node)
        looked_up = key not in ctx.tables.native_types  # registry.json: kOnnxOpMap, mapped without a plugin
        if looked_up:
            parsed, stop, message = _parser_type(subject, ctx, imports)
            if stop is not None:
                return Precheck(ops, stop, message, name, notes)
            assert parsed is not None  # a lookup type whenever there is no stop error
            key = parsed
        op = PrecheckOp(name, key)
        ops.append(op)
        earlier = first_of.get(name)
        if earlier is not None:
            op.causes.append(CAUSE_NAME_REPEATED)
            if CAUSE_NAME_REPEATED not in earlier.causes:
                earlier.causes.append(CAUSE_NAME_REPEATED)
        else:
            first_of[name] = op
        if looked_up and not _registered(subject, key, ctx, notes):
            op.causes.append(CAUSE_TYPE_UNSUPPORTED)
    if len(ctx.graph.nodes) > len(root):
        notes.append("ops inside If subgraphs are not examined by ATC's pre-check; atccheck's findings cover them")
    return Precheck(ops, None, None, None, notes)


def _constant_type(node) -> str:
    """A Constant node whose 'value' tensor is external data becomes FileConstant (UpdateConstantOpType)."""
    from atccheck.model import onnxpb

    if node.op_type == "Constant":
        for attr in node.attribute:
            if attr.name == "value":
                if attr.t.data_location == onnxpb.TensorProto.EXTERNAL:
                    return "FileConstant"
                break
    return node.op_type


def precheck_document(report: "Report") -> dict[str, Any]:
    """ATC's check_result.json for one checked model, plus our findings under ``x_atccheck``."""
    from atccheck import __version__

    if report.context is None:
        raise UsageError("the atc-precheck format needs a report made by atccheck check (it holds the model)")
    result = run_precheck(report.context)
    doc = result.atc_document()
    stopped = None
    if result.stop_error:
        stopped = {"atc_error": result.stop_error, "message": result.stop_message, "node": result.stop_node}
    doc[EXTRA_KEY] = {
        "schema": EXTRA_SCHEMA,
        "tool": {"name": "atccheck", "version": __version__},
        "model": report.model,
        "target": report.target.to_dict(),
        "atc_exit": "failed" if (result.fail or result.stop_error) else "success",
        "stopped": stopped,
        "notes": list(result.notes),
        "summary": {**report.counts(), "total": len(report.findings)},
        "findings": [f.to_dict() for f in report.findings],
    }
    return doc


def render_precheck(reports: Sequence["Report"]) -> str:
    """The file text: nlohmann dump(2) style (sorted keys, 2-space indent, no trailing newline)."""
    if len(reports) != 1:
        raise UsageError(
            f"the atc-precheck format is ATC's one-model, one-chip report; got {len(reports)} reports: "
            "write one file per target")
    return json.dumps(precheck_document(reports[0]), indent=2, sort_keys=True, ensure_ascii=False)
