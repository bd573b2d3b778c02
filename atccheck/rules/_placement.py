"""Where an Ascend op runs for a node: the graph fusion pass that replaces it, and the engine a dtype gets.

Shared by aicpu-fallback and dtype-not-supported. The facts are table data: ``fusion-pass`` facts in
``op_facts.json`` (from ``op_tables/curated/fusion_passes.json``) and the kernels' dtype lists in
``kernels.json``, where an op_select_format kernel carries what its function offers per shape kind
(from ``op_tables/curated/op_select_format.json``).
"""

from __future__ import annotations

from dataclasses import dataclass

from atccheck.context import NodeContext
from atccheck.model.schema import onnx_schema
from atccheck.tables import Kernel, OpFact

# --------------------------------------------------------------------------- fusion passes


@dataclass(frozen=True)
class Fusion:
    """A fusion pass's verdict on one node: whether it fires, and if not, the condition that stops it."""

    fact: OpFact
    fires: bool
    reason: str  # why it does not fire ("" when it fires)

    @property
    def pass_name(self) -> str:
        return str((self.fact.params or {}).get("pass"))

    @property
    def ascend_op(self) -> str:
        return str((self.fact.params or {}).get("ascend_op"))

    @property
    def main(self) -> str:
        return str((self.fact.params or {}).get("main"))

    @property
    def into(self) -> tuple[str, ...]:
        return tuple((self.fact.params or {}).get("into", ()))


def fusion_for(node: NodeContext, ascend_op: str) -> Fusion | None:
    """The fusion pass of the target's profile that matches this Ascend op on this node, or None."""
    ctx = node.ctx
    for fact in ctx.tables.op_facts_for("fusion-pass", node.op_type, ctx.target.profile.id):
        params = fact.params or {}
        if params.get("ascend_op") != ascend_op:
            continue
        reason = _unmet(node, params.get("conditions") or {}, str(params.get("main")))
        return Fusion(fact, fires=not reason, reason=reason)
    return None


def judged_op(node: NodeContext, ascend_op: str) -> tuple[str, Fusion | None]:
    """The op whose kernels decide the node's placement: the main op a firing fusion pass leaves, else the op."""
    fusion = fusion_for(node, ascend_op)
    if fusion is not None and fusion.fires:
        return fusion.main, fusion
    return ascend_op, fusion


def is_dynamic(node: NodeContext, index: int = 0) -> bool:
    """Whether an input's shape has a dim unknown at these input shapes (after folding)."""
    info = node.input_info(index)
    return info is None or info.shape is None or not all(isinstance(d, int) and d >= 0 for d in info.shape)


def _unmet(node: NodeContext, conditions: dict, main: str) -> str:
    """The first condition of a pass this node does not meet, in words; "" when it meets them all."""
    ctx = node.ctx
    for index in conditions.get("const_inputs", ()):
        name = node.input_name(index)
        if name and not ctx.is_foldable(name):
            return f"input {index} is not a constant"
    for index in conditions.get("static_inputs", ()):
        if node.input_name(index) and is_dynamic(node, index):
            return f"input {index} has a dynamic shape"
    info = node.input_info(0)
    dtype = info.dtype_name if info is not None else None
    allowed = conditions.get("dtypes")
    if allowed and dtype not in allowed:
        return f"input 0 is {dtype}, not {'/'.join(allowed)}"
    if dtype in conditions.get("dtypes_excluded", ()):
        return f"input 0 is {dtype}"
    if conditions.get("main_takes_dtype"):
        kernel = ctx.kernel(main)
        listed = kernel.aicore_dtypes if kernel is not None and kernel.aicore else ()
        if listed is not None and dtype not in listed:
            return f"the {main} AI Core kernel does not take {dtype}"
    limit = conditions.get("max_inputs")
    if limit is not None and len([i for i in node.node.input if i]) > limit:
        return f"it has more than {limit} inputs"
    equations = conditions.get("dynamic_equations")
    if equations and any(is_dynamic(node, i) for i in range(len(node.node.input)) if node.input_name(i)):
        equation = normalized_equation(str(node.attrs.get("equation", "")))
        if equation not in equations:
            return f"the equation {equation} is not one it rewrites with dynamic shapes"
    return ""


def normalized_equation(equation: str) -> str:
    """An einsum equation with its letters renamed a, b, c... in order of appearance, spaces dropped."""
    names: dict[str, str] = {}
    out = []
    for ch in equation.replace(" ", ""):
        if ch.isalpha():
            ch = names.setdefault(ch, chr(ord("a") + len(names)))
        out.append(ch)
    return "".join(out)


# --------------------------------------------------------------------------- dtypes


@dataclass(frozen=True)
class KernelView:
    """What the kernel tables say about one input dtype for the node's Ascend op."""

    op: str
    kernel: Kernel
    aicore_accepts: bool | None  # None: not known (an op_select_format answer not read, or not for this input)
    aicpu_accepts: bool | None  # None: AI CPU kernel without a dtype list
    listed: tuple[str, ...] | None = None  # the AI Core dtypes judged against
    select_format: bool = False  # the list is op_select_format's answer (curated), not the config's
    unknown: str | None = None  # why op_select_format's answer is unknown, where it is
    dynamic: bool = False  # the answer for dynamic input shapes


def data_inputs(node: NodeContext) -> frozenset[int]:
    """The inputs whose dtype an op_select_format answer speaks for: input 0 and those sharing its ONNX type."""
    schema = onnx_schema(node.op_type, node.opset or 1)
    count = len(node.node.input)
    if schema is None or not schema.inputs:
        return frozenset({0})
    formals = list(schema.inputs)
    first = formals[0].type_str
    found = set()
    for index in range(count):
        formal = formals[min(index, len(formals) - 1)]
        if (index < len(formals) or str(formal.option).endswith("Variadic")) and formal.type_str == first:
            found.add(index)
    return frozenset(found)


def kernel_view(node: NodeContext, op: str, kernel: Kernel, index: int, dtype: str,
                casts: frozenset[str]) -> KernelView:
    """The engines that take ``dtype`` at input ``index`` of the node's Ascend op ``op``: the config's dtype list,
    or op_select_format's answer for the node's shape kind (static or dynamic)."""
    if not kernel.aicpu:
        cpu: bool | None = False
    elif kernel.aicpu_dtypes:
        cpu = dtype in kernel.aicpu_dtypes
    else:
        cpu = None
    if not kernel.aicore:
        return KernelView(op, kernel, False, cpu)
    if kernel.select_format is None:
        listed = kernel.aicore_dtypes
        core = None if listed is None else _takes(listed, dtype, casts)
        return KernelView(op, kernel, core, cpu, listed)
    dynamic = is_dynamic(node)
    answer = kernel.select_format_answer(dynamic) or {}
    if index not in data_inputs(node):
        return KernelView(op, kernel, None, cpu, None, True, None, dynamic)
    if answer.get("no_kernel"):
        # no dynamic-shape kernel: dynamic-shape-unsupported speaks; judge the static answer
        answer = kernel.select_format_answer(False) or {}
    dtypes = answer.get("dtypes")
    if dtypes is None:
        return KernelView(op, kernel, None, cpu, None, True, answer.get("unknown") or "not read", dynamic)
    listed = tuple(dtypes)
    return KernelView(op, kernel, _takes(listed, dtype, casts), cpu, listed, True, None, dynamic)


def _takes(listed: tuple[str, ...], dtype: str, casts: frozenset[str]) -> bool:
    return dtype in listed or (dtype in casts and "float16" in listed)


def fp16_cast_dtypes(node: NodeContext) -> frozenset[str]:
    """The dtypes a casting --precision_mode turns into float16 where an op lacks them
    (atc_options.json precision_fp16_casts: float32 and bfloat16)."""
    return frozenset(node.ctx.tables.atc_options_extra["precision_fp16_casts"]["dtypes"])


def fp16_casts(node: NodeContext) -> frozenset[str]:
    """Those dtypes under the target's precision mode; none when must_keep_origin_dtype keeps them."""
    return frozenset() if node.ctx.target.precision_class == "origin" else fp16_cast_dtypes(node)


def kernel_source(view: KernelView) -> str:
    """The facts a view rests on, for a finding's source."""
    kernel = view.kernel
    text = f"op_tables/kernels.json {kernel.release} {kernel.family} {view.op}"
    if view.select_format:
        answer = kernel.select_format_answer(view.dynamic) or {}
        where = answer.get("source") or ""
        text += f" (op_select_format, {'dynamic' if view.dynamic else 'static'} shapes: " \
                f"op_tables/curated/op_select_format.json{'; ' + where if where else ''})"
    return f"{text}; {kernel.source}"
