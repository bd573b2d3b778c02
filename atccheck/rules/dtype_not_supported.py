"""dtype-not-supported: an input dtype the published page or the chip's kernels do not take."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import ascend_ops, fact_applies, formal_input_names, reaches_plugin
from atccheck.rules.base import Rule, register
from atccheck.tables import Kernel, OpSpec, SpecInput

FOLD_SOURCE = "atc_options.json --oo_constant_folding (default true)"


@dataclass(frozen=True)
class KernelView:
    """What the kernel tables say about one dtype for the node's Ascend op."""

    op: str
    kernel: Kernel
    aicore_accepts: bool | None  # None: no dtype list (op_select_format)
    aicpu_accepts: bool | None  # None: AI CPU kernel without a dtype list


@register
class DtypeNotSupported(Rule):
    """An input dtype that neither the published page nor, for errors, any kernel on the chip takes.

    ## What it does
    For each input of a node (values computed at compile time are skipped: ATC folds
    them), compares the inferred dtype with the published page's dtype list and with the
    kernel tables of the Ascend op the node becomes (AI Core dtype list, AI CPU kernel and
    its dtypes), read together with ``--precision-mode``: under force_fp16 and the mixed
    modes float32 compute is cast to float16, so a float16-only list accepts float32; under
    must_keep_origin_dtype it does not. It is an error only when the facts say no kernel in
    either engine takes the dtype, or a page says the precision mode rejects it; a warning
    when only the page omits the dtype or only AI CPU takes it. Where the AI Core dtypes
    are chosen by ``op_select_format`` (no list in the configs), a dtype the page omits is
    judged by the AI CPU facts: a warning that it runs on AI CPU when an AI CPU kernel takes
    it, an error when the op has no AI CPU kernel that does (a warning for profiles the 9.0
    pages do not speak for, and a warning naming the host CPU kernel where the package
    lists one). A dtype the page lists is not judged there: which engine takes it is
    op_select_format's choice, which the configs do not record. A Cast to a dtype the page's output list omits (int64) is a
    warning.

    Shapes and values are those after constant folding at the given input shapes (the
    shape arithmetic of ``Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape`` chains
    is evaluated, see ``atccheck/model/folding.py``). A node whose every output folds is
    not counted: where its dtypes would otherwise be a warning or an error, one info says
    that it folds.

    ## Why
    ATC needs a kernel for every op and dtype: without one it stops (EZ3003 'No supported
    Ops kernel and engine are found'); with only an AI CPU one the op leaves AI Core. Pages
    that omit a dtype leave the conversion to chance (an inserted Cast, or AI CPU).

    ## Example
    ``Conv`` with float32 input under ``--precision-mode must_keep_origin_dtype``: the
    Conv page says fp32 is rejected in that mode.

    ## Fix
    Cast the input to a supported dtype at export time (or insert a Cast), or choose a
    precision mode that casts float32 to float16.

    ## Facts
    ``op_tables/op_spec.json`` (published pages: input and output dtypes);
    ``op_tables/kernels.json`` (op-info and AI CPU configs per kernel family);
    ``op_tables/op_facts.json`` kind ``origin-dtype-rejected`` (the pages' must_keep_origin_dtype
    statements); ``atc_options.json`` --precision_mode meanings (``precision_fp16_casts``: the
    dtypes a casting mode turns into float16) and ``--oo_constant_folding``
    (default true: constant subgraphs are computed at compile time); the ``op_select_format``
    flag (``ascend_op_kernels.json`` how_to_read, notes/cann_source.md section 7).
    """

    code = "AC304"
    name = "dtype-not-supported"
    severity = Severity.WARNING
    op_types = None

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        if not is_standard(node.domain) or node.op_type in ctx.tables.native_types:
            return
        if not reaches_plugin(node):
            return
        spec = ctx.tables.op_specs.get(node.op_type)
        ops = ascend_ops(node) if ctx.has_kernel_facts else None
        kernel_op = ops[0] if ops and len(ops) == 1 else None
        kernel = ctx.kernel(kernel_op) if kernel_op else None
        names = formal_input_names(node.op_type, node.opset)
        latest = formal_input_names(node.op_type, max(node.opset or 1, 18))
        casts = _fp16_casts(node)
        outputs = [o for o in node.node.output if o]
        folds = bool(outputs) and all(ctx.is_foldable(o) for o in outputs)
        seen: dict[tuple[str, str], Finding] = {}
        for index, name in enumerate(node.node.input):
            if not name or (ctx.is_foldable(name) and not folds):
                continue
            info = ctx.info(name)
            dtype = info.dtype_name if info is not None else None
            if not dtype:
                continue
            item = self._page_input(spec, names, latest, index)
            view = self._kernel_view(kernel_op, kernel, dtype, casts) if kernel_op and kernel is not None else None
            finding = self._judge(node, index, names, dtype, spec, item, view)
            if finding is None:
                continue
            key = (dtype, finding.data.get("fact", ""))
            if key in seen:
                continue  # the same dtype judged the same way on another input: reported once
            seen[key] = finding
            if not folds:
                yield finding
        if folds:
            yield from self._folded(node, list(seen.values()))
            return
        if node.op_type == "Cast" and spec is not None:
            yield from self._cast_output(node, spec)

    # ---------------------------------------------------------------- facts

    @staticmethod
    def _page_input(spec: OpSpec | None, names: list[str], latest: list[str], index: int) -> SpecInput | None:
        if spec is None:
            return None
        if index < len(names):
            formal = names[index]
            if formal not in latest:
                return None  # an input of an older opset the page does not number
            return spec.input(latest.index(formal))
        return spec.input(index)  # variadic tail

    def _accepts(self, node: NodeContext, dtype: str, allowed: Iterable[str]) -> bool:
        allowed = set(allowed)
        if dtype in allowed:
            return True
        return dtype in _fp16_casts(node) and "float16" in allowed

    @staticmethod
    def _kernel_view(op: str, kernel: Kernel, dtype: str, casts: frozenset[str]) -> KernelView:
        if kernel.aicore:
            listed = kernel.aicore_dtypes
            core = None if listed is None else dtype in listed or (
                dtype in casts and "float16" in listed)
        else:
            core = False
        if not kernel.aicpu:
            cpu: bool | None = False
        elif kernel.aicpu_dtypes:
            cpu = dtype in kernel.aicpu_dtypes
        else:
            cpu = None
        return KernelView(op, kernel, core, cpu)

    def _judge(self, node: NodeContext, index: int, names: list[str], dtype: str, spec: OpSpec | None,
               item: SpecInput | None, view: KernelView | None) -> Finding | None:
        ctx = node.ctx
        target = ctx.target
        formal = names[index] if index < len(names) else f"input {index}"
        label = f"{node.op_type} input {index} ({formal}) is {dtype}"
        mode = target.precision_mode
        # 1. a page says this precision mode rejects the dtype
        if target.precision_class == "origin":
            for fact in ctx.tables.op_facts_for("origin-dtype-rejected", node.op_type, target.profile.id):
                if fact_applies(node, fact) and dtype in (fact.values or ()):
                    return self.finding(
                        node,
                        f"{label}: the published page says {'/'.join(fact.values or ())} input is rejected under "
                        f"--precision_mode={mode} (CANN {target.profile.id})",
                        hint="use a precision mode that casts to float16 (force_fp16, allow_fp32_to_fp16), or cast "
                        "the input",
                        source=f"op_tables/op_facts.json origin-dtype-rejected; {fact.source}",
                        severity=Severity.ERROR,
                        data=self._data(index, dtype, None, "page:origin-mode", mode),
                    )
        page = list(item.dtypes) if item is not None and item.dtypes else None
        page_ok = None if page is None else self._accepts(node, dtype, page)
        page_speaks = target.profile.published_pages
        # 2. the kernel tables decide where they know
        if view is not None and view.aicore_accepts is not None:
            if view.aicore_accepts:
                return None  # an AI Core kernel takes it: the source wins over a page that omits it
            if not view.kernel.aicore and view.aicpu_accepts is not False:
                return None  # an AI-CPU-only op that takes the dtype: aicpu-fallback reports the op
            core = view.kernel.aicore_dtypes if view.kernel.aicore else None
            core_text = f"its AI Core kernel takes {'/'.join(core)}" if core else "it has no AI Core kernel"
            where = f"{view.op} on {target.soc.name} ({view.kernel.family}, kernels of {view.kernel.release})"
            source = (f"op_tables/kernels.json {view.kernel.release} {view.kernel.family} {view.op}; "
                      f"{view.kernel.source}")
            if view.aicpu_accepts is False and not view.kernel.host_cpu:
                cpu_text = (f"its AI CPU kernel takes {'/'.join(view.kernel.aicpu_dtypes)}" if view.kernel.aicpu
                            else "it has no AI CPU kernel")
                return self.finding(
                    node,
                    f"{label}: {node.op_type} becomes {where}; {core_text} and {cpu_text}, so no kernel takes "
                    f"{dtype} (precision mode {mode}); ATC fails with EZ3003",
                    hint=f"cast the input to a dtype the kernel takes ({'/'.join(core or view.kernel.aicpu_dtypes)})",
                    source=source, severity=Severity.ERROR, atc_error="EZ3003",
                    data=self._data(index, dtype, list(core or ()), "kernels", mode),
                )
            if view.aicpu_accepts is not False:
                return self.finding(
                    node,
                    f"{label}: {node.op_type} becomes {where}; {core_text}, so {dtype} runs on the AI CPU kernel "
                    f"(precision mode {mode})",
                    hint="cast the input to a dtype the AI Core kernel takes, or accept the AI CPU cost",
                    source=source,
                    data=self._data(index, dtype, list(core or ()), "kernels:aicpu", mode),
                )
        # 3. the AI Core dtypes are chosen by op_select_format (no list): the page's list and the AI CPU
        # facts decide together
        if view is not None and view.kernel.aicore and view.aicore_accepts is None and page_ok is False:
            found = self._select_format(node, label, dtype, page or [], view, page_speaks, index)
            if found is not None:
                return found
        # 4. only the page speaks
        if page_ok is False and page is not None:  # page_ok is None when there is no page
            severity = Severity.WARNING if page_speaks else Severity.INFO
            scope = "" if page_speaks else f" (the 9.0 pages do not speak for CANN {target.profile.id})"
            mode_note = (" and --precision_mode keeps float32 as float32" if target.precision_class == "origin"
                         and dtype in _fp16_cast_dtypes(node) and "float16" in page else "")
            return self.finding(
                node,
                f"{label}: the published page lists {'/'.join(page)}{mode_note}; ATC may insert a Cast or use "
                f"AI CPU, or fail (no kernel dtype facts for this op){scope}",
                hint=f"cast the input to {'/'.join(page)} at export time",
                source=f"op_tables/op_spec.json {node.op_type}; {spec.source if spec else ''}",
                severity=severity,
                data=self._data(index, dtype, page, "page", mode),
            )
        return None

    def _select_format(self, node: NodeContext, label: str, dtype: str, page: list[str], view: KernelView,
                       page_speaks: bool, index: int) -> Finding | None:
        """A dtype the page omits, on an op whose AI Core dtypes op_select_format picks: AI CPU or nothing."""
        target = node.ctx.target
        kernel = view.kernel
        where = f"{view.op} on {target.soc.name} ({kernel.family}, kernels of {kernel.release})"
        scope = "" if page_speaks else f" (the 9.0 pages do not speak for CANN {target.profile.id})"
        source = (f"op_tables/op_spec.json {node.op_type}; op_tables/kernels.json {kernel.release} {kernel.family} "
                  f"{view.op} (op_select_format, AI CPU); {kernel.source}")
        head = (f"{label}: the published page lists {'/'.join(page)}{scope}; {node.op_type} becomes {where}, whose "
                f"AI Core dtypes op_select_format chooses (no list in the configs)")
        if view.aicpu_accepts is not False:
            return self.finding(
                node, f"{head}, and its AI CPU kernel takes {dtype}: it runs on AI CPU (precision mode "
                f"{target.precision_mode})",
                hint=f"cast the input to {'/'.join(page)} to keep the op on AI Core, or accept the AI CPU cost",
                source=source,
                data=self._data(index, dtype, page, "page+aicpu", target.precision_mode),
            )
        if kernel.host_cpu:
            return self.finding(
                node, f"{head}; it has no AI CPU kernel, only a host CPU one (host_cpu_kernel.json): ATC may run "
                f"{dtype} on the host CPU, or fail with EZ3003 (precision mode {target.precision_mode})",
                hint=f"cast the input to {'/'.join(page)} at export time",
                source=f"{source}; host CPU kernel config of the package",
                data=self._data(index, dtype, page, "page+host-cpu", target.precision_mode),
            )
        cpu_text = (f"its AI CPU kernel takes {'/'.join(kernel.aicpu_dtypes)}" if kernel.aicpu
                    else "it has no AI CPU kernel")
        return self.finding(
            node, f"{head}, and {cpu_text}: no engine is left to place {dtype} on (precision mode "
            f"{target.precision_mode}); ATC fails with EZ3003",
            hint=f"cast the input to {'/'.join(page)} at export time",
            source=source, severity=Severity.ERROR if page_speaks else Severity.WARNING,
            atc_error="EZ3003" if page_speaks else None,
            data=self._data(index, dtype, page, "page+no-aicpu", target.precision_mode),
        )

    def _folded(self, node: NodeContext, judged: list[Finding]) -> Iterable[Finding]:
        """One info for a node constant folding removes, where its dtypes would otherwise be judged."""
        worst = [f for f in judged if f.severity in (Severity.ERROR, Severity.WARNING)]
        if not worst:
            return
        dtypes = sorted({str(f.data.get("dtype")) for f in worst})
        severity = "error" if any(f.severity is Severity.ERROR for f in worst) else "warning"
        yield self.finding(
            node,
            f"{node.op_type} with {'/'.join(dtypes)} input is computed at compile time at these input shapes "
            f"(every input is a constant or the shape of a static tensor): ATC's constant folding removes it, so "
            f"its dtype needs no kernel (on the device it would be a{'n' if severity == 'error' else ''} {severity})",
            hint="nothing to do; 'atccheck fix' (simplify) folds it in the file too",
            source=f"{FOLD_SOURCE}; {worst[0].source}",
            severity=Severity.INFO,
            data={"dtypes": dtypes, "fact": "folded", "unfolded_severity": severity},
        )

    def _cast_output(self, node: NodeContext, spec: OpSpec) -> Iterable[Finding]:
        ctx = node.ctx
        out = node.node.output[0] if node.node.output else ""
        if not out or ctx.is_foldable(out):
            return
        info = ctx.info(out)
        dtype = info.dtype_name if info is not None else None
        listed = [o for o in spec.outputs if o.get("dtypes")]
        if not dtype or not listed:
            return
        allowed = list(listed[0]["dtypes"])
        if dtype in allowed:
            return
        page_speaks = ctx.target.profile.published_pages
        yield self.finding(
            node,
            f"Cast to {dtype}: the published Cast page lists outputs {'/'.join(allowed)} only, without {dtype}"
            + ("" if page_speaks else f" (the 9.0 pages do not speak for CANN {ctx.target.profile.id})"),
            hint=f"cast to one of {'/'.join(allowed)} if the consumers allow it",
            source=f"op_tables/op_spec.json Cast outputs; {spec.source}",
            severity=Severity.WARNING if page_speaks else Severity.INFO,
            data={"output_dtype": dtype, "allowed": allowed, "fact": "page"},
        )

    @staticmethod
    def _data(index: int, dtype: str, allowed: list[str] | None, fact: str, mode: str) -> dict:
        return {"input": index, "dtype": dtype, "allowed": allowed, "fact": fact, "precision_mode": mode}


def _fp16_cast_dtypes(node: NodeContext) -> frozenset[str]:
    """The dtypes a casting --precision_mode turns into float16 where an op lacks them
    (atc_options.json precision_fp16_casts: float32 and bfloat16)."""
    return frozenset(node.ctx.tables.atc_options_extra["precision_fp16_casts"]["dtypes"])


def _fp16_casts(node: NodeContext) -> frozenset[str]:
    """Those dtypes under the target's precision mode; none when must_keep_origin_dtype keeps them."""
    return frozenset() if node.ctx.target.precision_class == "origin" else _fp16_cast_dtypes(node)
