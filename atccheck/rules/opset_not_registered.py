"""opset-not-registered: the op is registered, but not at the model's opset."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext, NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.lookup import Status, resolve
from atccheck.rules._helpers import opsets_text, unregistered_error
from atccheck.rules.base import Rule, register
from atccheck.tables import AI_ONNX, Profile, Registration

KEY_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (ConstructOriType); graph_metadef/register/register.cpp"


@register
class OpsetNotRegistered(Rule):
    """The op is registered, but not for the model's opset of its domain.

    ## What it does
    Builds the parser's exact key ``<domain>::<model opset>::<OpType>`` for every node and
    fires when the op is registered in the profile, but not at that opset. When the model's
    opset is beyond everything the profile registers and at least one node fails the
    lookup, it also reports one model-level summary naming the highest opset the profile
    knows (a model of Constant nodes, or of custom-domain nodes only, gets none). An opset
    the profile keeps apart as unverified is a warning: for 8.0, one only the 9.x source
    registers; for 5.0, an op the published 5.0.4 list does not mention but the 2022 source
    registers (GRU, IsInf, IsNaN, Tan, RandomNormal, Einsum, ...): the list is silent, not
    negative.

    ## Why
    The lookup is an exact string match with no fallback to a lower opset, so a model
    exported at opset 17 fails on CANN 6.0 (registered up to 15) for every node, and an op
    fails at an opset that falls in a gap of its list (Resize has no opset 13 on the
    published 8.0 list). ATC prints E19010 (8.x and older) or E13010 (9.x).

    ## Example
    ``Conv`` in a model with ``opset_import ai.onnx 17`` checked against ``--cann 6.0``.

    ## Fix
    Convert the model to an opset the profile registers for every op (``atccheck fix``
    runs ``convert-opset``), or re-export with that opset.

    ## Facts
    ``op_tables/registry.json``: per profile, the opsets each op is registered at, which of
    them rest on the published list and which on the CANN source (the source wins for the
    8.0 profile where the 2022 and 2026 sources both register an opset the pages omit).
    The lookup: hicann/ge parser/parser/onnx/onnx_parser.cc and register.cpp.
    """

    code = "AC102"
    name = "opset-not-registered"
    severity = Severity.ERROR
    op_types = None

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        opset = ctx.opset_for("")
        if opset is None:
            return
        highest = ctx.registry.max_opset(AI_ONNX)
        if highest and opset > highest and _any_lookup_fails(ctx):
            target = best_opset(ctx)
            yield self.finding(
                ctx,
                f"the model imports ai.onnx opset {opset}, beyond every registration of CANN "
                f"{ctx.target.profile.id} (highest {highest}); every standard node fails the parser lookup",
                hint=f"convert the model to opset {target} ('atccheck fix' runs convert-opset) or re-export with it",
                source=f"op_tables/registry.json profile {ctx.target.profile.id}; {KEY_SOURCE}",
                atc_error=unregistered_error(ctx),
                data={"model_opset": opset, "profile_max_opset": highest, "suggested_opset": target},
            )

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        res = resolve(node)
        if res.status not in (Status.OPSET_NOT_REGISTERED, Status.OPSET_UNVERIFIED):
            return
        reg = res.registration
        assert reg is not None and res.opset is not None
        profile = node.ctx.target.profile
        registered = opsets_text(reg.opsets)
        basis = _basis(reg, res.opset, profile)
        if res.status is Status.OPSET_UNVERIFIED:
            why = profile.unverified_basis or "only a source other than this profile's registers this opset"
            yield self.finding(
                node,
                f"{node.op_type} at opset {res.opset}: "
                + (f"CANN {profile.id} registers opsets {registered}; " if reg.opsets else
                   "" if profile.unverified_basis else f"the CANN {profile.id} list does not document {node.op_type}; ")
                + f"{why}, so a CANN {profile.id} install may fail at {node.parser_key}",
                hint="convert to a registered opset, or confirm on the target CANN with 'atc --mode=3'",
                source="; ".join(reg.source),
                severity=Severity.WARNING,
                atc_error=unregistered_error(node.ctx),
                data={"parser_key": node.parser_key, "registered_opsets": list(reg.opsets), "basis": basis},
            )
            return
        yield self.finding(
            node,
            f"{node.op_type} is registered in CANN {profile.id} for opsets {registered}, not for the model's "
            f"opset {res.opset} ({basis}); the parser has no key {node.parser_key}",
            hint="convert the model to a registered opset ('atccheck fix' runs convert-opset) or re-export",
            source="; ".join(reg.source),
            atc_error=unregistered_error(node.ctx),
            data={"parser_key": node.parser_key, "registered_opsets": list(reg.opsets), "basis": basis},
        )


def _any_lookup_fails(ctx: CheckContext) -> bool:
    """At least one node fails the parser lookup (Constant-only models and custom domains do not)."""
    failing = (Status.OPSET_NOT_REGISTERED, Status.UNREGISTERED_OP)
    return any(is_standard(gnode.domain) and resolve(NodeContext(gnode, ctx)).status in failing
               for gnode in ctx.graph.nodes)


def _basis(reg: Registration, opset: int, profile: Profile) -> str:
    """Which fact the verdict rests on, when docs and source disagree."""
    if reg.documented_opsets is None:
        return "CANN source registry"
    if opset in reg.documented_opsets:
        return "documented, but the CANN source does not register it"
    if profile.basis == "source":  # built from the source registry; the published list is read beside it
        return "CANN source registry; the published list also omits it"
    return "published list; neither CANN source adds it"


def best_opset(ctx: CheckContext) -> int:
    """The ai.onnx opset at which the most standard nodes are registered (the highest on ties)."""
    types = {g.op_type for g in ctx.graph.nodes if is_standard(g.domain)}
    looked_up = [ctx.registry.lookup("", t) for t in types]
    regs = [r for r in looked_up if r is not None and r.opsets]
    highest = ctx.registry.max_opset(AI_ONNX)
    candidates = range(7, highest + 1)
    return max(candidates, key=lambda v: (sum(v in r.opsets for r in regs), v), default=highest)

