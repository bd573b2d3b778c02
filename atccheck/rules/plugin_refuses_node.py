"""plugin-refuses-node: the op's parser plugin fails on this node, so ATC stops while parsing the model."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import reaches_plugin
from atccheck.rules._plugin_conditions import describe, evaluate
from atccheck.rules.base import Rule, register
from atccheck.tables import PluginRefusal


@register
class PluginRefusesNode(Rule):
    """The op is registered, but its parser plugin refuses this node: ATC stops while parsing.

    ## What it does
    For each node that reaches a parser plugin in the CANN profile, evaluates the tests that
    plugin makes of its own (``op_tables/plugin_refusals.json``): an attribute missing or of
    the wrong type, a value outside a set or a range, a list of the wrong length, an input or
    output count, a declared output the plugin cannot produce. A refusal that holds reports
    the ATC code the failure surfaces as, the plugin's message and its source. Where the
    source cannot tell (a test that reads an uninitialised value, a key registered twice, a
    shape only known when the graph is expanded, a plugin first seen after the 8.x releases)
    the finding is an info that says "unknown". Conditions another rule already reports
    (attr-out-of-range: MaxPool storage_order, Resize and Upsample modes, the published
    pages' limits) are left to it.

    ## Why
    A plugin's ParseParams failure stops the parser with E11010 (OnnxModelParser::
    ParseOpParam); a ParseOpToGraph failure, while the parser expands one node into a graph,
    with E19999 "Get one to many graph failed for op". Both happen before any kernel is
    chosen, so nothing later can rescue the model. Some tests refuse ordinary ONNX: a
    Transpose without perm, an ArgMax with select_last_index=1 before 8.0, a MaxPool that
    declares its Indices output, a ReduceSum of opset 13-15 with its axes input in the 2022
    plugin.

    ## Example
    ``MaxPool`` with outputs ``[y, indices]`` against any profile: "The output of Indices is
    not support, transforming failed." (E11010). ``ConvTranspose`` without
    ``kernel_shape``: "attr kernel_shape must have value".

    ## Fix
    Export the node the way the plugin takes it: spell out the attribute the plugin needs
    (kernel_shape, perm, axes), drop the output it cannot produce, keep the attribute at the
    value it accepts, or replace the op by an equivalent the plugin takes before conversion.

    ## Facts
    ``op_tables/plugin_refusals.json``, built from ``op_tables/curated/plugin_refusals.json``:
    every ONNX plugin file a registration names in the 2022 canndev tree
    (dengguojie/vue-element-admin ops/built-in/framework/onnx_plugin@7d77ce32d; profiles 5.0
    and 6.0) and in hicann/ops-nn@e5c3fa932, ops-math@c41933244 and ops-cv@6ae87653
    (profiles 8.0 and 9.0), each test with its source lines; the ATC codes from
    hicann/ge@ffdcbc9f7 parser/parser/onnx/onnx_parser.cc (E11010) and
    parser/parser/common/parser_utils.cc (E19999), and Ascend/parser@069eb8b for 2022.
    """

    code = "AC107"
    name = "plugin-refuses-node"
    severity = Severity.ERROR
    op_types = None  # every node: plugins of non-standard domains (npu, mmdeploy) test too

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        tables = node.ctx.tables
        if node.op_type not in tables.plugin_refusal_ops:
            return
        profile = node.ctx.target.profile.id
        facts = tables.plugin_refusals_for(node.domain, node.op_type, profile)
        if not facts or node.opset is None or not reaches_plugin(node):
            return
        seen: set[tuple[str, str | None]] = set()
        for fact in facts:
            if node.opset not in fact.opsets or (fact.check, fact.message) in seen:
                continue
            verdict = evaluate(fact.condition, node) if fact.condition is not None else None
            if verdict is False:
                continue
            seen.add((fact.check, fact.message))
            known = verdict is True and fact.evaluable and profile in fact.profiles
            yield self._report(node, fact, profile, known, verdict)

    def _report(self, node: NodeContext, fact: PluginRefusal, profile: str, known: bool,
                verdict: bool | None) -> Finding:
        said = f"'{fact.message}'" if fact.message else "no message"
        what = describe(fact.condition) if fact.condition is not None else f"any {node.op_type} node"
        if known:
            message = (f"{node.op_type} ({what}): the CANN {profile} parser plugin refuses this node ({said}); "
                       f"ATC stops with {fact.atc_error}")
        else:
            if profile not in fact.profiles:
                why = fact.profile_basis
            elif not fact.evaluable:
                why = fact.note or "the source cannot tell"
            else:
                why = "a fact the model does not carry (an input's rank or type)"
            message = (f"{node.op_type} ({what}): unknown whether the CANN {profile} parser plugin refuses this node "
                       f"({said}, {fact.atc_error}): {why}")
        if known and fact.note:
            message += f" ({fact.note})"
        return self.finding(
            node,
            message,
            hint=f"export {node.op_type} so the plugin's test passes ({fact.check}), or replace the op before "
            f"conversion",
            source=f"op_tables/plugin_refusals.json {fact.id}; {fact.source} lines {fact.lines[0]}-{fact.lines[1]}",
            severity=Severity.ERROR if known else Severity.INFO,
            atc_error=fact.atc_error,
            data={"check": fact.check, "fact": fact.id, "stage": fact.stage, "plugin_message": fact.message,
                  "channel": fact.channel, "profile": profile, "unknown": not known,
                  "evaluable": fact.evaluable and verdict is not None},
        )
