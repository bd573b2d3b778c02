"""drop-training-attributes: attributes only training reads, dropped where the node is in inference."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Emitter, NodeRewrite, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

FACT = "training-only-attr"
# The (op, attribute) pairs of the training-only-attr facts, for the links: a test keeps them equal to the facts.
TRAINING_ONLY = {"BatchNormalization": ("momentum",), "Dropout": ("ratio", "seed")}


@register_pass
class DropTrainingAttributes(NodeRewrite):
    """Drop an attribute that only training reads, from a node in inference, where a finding says ATC refuses it.

    torchvision's MaxViT builds its BatchNorm2d with ``momentum=0.99``, which torch exports as
    BatchNormalization ``momentum=0.01``; the CANN BatchNormalization page lists momentum as
    not supported. Neither BatchNorm parser plugin reads it, so that page fact is superseded
    by the source (``superseded_page_limits.json``) and check does not report it: this pass
    answers an attr-out-of-range finding on a training-only attribute that a page limit no
    source supersedes gives (none in the tables now). ONNX reads momentum only to update the running mean
    and variance in training mode: in inference BatchNormalization normalises with its mean
    and var inputs, so without the attribute it computes the same. The attributes and the
    conditions of inference are op_facts.json's ``training-only-attr`` facts (ONNX spec, each
    checked against the installed onnx's schemas by a test): BatchNormalization momentum
    (opsets 7-15; training_mode 0 or absent, no training output read), Dropout ratio (opsets
    7-11) and Dropout seed (12 on; training_mode absent or constant false). It drops those an
    attr-out-of-range finding names; a node in training mode is left with a note. Exact.
    """

    name = "drop-training-attributes"
    stage = "repair"
    answers = tuple(FixLink("attr-out-of-range", op, when={"attr": attrs}) for op, attrs in TRAINING_ONLY.items())
    op_types: ClassVar[frozenset[str] | None] = frozenset(TRAINING_ONLY)
    safe = True
    tolerance = 0.0
    rtol = 0.0
    counted = "node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str | None:
        from atccheck.tables import tables

        facts = {f.attr: f for f in tables().op_facts_for(FACT, site.node.op_type, None)}
        opset = rw.opset_of(site.node.domain) or rw.opset
        drop = []
        named = {(f.data or {}).get("attr") for f in rw.findings_at(site)}
        for attr in sorted(a for a in named if a):
            fact = facts.get(attr)
            if fact is None or all(a.name != attr for a in site.node.attribute):
                continue  # not a training-only attribute, or already gone
            if not any(v <= opset for v in fact.opsets or ()):
                return f"{attr} is not a training-only attribute at opset {opset}"
            when = fact.when or {}
            if when and site.attr(when["attr"], 0) not in when["values"]:
                return f"{when['attr']}={site.attr(when['attr'])}: the node trains, so {attr} is read"
            params = fact.params or {}
            start = params.get("unused_outputs_from")
            if start is not None and any(self._read(rw, site, o) for o in site.node.output[start:] if o):
                return f"an output only training computes is read, so {attr} matters"
            flag = params.get("training_input")
            if flag is not None and site.input(flag):
                value = rw.const_value(site.input(flag))
                if value is None or bool(value.reshape(-1)[0]):
                    return f"training_mode is not a constant false, so {attr} may be read"
            drop.append(attr)
        if not drop:
            return None
        em = Emitter(rw, site)
        em.op(site.node.op_type, list(site.node.input), list(site.node.output), domain=site.node.domain,
              **site.attrs(drop=drop))
        em.nodes[-1].name = site.node.name
        rw.notes.append(f"{site.node.op_type} '{site.label}': dropped {', '.join(drop)} (read in training only)")
        return em

    @staticmethod
    def _read(rw: Rewriter, site: Site, name: str) -> bool:
        graph = site.graph
        return any(name in n.input for n in graph.node) or any(o.name == name for o in graph.output)
