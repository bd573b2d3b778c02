"""graph-parse-problem: a graph-level condition ATC's ONNX parser rejects, or reads otherwise than ONNX does."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from atccheck.context import CheckContext
from atccheck.domains import is_standard
from atccheck.findings import ROOT_GRAPH, Finding, Location, Severity
from atccheck.model.shapes import dtype_name
from atccheck.rules.base import Rule, register
from atccheck.tables import ParserCheck

if TYPE_CHECKING:  # pragma: no cover
    import onnx

# Constant attributes that hold the value in ONNX; the parser reads only the one named "value".
_VALUE_FORMS = ("value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings",
                "sparse_value")
_SHOWN = 5


@register
class GraphParseProblem(Rule):
    """A graph-level condition ATC's ONNX parser rejects, or reads otherwise than ONNX does.

    ## What it does
    Checks the graphs ATC's ONNX parser reads (the root graph and the branches of ``If``, the
    only subgraphs it takes) against the parser's own graph-level checks, per CANN profile
    (``op_tables/parser_checks.json``):

    - a root graph whose input list is empty (a model of constants): error, E16001 "The
      model has no input node.";
    - a graph with an empty output list: error, E16001 "The model has no output node.";
    - a real root-graph input, an initializer or a Constant ``value`` tensor whose data type
      the parser cannot map (bfloat16 before the 2023 parser, float8 other than E4M3FN/E5M2,
      4-bit other than int4 before 9.x, an input without a type): error, E19999 "tensor_proto
      data type %ld is undefined."; an info where the sources bracketing the profile
      disagree (float8 and int4 on 8.0);
    - a Constant node whose value is in ``value_float``, ``value_ints`` and the other
      ``value_*`` forms or ``sparse_value``: the parser reads only ``value``, so the Const it
      builds holds an empty tensor (warning);
    - graph inputs backed by an initializer of the same name: the parser makes them
      constants, so the converted model does not take them (info, once per model).

    A graph output that nothing defines is not valid ONNX: atccheck refuses the model when
    loading it (ATC: E19999 "Can not find output"). A repeated graph output, an initializer
    without a name and unnamed nodes are accepted by the parser (the last one's naming is
    duplicate-node-name's business).

    ## Why
    These checks run before any operator is looked at: one failing stops the conversion
    whatever the ops. The unread Constant forms are silent: ATC goes on with a Const that has
    no value, which fails later or computes something else than the model.

    ## Example
    A graph that computes anchors from constants only and declares no input; a bfloat16
    weight checked with ``--cann 6.0``; ``Constant(value_ints=[1, -1])`` feeding a Reshape.

    ## Fix
    Give the graph a real input (ATC needs one Data node) and its outputs; cast bfloat16 or
    float8 tensors to float16/float32 before export (or target a profile that maps them);
    write each Constant with a ``value`` tensor (``onnx.helper.make_tensor``), or as an
    initializer; remove initializer-backed entries from ``graph.input`` if callers are meant to
    feed them.

    ## Facts
    ``op_tables/parser_checks.json``, from ``op_tables/curated/parser_checks.json``: the ONNX
    parser of the 2022 line (Ascend/parser@069eb8b, profiles 5.0 and 6.0), the last
    standalone parser (Ascend/parser@a87083b, 2023-12, profile 8.0) and hicann/ge@ffdcbc9f7
    (9.0): ``onnx_parser.cc`` (ParseInput, ParseOutput, GetGraphOutputs, initializers),
    ``onnx_util.cc`` (the data-type map), ``onnx_data_parser.cc`` and
    ``onnx_constant_parser.cc``; E16001 and E19999 from ``op_tables/atc_errors.json``.
    """

    code = "AC108"
    name = "graph-parse-problem"
    severity = Severity.ERROR

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        profile = ctx.target.profile.id
        graphs = list(_parsed_graphs(ctx.model.graph))
        no_input = ctx.tables.parser_check("root-graph-without-input", profile)
        if no_input is not None and not ctx.model.graph.input:
            yield self._rejected(ctx, Location(), no_input, "the root graph declares no input",
                                 "give the graph a real input; ATC builds its Data nodes from graph.input")
        no_output = ctx.tables.parser_check("graph-without-output", profile)
        if no_output is not None:
            for path, graph in graphs:
                if not graph.output:
                    where = "the root graph" if path == ROOT_GRAPH else f"subgraph {path}"
                    yield self._rejected(ctx, Location(graph=path), no_output, f"{where} declares no output",
                                         "list the graph's results in graph.output")
        dtypes = ctx.tables.parser_check("tensor-dtype-undefined", profile)
        if dtypes is not None:
            yield from self._dtypes(ctx, graphs, dtypes)
        unread = ctx.tables.parser_check("constant-value-unread", profile)
        if unread is not None:
            yield from self._unread_constants(graphs, unread)
        backed = ctx.tables.parser_check("input-with-initializer", profile)
        if backed is not None:
            yield from self._backed_inputs(ctx, backed)

    def _rejected(self, ctx: CheckContext, where: Location, check: ParserCheck, what: str, hint: str) -> Finding:
        return self.finding(
            where,
            f"{what}; ATC's ONNX parser stops: {check.atc_error} \"{check.message}\"",
            hint=hint,
            source=f"op_tables/parser_checks.json {check.check}; {check.source}",
            atc_error=check.atc_error,
            data={"check": check.check},
        )

    def _dtypes(self, ctx: CheckContext, graphs: list, check: ParserCheck) -> Iterator[Finding]:
        mapped = set(check.dtypes or ())
        unknown = set(check.unknown_dtypes or ())
        found: dict[int, list[str]] = {}
        initializers = {t.name for t in ctx.model.graph.initializer}
        for vi in ctx.model.graph.input:
            if vi.name in initializers:
                continue  # a constant: its initializer is what the parser reads
            kind = vi.type.WhichOneof("value")
            if kind == "tensor_type":
                found.setdefault(vi.type.tensor_type.elem_type, []).append(f"input '{vi.name}'")
            else:  # the parser takes the data type of a tensor type only: anything else reads as 0
                shown = kind.replace("_type", "") if kind else "no"
                found.setdefault(0, []).append(f"input '{vi.name}' of {shown} type")
        for path, graph in graphs:
            for tensor in graph.initializer:
                found.setdefault(tensor.data_type, []).append(f"initializer '{tensor.name}'")
            for node in graph.node:
                if node.op_type == "Constant" and is_standard(node.domain):
                    for attr in node.attribute:
                        if attr.name == "value" and attr.HasField("t"):
                            found.setdefault(attr.t.data_type, []).append(
                                f"Constant '{node.name or node.output[0]}'" + ("" if path == ROOT_GRAPH else
                                                                              f" in {path}"))
        for elem, where in sorted(found.items()):
            if elem in mapped:
                continue
            name = dtype_name(elem) or "undefined (0)"
            listed = ", ".join(where[:_SHOWN]) + (f" and {len(where) - _SHOWN} more" if len(where) > _SHOWN else "")
            if elem in unknown:
                yield self.finding(
                    Location(),
                    f"{len(where)} tensor{'s' if len(where) != 1 else ''} of type {name} ({listed}): the parsers "
                    "bracketing this CANN line disagree on whether it maps the type (the 9.x parser does, the "
                    "2023 one does not), so whether ATC takes it is unknown",
                    hint="cast the tensors to float16 or float32 before export to be safe",
                    source=f"op_tables/parser_checks.json {check.check}; {check.source}",
                    severity=Severity.INFO,
                    data={"check": check.check, "dtype": name, "tensors": where},
                )
                continue
            yield self.finding(
                Location(),
                f"{len(where)} tensor{'s' if len(where) != 1 else ''} of type {name} ({listed}); ATC's ONNX "
                f"parser of this CANN line has no mapping for it and stops: {check.atc_error} "
                f"\"{(check.message or '').replace('%ld', str(elem))}\"",
                hint="cast these tensors to a type the parser maps (float16/float32, int32/int64) before export, "
                "or target a CANN line whose parser maps the type",
                source=f"op_tables/parser_checks.json {check.check}; {check.source}",
                atc_error=check.atc_error,
                data={"check": check.check, "dtype": name, "tensors": where},
            )

    def _unread_constants(self, graphs: list, check: ParserCheck) -> Iterator[Finding]:
        for path, graph in graphs:
            for index, node in enumerate(graph.node):
                if node.op_type != "Constant" or not is_standard(node.domain):
                    continue
                forms = [a.name for a in node.attribute if a.name in _VALUE_FORMS]
                if not forms:
                    continue
                label = node.name or f"Constant_{index}"
                yield self.finding(
                    Location(graph=path, node=label, op_type="Constant"),
                    f"the Constant gives its value in '{forms[0]}'; ATC's ONNX parser reads only the attribute "
                    "'value', so the Const it builds holds an empty tensor, and the nodes reading it get no value "
                    "(they fail later or compute without it)",
                    hint="write the Constant with a 'value' tensor (onnx.helper.make_tensor), or make it an "
                    "initializer",
                    source=f"op_tables/parser_checks.json {check.check}; {check.source}",
                    severity=Severity.WARNING,
                    data={"check": check.check, "attribute": forms[0]},
                )

    def _backed_inputs(self, ctx: CheckContext, check: ParserCheck) -> Iterator[Finding]:
        initializers = {t.name for t in ctx.model.graph.initializer}
        backed = [vi.name for vi in ctx.model.graph.input if vi.name in initializers]
        if not backed:
            return
        listed = ", ".join(f"'{n}'" for n in backed[:_SHOWN]) + (
            f" and {len(backed) - _SHOWN} more" if len(backed) > _SHOWN else "")
        remaining = len(ctx.model.graph.input) - len(backed)
        rest = (f"the converted model takes the other {remaining}" if remaining else
                "the converted model takes no input at all, and whether ATC builds such a model is not in the parser")
        yield self.finding(
            Location(),
            f"{len(backed)} graph input{'s' if len(backed) != 1 else ''} ({listed}) "
            f"{'have' if len(backed) != 1 else 'has'} an initializer of the same name; ATC's ONNX parser makes "
            f"{'them constants' if len(backed) != 1 else 'it a constant'}, which onnxruntime lets callers "
            f"override; {rest}",
            hint="remove these names from graph.input if they are weights; give a real input for values callers set",
            source=f"op_tables/parser_checks.json {check.check}; {check.source}",
            severity=Severity.INFO,
            data={"check": check.check, "inputs": backed},
        )


def _parsed_graphs(graph: "onnx.GraphProto", path: str = ROOT_GRAPH) -> Iterator[tuple[str, "onnx.GraphProto"]]:
    """The root graph and, depth first, the branches of its If nodes: the graphs the parser reads."""
    yield path, graph
    for index, node in enumerate(graph.node):
        if node.op_type != "If" or not is_standard(node.domain):
            continue
        label = node.name or f"If_{index}"
        for attr in node.attribute:
            if attr.name in ("then_branch", "else_branch") and attr.HasField("g"):
                yield from _parsed_graphs(attr.g, f"{path}/{label}:{attr.name}")
