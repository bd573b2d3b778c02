"""aicpu-fallback: the node becomes an Ascend op that only AI CPU runs on this chip."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import ascend_ops, composite_members, effective_attr, reaches_plugin, same_value
from atccheck.rules._placement import Fusion, KernelView, fp16_casts, judged_op, kernel_source, kernel_view
from atccheck.rules.base import Rule, register
from atccheck.tables import Kernel, OpFact


@register
class AicpuFallback(Rule):
    """The node runs on AI CPU: no AI Core kernel for this chip, AI Core rejects it, or not for its input dtype.

    ## What it does
    Finds the Ascend op(s) the node becomes at its opset (a PartitionedCall's member is
    chosen by kernel rank or attribute where the plugin's rule is known: ScatterND's
    ``reduction`` picks ScatterNdUpdate/Add/Max/Min, the 2022 Trilu's ``upper`` picks Triu or
    Tril) and the op a built-in graph fusion pass leaves in its place before GE picks the
    engine (TensorScatterUpdate becomes TensorMove + ScatterNdUpdate, NonMaxSuppressionV6
    becomes V7, a static Tril/Triu becomes a Mul, Einsum and AffineGrid become BatchMatMul
    graphs), under the pass's conditions (constant or static inputs, dtypes). It looks that op
    up in the kernel tables of the chip's kernel family. Where the plugin's choice is not known
    (a PartitionedCall of several ops, or duplicate registrations of the op), every member is
    judged and the node is as slow as its slowest member. It fires when an op has no AI Core
    kernel but has an AI CPU one, unless a rewrite moves it to an AI Core op (Slice, TopK and
    CumSum with constant inputs, the fusion passes above); when a known ``check_supported``
    rejection sends the op to AI CPU (Resize with mode linear or cubic in the 9.x mapping); and
    when an input dtype is one the AI Core kernel does not take while the AI CPU kernel does.
    The AI Core dtypes are the config's list, or, for ops whose config leaves them to
    ``op_select_format``, what that function offers on this chip for static or dynamic input
    shapes; ``--precision-mode`` counts (force_fp16 casts float32 to float16 where the kernel
    lacks float32). Where the function's answer could not be read, a dtype the published page
    omits and the AI CPU kernel takes gets an info. Findings name the fusion pass that decided
    (``data.fusion_pass``), or the condition that kept it from firing. Nodes computed at
    compile time (constant folding) and ops without a kernel in any engine (GE handles
    Reshape-like ops itself) are not reported.

    ## Why
    ATC converts the model, but the op runs on the AI CPU: slower, and every use moves data
    between AI Core and AI CPU.

    ## Example
    ``ScatterElements`` on Ascend310P3 (CANN 8.1 kernels): AI CPU only. ``Add`` with double
    inputs on Ascend310P3: Add's op_select_format offers no double there, the AI CPU Add takes it.

    ## Fix
    Rewrite the node into ops with AI Core kernels, cast the input to a dtype the AI Core kernel
    takes, make the inputs a fusion pass needs constant, or accept the cost. When those inputs
    are shape computations that fold once the input shapes are static, ``atccheck fix`` folds
    them (the Fix line names the pass).

    ## Facts
    ``op_tables/kernels.json`` (op-info configs of the CANN 8.1.RC1 package and the 2022
    canndev tree, AI CPU kernel configs; for op_select_format ops ``aicore.select_format``,
    from ``op_tables/curated/op_select_format.json``: each op's ``op_select_format`` in
    leideng/CANN-8.1.RC1 ``opp/built-in/op_impl/ai_core/tbe/impl/{,dynamic/}*.py``@551ed27c and
    dengguojie/vue-element-admin ``ops/built-in/tbe/impl/{,dynamic/}*.py``@7d77ce32d, evaluated
    with the SoC's platform ini and the release's DSL_CHECK_SUPPORT_MAP);
    ``op_tables/registry.json`` (each registration's Ascend op or PartitionedCall members);
    ``op_tables/op_facts.json`` kinds ``partitioned-call-member``, ``check-supported-rejects``
    (impl/dynamic/resize.py), ``ai-core-rewrite`` (strided_slice_v2, top_k and const2attr
    fusion passes) and ``fusion-pass`` (``op_tables/curated/fusion_passes.json``: the 2022
    canndev ``ops/built-in/fusion_pass/graph_fusion/ai_core`` passes for TensorScatterUpdate,
    NonMaxSuppressionV6, Tril, Triu, Range, Einsum, AffineGrid, GlobalAveragePool, AvgPool3D and
    HardMax; hicann/ops-math ``math/reduce_mean/op_graph/fusion_pass/globalavgpool_fusion_pass.cpp``@c41933244; hicann/ops-nn
    ``index/scatter_nd_update/op_graph/fusion_pass/tensor_scatter_update_fusion_pass.cpp``@2ed4b883;
    hicann/ops-nn ``common/src/framework/scatter_nd_onnx_plugin.cpp``@e5c3fa932 for ScatterND's
    members); ``atc_options.json`` ``precision_fp16_casts``.
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
            judged, fusion = judged_op(node, op)
            kernel = ctx.kernel(judged)
            if kernel is None:
                continue  # no kernel in any engine's config: nothing this rule can claim
            if kernel.aicore:
                yield from self._check_supported(node, op, kernel)
                yield from self._dtype_placement(node, judged, kernel, fusion)
                continue
            if not kernel.aicpu:
                continue
            rewrite = self._rewrite(node, op)
            if rewrite is not None:
                continue
            advice = self._advice(node, op)
            passed = (f" (the graph fusion pass {fusion.pass_name} replaces {op} by {'+'.join(fusion.into)})"
                      if fusion is not None and fusion.fires else "")
            declined = (f"; the graph fusion pass {fusion.pass_name} leaves it, since {fusion.reason}"
                        if fusion is not None and not fusion.fires else "")
            yield self.finding(
                node,
                f"{node.op_type} becomes the Ascend op {judged}{passed}, which has no AI Core kernel for "
                f"{ctx.target.soc.name} ({kernel.family}, kernels of {kernel.release}) but has an AI CPU kernel: "
                f"it runs on AI CPU (CANN {profile.id}){declined}",
                hint=advice["hint"],
                fix_hint=advice.get("fix_hint"),
                source=f"op_tables/kernels.json {kernel.release} {kernel.family} {judged}; {kernel.source}"
                       + self._fusion_source(fusion),
                data={"ascend_op": judged, "family": kernel.family, "release": kernel.release,
                      "reason": "no-ai-core-kernel", "foldable_once_static": advice["foldable_once_static"],
                      **self._fusion_data(fusion)},
            )

    def _dtype_placement(self, node: NodeContext, op: str, kernel: Kernel, fusion: Fusion | None) -> Iterable[Finding]:
        """An input dtype the AI Core kernel does not offer (its config list, or what op_select_format offers on
        this chip) while the AI CPU kernel takes it: a warning; where op_select_format's answer could not be
        read, an info when the published page omits the dtype too."""
        ctx = node.ctx
        target = ctx.target
        casts = fp16_casts(node)
        slow: list[tuple[int, str, KernelView]] = []
        unread: list[tuple[int, str, KernelView]] = []
        for index, name in enumerate(node.node.input):
            if not name or ctx.is_foldable(name):
                continue
            info = ctx.info(name)
            dtype = info.dtype_name if info is not None else None
            if not dtype or any(d == dtype for _, d, _ in slow + unread):
                continue
            view = kernel_view(node, op, kernel, index, dtype, casts)
            if view.aicpu_accepts is False:
                continue  # neither engine, or the host CPU: dtype-not-supported speaks
            if view.aicore_accepts is False:
                slow.append((index, dtype, view))
            elif view.aicore_accepts is None and view.unknown and view.aicpu_accepts and self._page_omits(
                    node, index, dtype):
                unread.append((index, dtype, view))
        where = f"{target.soc.name} ({kernel.family}, kernels of {kernel.release})"
        via = (f" (the graph fusion pass {fusion.pass_name} replaces the plugin's op by {'+'.join(fusion.into)})"
               if fusion is not None and fusion.fires else "")
        if slow:
            index, dtype, view = slow[0]
            dtypes = [d for _, d, _ in slow]
            what = "what op_select_format offers" if view.select_format else "the config's list"
            shapes = f" for {'dynamic' if view.dynamic else 'static'} input shapes" if view.select_format else ""
            yield self.finding(
                node,
                f"{node.op_type} input {index} is {'/'.join(dtypes)}: it becomes the Ascend op {op}{via}, whose AI "
                f"Core kernel on {where} takes {'/'.join(view.listed or ())}{shapes} ({what}), while its AI CPU "
                f"kernel takes {dtype}: it runs on AI CPU (precision mode {target.precision_mode})",
                hint=f"cast the input to {'/'.join(view.listed or ())} to keep {op} on AI Core, or accept the AI CPU "
                     f"cost",
                source=kernel_source(view) + self._fusion_source(fusion),
                data={"ascend_op": op, "family": kernel.family, "release": kernel.release,
                      "reason": "dtype-not-on-ai-core", "dtype": dtype, "dtypes": dtypes, "input": index,
                      "aicore_dtypes": list(view.listed or ()), "allowed": list(view.listed or ()),
                      "fact": "select-format" if view.select_format else "config",
                      "shapes": "dynamic" if view.dynamic else "static",
                      "precision_mode": target.precision_mode, **self._fusion_data(fusion)},
            )
        elif unread:
            index, dtype, view = unread[0]
            yield self.finding(
                node,
                f"{node.op_type} input {index} is {dtype}: it becomes the Ascend op {op}{via}, whose AI Core dtypes on "
                f"{where} op_select_format chooses, and its answer is unknown ({view.unknown}); the published page "
                f"omits {dtype} and the AI CPU kernel takes it, so it may run on AI CPU",
                hint=f"cast the input to a dtype the published page lists to keep {op} on AI Core",
                source=kernel_source(view) + self._fusion_source(fusion),
                severity=Severity.INFO,
                data={"ascend_op": op, "family": kernel.family, "release": kernel.release,
                      "reason": "select-format-unknown", "dtypes": [dtype], "input": index,
                      "unknown": view.unknown, "shapes": "dynamic" if view.dynamic else "static",
                      **self._fusion_data(fusion)},
            )

    @staticmethod
    def _page_omits(node: NodeContext, index: int, dtype: str) -> bool:
        """The published page lists input dtypes for this input and ``dtype`` is not among them (casts counted)."""
        spec = node.ctx.tables.op_specs.get(node.op_type)
        item = spec.input(index) if spec is not None else None
        if item is None or not item.dtypes:
            return False
        return dtype not in item.dtypes and not (dtype in fp16_casts(node) and "float16" in item.dtypes)

    @staticmethod
    def _fusion_source(fusion: Fusion | None) -> str:
        return f"; op_tables/op_facts.json fusion-pass {fusion.pass_name}: {fusion.fact.source}" if fusion else ""

    @staticmethod
    def _fusion_data(fusion: Fusion | None) -> dict:
        if fusion is None:
            return {}
        data = {"fusion_pass": fusion.pass_name, "fusion_fires": fusion.fires}
        if not fusion.fires:
            data["fusion_declined"] = fusion.reason
        return data

    def _composite(self, node: NodeContext) -> Iterable[Finding]:
        """Several Ascend ops (a PartitionedCall, or duplicate registrations): as slow as the slowest member."""
        ctx = node.ctx
        members = composite_members(node)
        slow: list[tuple[str, Kernel]] = []
        passes: list[Fusion] = []
        for member in members:
            op, fusion = judged_op(node, member)
            if fusion is not None:
                passes.append(fusion)
            kernel = ctx.kernel(op)
            if kernel is None or kernel.aicore or not kernel.aicpu or self._rewrite(node, member) is not None:
                continue
            if op not in [o for o, _ in slow]:
                slow.append((op, kernel))
        if not slow:
            return
        names = [op for op, _ in slow]
        kernel = slow[0][1]
        advice = self._advice(node, names[0])
        reg = ctx.registration(node.gnode)
        how = ("duplicate registrations" if reg is not None and node.opset is not None
               and len(reg.mapping_at(node.opset)) > 1 else "a PartitionedCall")
        fired = [f for f in passes if f.fires]
        declined = [f for f in passes if not f.fires]
        notes = "".join(f"; the graph fusion pass {f.pass_name} replaces {f.ascend_op} by "
                        f"{'+'.join(f.into)}" for f in fired)
        notes += "".join(f"; the graph fusion pass {f.pass_name} leaves {f.ascend_op}, since {f.reason}"
                         for f in declined)
        data: dict[str, object] = {"ascend_op": names[0], "ascend_ops": names, "members": list(members), "family": kernel.family,
                "release": kernel.release, "reason": "composite-member",
                "foldable_once_static": advice["foldable_once_static"]}
        if passes:
            data["fusion_passes"] = {f.pass_name: ("fires" if f.fires else f.reason) for f in passes}
        yield self.finding(
            node,
            f"{node.op_type} becomes {how} of {', '.join(members)}; {', '.join(names)} "
            f"{'has' if len(names) == 1 else 'have'} no AI Core kernel for {ctx.target.soc.name} ({kernel.family}, "
            f"kernels of {kernel.release}) but an AI CPU one: the node runs on AI CPU, as slow as its slowest member "
            f"(CANN {ctx.target.profile.id}){notes}",
            hint=advice["hint"],
            fix_hint=advice.get("fix_hint"),
            source=(f"op_tables/registry.json {node.parser_key} (Ascend mapping); op_tables/kernels.json "
                    f"{kernel.release} {kernel.family} {', '.join(names)}; {kernel.source}"
                    + "".join(self._fusion_source(f) for f in passes)),
            data=data,
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
    def _advice(node: NodeContext, op: str) -> dict[str, Any]:
        """The hint (and the hint when a pass answers) for an op on AI CPU, and whether the inputs a
        fusion pass needs constant become foldable once the input shapes are static (the data
        simplify's link reads)."""
        facts = node.ctx.tables.op_facts_for("ai-core-rewrite", node.op_type, node.ctx.target.profile.id)
        for fact in facts:
            params = fact.params or {}
            if params.get("ascend_op") == op:
                inputs = ", ".join(str(i) for i in params.get("const_inputs", ()))
                names = [node.input_name(i) for i in params.get("const_inputs", ())]
                once_static = all(node.ctx.graph.is_foldable(name, _shapes_static) for name in names if name)
                into = "/".join(params.get("into", ()))
                return {
                    "hint": f"make inputs {inputs} constant so a fusion pass moves {op} to {into}, or accept the "
                            "AI CPU cost",
                    "fix_hint": f"fix the input shapes, then 'atccheck fix' ({{pass_name}}) folds inputs {inputs} "
                                f"into constants so a fusion pass moves {op} to {into}; or accept the AI CPU cost",
                    "foldable_once_static": once_static,
                }
        return {"hint": "rewrite the node into ops with AI Core kernels, or accept the AI CPU cost",
                "foldable_once_static": False}


def _shapes_static(_name: str) -> bool:
    """Foldability as if every shape were static (Shape and Size of anything fold)."""
    return True
