"""aicpu-fallback: the node becomes an Ascend op that only AI CPU runs on this chip."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import ascend_ops, composite_members, effective_attr, reaches_plugin, same_value
from atccheck.rules.base import Rule, register
from atccheck.tables import Kernel, OpFact


@register
class AicpuFallback(Rule):
    """The node runs on AI CPU: its Ascend op has no AI Core kernel for this chip, or AI Core rejects it.

    ## What it does
    Finds the Ascend op(s) the node becomes at its opset (a PartitionedCall's member is
    chosen by kernel rank or attribute where the plugin's rule is known) and looks them up
    in the kernel tables of the chip's kernel family. Where the plugin's choice is not
    known (a PartitionedCall of several ops, or duplicate registrations of the op), every
    member is judged and the node is as slow as its slowest member: one warning names the
    members that only AI CPU runs (Compress's Where, Trilu's Tril/Triu under the 2022
    mapping, ScatterND's TensorScatterUpdate under the 9.x mapping). It
    fires when an op has no AI Core kernel but has an AI CPU one, unless a graph fusion pass
    moves it to an AI Core op (Slice, TopK and CumSum with constant inputs), and when a
    known ``check_supported`` rejection sends the op to AI CPU (Resize with mode linear or
    cubic in the 9.x mapping). Nodes computed at compile time (constant folding) and ops
    without a kernel in any engine (GE handles Reshape-like ops itself) are not reported.

    ## Why
    ATC converts the model, but the op runs on the AI CPU: slower, and every use moves data
    between AI Core and AI CPU.

    ## Example
    ``ScatterElements`` on Ascend310P3 (CANN 8.1 kernels): AI CPU only.

    ## Fix
    Rewrite the node into ops with AI Core kernels, make the inputs a fusion pass needs
    constant (``atccheck fix`` simplify folds shape computations), or accept the cost.

    ## Facts
    ``op_tables/kernels.json`` (op-info configs of the CANN 8.1.RC1 package and the 2022
    canndev tree, AI CPU kernel configs); ``op_tables/registry.json`` (each registration's
    Ascend op or PartitionedCall members); ``op_tables/op_facts.json`` kinds
    ``partitioned-call-member``, ``check-supported-rejects`` (impl/dynamic/resize.py) and
    ``ai-core-rewrite`` (strided_slice_v2, top_k and const2attr fusion passes).
    """

    code = "AC305"
    name = "aicpu-fallback"
    severity = Severity.WARNING
    op_types = None

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        if not is_standard(node.domain) or not ctx.has_kernel_facts:
            return
        if not reaches_plugin(node):
            return
        outputs = [o for o in node.node.output if o]
        if outputs and all(ctx.is_foldable(o) for o in outputs):
            return  # computed at compile time (--oo_constant_folding defaults to true)
        ops = ascend_ops(node)
        if not ops:
            yield from self._composite(node)
            return
        profile = ctx.target.profile
        for op in ops:
            kernel = ctx.kernel(op)
            if kernel is None:
                continue  # no kernel in any engine's config: nothing this rule can claim
            if kernel.aicore:
                yield from self._check_supported(node, op, kernel)
                continue
            if not kernel.aicpu:
                continue
            rewrite = self._rewrite(node, op)
            if rewrite is not None:
                continue
            yield self.finding(
                node,
                f"{node.op_type} becomes the Ascend op {op}, which has no AI Core kernel for "
                f"{ctx.target.soc.name} ({kernel.family}, kernels of {kernel.release}) but has an AI CPU kernel: "
                f"it runs on AI CPU (CANN {profile.id})",
                hint=self._hint(node, op),
                source=f"op_tables/kernels.json {kernel.release} {kernel.family} {op}; {kernel.source}",
                data={"ascend_op": op, "family": kernel.family, "release": kernel.release,
                      "reason": "no-ai-core-kernel"},
            )

    def _composite(self, node: NodeContext) -> Iterable[Finding]:
        """Several Ascend ops (a PartitionedCall, or duplicate registrations): as slow as the slowest member."""
        ctx = node.ctx
        members = composite_members(node)
        slow = []
        for op in members:
            kernel = ctx.kernel(op)
            if kernel is None or kernel.aicore or not kernel.aicpu or self._rewrite(node, op) is not None:
                continue
            slow.append((op, kernel))
        if not slow:
            return
        names = [op for op, _ in slow]
        kernel = slow[0][1]
        reg = ctx.registration(node.gnode)
        how = ("duplicate registrations" if reg is not None and node.opset is not None
               and len(reg.mapping_at(node.opset)) > 1 else "a PartitionedCall")
        yield self.finding(
            node,
            f"{node.op_type} becomes {how} of {', '.join(members)}; {', '.join(names)} "
            f"{'has' if len(names) == 1 else 'have'} no AI Core kernel for {ctx.target.soc.name} ({kernel.family}, "
            f"kernels of {kernel.release}) but an AI CPU one: the node runs on AI CPU, as slow as its slowest member "
            f"(CANN {ctx.target.profile.id})",
            hint=self._hint(node, names[0]),
            source=(f"op_tables/registry.json {node.parser_key} (Ascend mapping); op_tables/kernels.json "
                    f"{kernel.release} {kernel.family} {', '.join(names)}; {kernel.source}"),
            data={"ascend_op": names[0], "ascend_ops": names, "members": list(members), "family": kernel.family,
                  "release": kernel.release, "reason": "composite-member"},
        )

    def _check_supported(self, node: NodeContext, op: str, kernel: Kernel) -> Iterable[Finding]:
        ctx = node.ctx
        for fact in ctx.tables.op_facts_for("check-supported-rejects", node.op_type, ctx.target.profile.id):
            if (fact.params or {}).get("ascend_op") != op or not fact.attr:
                continue
            value, _ = effective_attr(node, fact.attr)
            if any(same_value(value, v) for v in fact.values or ()):
                continue
            where = f"{ctx.target.soc.name} ({kernel.family})"
            if kernel.aicpu:
                message = (
                    f"{node.op_type} {fact.attr}='{value}' becomes the Ascend op {op}, whose AI Core "
                    f"check_supported accepts only {fact.attr} {'/'.join(map(str, fact.values or ()))}: it runs on "
                    f"the AI CPU kernel on {where}"
                )
            else:
                message = (
                    f"{node.op_type} {fact.attr}='{value}' becomes the Ascend op {op}, whose AI Core "
                    f"check_supported accepts only {fact.attr} {'/'.join(map(str, fact.values or ()))}, and the "
                    f"kernel tables list no AI CPU {op} for {where}; ATC may fail (EZ3002)"
                )
            yield self.finding(
                node,
                message,
                hint=f"use {fact.attr} {'/'.join(map(str, fact.values or ()))} if the model allows it, or accept the "
                "AI CPU cost",
                source=f"op_tables/op_facts.json check-supported-rejects; {fact.source}; op_tables/kernels.json",
                data={"ascend_op": op, "family": kernel.family, "release": kernel.release,
                      "reason": "check-supported", "attr": fact.attr, "value": value},
            )

    def _rewrite(self, node: NodeContext, op: str) -> OpFact | None:
        """The fusion-pass fact that moves this op to AI Core for this node, or None."""
        ctx = node.ctx
        for fact in ctx.tables.op_facts_for("ai-core-rewrite", node.op_type, ctx.target.profile.id):
            params = fact.params or {}
            if params.get("ascend_op") != op:
                continue
            inputs = [node.input_name(i) for i in params.get("const_inputs", ())]
            if not all(ctx.is_foldable(name) for name in inputs if name):
                continue
            if not all((k := ctx.kernel(target)) is not None and k.aicore for target in params.get("into", ())):
                continue
            if self._stays_on_aicpu(node, params.get("stays_on_aicpu") or {}):
                continue
            return fact
        return None

    @staticmethod
    def _stays_on_aicpu(node: NodeContext, rules: dict) -> bool:
        out = node.output_info(0)
        if out is not None and out.shape is not None:
            if out.rank in rules.get("output_ranks", ()):
                return True
            if rules.get("zero_output_dims") and any(d == 0 for d in out.shape):
                return True
        index = rules.get("negative_values_input")
        if index is not None and node.input_name(index):
            value = node.ctx.const_value(node.input_name(index))
            if value is not None and (value < 0).any():
                return True
        return False

    @staticmethod
    def _hint(node: NodeContext, op: str) -> str:
        facts = node.ctx.tables.op_facts_for("ai-core-rewrite", node.op_type, node.ctx.target.profile.id)
        for fact in facts:
            params = fact.params or {}
            if params.get("ascend_op") == op:
                inputs = ", ".join(str(i) for i in params.get("const_inputs", ()))
                return (f"make inputs {inputs} constant so a fusion pass moves {op} to "
                        f"{'/'.join(params.get('into', ()))} (atccheck fix: simplify), or accept the AI CPU cost")
        return "rewrite the node into ops with AI Core kernels, or accept the AI CPU cost"
