"""Which dtype each node computes in under a precision mode: GE's dtype selection, restated.

For every root-graph node with a float32 tensor, :func:`assign_dtypes` says in which dtype ATC
will compute it (float32, float16 or bfloat16), from:

- the precision mode's strategy (``op_tables/precision.json`` ``modes`` and ``strategies``:
  force-low, prefer-origin, mixed, origin, force-fp32);
- for the mixed modes, the op's precision_reduce policy on the chip (white, black, gray; gray
  follows the dtype of its first float input's producer);
- the dtypes the chip's AI Core kernel lists (``Kernel.aicore_dtypes``; None when the configs
  leave them to ``op_select_format``, in which case the mode's wish is taken and the basis says
  it was assumed); an op with only an AI CPU kernel keeps float32;
- the ``--keep_dtype`` list and the dtype-sensitive ops (Cast), matched like allow_fp32_to_fp16
  without its cube-first step.

Only float32 tensors of the model are lowered; other dtypes are left as they are. Nothing here
runs a model: :mod:`atccheck.precision.simulate` turns the assignment into rounding points.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from atccheck.context import CheckContext, NodeContext
from atccheck.errors import UsageError
from atccheck.findings import ROOT_GRAPH
from atccheck.model.graph import GraphNode
from atccheck.tables import PrecisionFacts, PrecisionMode

FLOAT32 = "float32"
FLOAT16 = "float16"
BFLOAT16 = "bfloat16"
# Precision order: a value rounded to a narrower dtype loses bits, widening is exact.
WIDTH = {BFLOAT16: 8, FLOAT16: 11, FLOAT32: 24}  # significand bits


@dataclass(frozen=True)
class NodeDtype:
    """How one node computes: the dtype its float inputs are rounded to and its float outputs stored in."""

    index: int  # position in the root graph
    name: str  # the name ATC's parser gives the node (what --keep_dtype names)
    op_type: str
    ascend_ops: tuple[str, ...]
    inputs: str  # dtype its float32 inputs are rounded to
    outputs: str  # dtype its float32 outputs are stored in
    basis: str  # why: the mode's strategy, the policy and the kernel fact it rests on
    kept: bool = False

    @property
    def lowered(self) -> bool:
        return self.inputs != FLOAT32 or self.outputs != FLOAT32


@dataclass(frozen=True)
class Assignment:
    """The compute dtype of every root node with a float32 tensor, for one mode and keep list."""

    mode: str
    keep: frozenset[str]
    nodes: dict[int, NodeDtype]
    # ATC fuses these pairs into one kernel (op_tables/precision.json fusions): second node -> first node
    fused: dict[int, int] = field(default_factory=dict)

    def lowered(self) -> Iterator[NodeDtype]:
        return (n for n in self.nodes.values() if n.lowered)

    def hidden_values(self, graph_nodes: Sequence[Any]) -> set[str]:
        """Values a fusion computes inside one kernel: they do not exist in the lowered run."""
        return {v for first in self.fused.values() for v in graph_nodes[first].output if v}


def atc_names(ctx: CheckContext) -> dict[int, str]:
    """Root node index -> the name ATC's ONNX parser gives it: its own, else ``<OpType>_<k>`` with ``k``
    counting the unnamed nodes (``op_tables/command_files.json`` graph_names)."""
    names: dict[int, str] = {}
    unnamed = 0
    for gnode in root_nodes(ctx):
        if gnode.node.name:
            names[gnode.index] = gnode.node.name
        else:
            names[gnode.index] = f"{gnode.node.op_type}_{unnamed}"
            unnamed += 1
    return names


def root_nodes(ctx: CheckContext) -> list[GraphNode]:
    return [g for g in ctx.graph.nodes if g.graph == ROOT_GRAPH]


def mode_facts(ctx: CheckContext, mode: str) -> PrecisionMode:
    facts = ctx.tables.precision
    found = facts.modes.get(mode)
    if found is None:
        raise UsageError(f"--precision-mode {mode} has no dtype strategy in the tables")
    if found.strategy == "hif8":
        raise UsageError(f"--precision-mode {mode} (HiFloat8, Ascend 950 only) is not simulated: atccheck has no "
                         "Ascend 950 kernel facts")
    return found


def assign_dtypes(
    ctx: CheckContext,
    mode: str,
    keep: Collection[str] = (),
    float32_values: Collection[str] | None = None,
) -> Assignment:
    """The compute dtype of every root node under ``mode`` with the nodes named in ``keep`` kept.

    ``float32_values`` names the values that are float32 in the model (from a run); by default the
    inferred dtypes are used.
    """
    facts = ctx.tables.precision
    chosen = mode_facts(ctx, mode)
    keep_set = frozenset(keep)
    keep_effective = mode not in facts.keep_no_effect_under
    names = atc_names(ctx)
    is_f32 = _float32_test(ctx, float32_values)
    stored: dict[str, str] = {}  # value -> dtype it is stored in, for float32 values produced by nodes
    nodes: dict[int, NodeDtype] = {}
    choices: dict[tuple[int, tuple[str, ...], str | None], tuple[str, str, str]] = {}
    native = ctx.tables.native_types
    for gnode in root_nodes(ctx):
        node = gnode.node
        ins = [v for v in node.input if v and is_f32(v)]
        outs = [v for v in node.output if v and is_f32(v)]
        if not ins and not outs:
            continue
        if node.domain in ("", "ai.onnx") and node.op_type in native:
            continue  # Constant and friends compute nothing; their consumers round what they read
        name = names[gnode.index]
        kept = keep_effective and name in keep_set
        view = NodeContext(gnode, ctx)
        ops = _ascend_ops(view)
        if kept or node.op_type in facts.dtype_sensitive:
            strategy = facts.keep
            why = ("kept by --keep_dtype" if kept else f"{node.op_type} is dtype-sensitive") + \
                  ": matched like allow_fp32_to_fp16 without its cube-first step"
        else:
            strategy, why = chosen, f"{mode}: {chosen.strategy}"
        # A gray op follows its first float input's producer; graph inputs and constants are producers
        # of the model's dtype (op_info_common.cc CheckHasNoFather: any peer node is a father).
        father = stored.get(ins[0], FLOAT32) if ins else None
        key = (id(strategy), ops, father)  # the choice depends on nothing else: made once per kind of node
        if key not in choices:
            choices[key] = _choose(ctx, facts, strategy, mode, ops, father)
        inputs, outputs, basis = choices[key]
        nodes[gnode.index] = NodeDtype(gnode.index, name, node.op_type, ops, inputs, outputs, f"{why}; {basis}",
                                       kept)
        for v in outs:
            stored[v] = outputs
    return Assignment(mode, keep_set, nodes, _fusions(ctx, facts, nodes))


def _fusions(ctx: CheckContext, facts: PrecisionFacts, nodes: dict[int, NodeDtype]) -> dict[int, int]:
    """Pairs ATC folds into one kernel (conv + BatchNorm), where both are lowered alike and not kept:
    they are simulated as one op rounded once (second node index -> first node index)."""
    fused: dict[int, int] = {}
    outputs = {o.name for o in ctx.model.graph.output}
    for gnode in root_nodes(ctx):
        second = nodes.get(gnode.index)
        if second is None or not second.lowered or second.kept or not gnode.node.input:
            continue
        value = gnode.node.input[0]
        producer = ctx.graph.producer.get(value)
        if producer is None or producer.graph != ROOT_GRAPH or (producer.node.op_type, gnode.node.op_type) not in facts.fusions:
            continue
        first = nodes.get(producer.index)
        if first is None or first.kept or (first.inputs, first.outputs) != (second.inputs, second.outputs):
            continue
        if value in outputs or len(ctx.graph.consumers.get(value, [])) != 1:
            continue
        if not all(ctx.graph.is_constant(v) for v in gnode.node.input[1:] if v):
            continue
        fused[gnode.index] = producer.index
    return fused


def _float32_test(ctx: CheckContext, float32_values: Collection[str] | None):
    if float32_values is not None:
        values = frozenset(float32_values)
        return values.__contains__

    def inferred(name: str) -> bool:
        info = ctx.info(name)
        return info is not None and info.dtype_name == FLOAT32

    return inferred


def _ascend_ops(node: NodeContext) -> tuple[str, ...]:
    from atccheck.rules._attrs import ascend_ops, composite_members

    ops = ascend_ops(node)
    if ops:
        return ops
    return composite_members(node)


def _choose(
    ctx: CheckContext, facts: PrecisionFacts, strategy: PrecisionMode, mode: str, ops: tuple[str, ...],
    father: str | None,
) -> tuple[str, str, str]:
    """(input dtype, output dtype, basis) of a node; a node of several Ascend ops takes the narrowest
    dtype any of them is given (the op doing the arithmetic is the one that matters)."""
    if not ops:
        dtype, basis = _pick(ctx, facts, strategy, mode, None, father)
        return dtype, dtype, basis + " (no Ascend op known for the node)"
    picks = [(_pick(ctx, facts, strategy, mode, op, father), op) for op in ops]
    (dtype, basis), op = min(picks, key=lambda p: WIDTH[p[0][0]])
    if strategy.strategy == "force-fp32" and op in facts.cube_ops:
        return FLOAT16, FLOAT32, basis
    return dtype, dtype, basis


def _pick(
    ctx: CheckContext, facts: PrecisionFacts, strategy: PrecisionMode, mode: str, op: str | None, father: str | None,
) -> tuple[str, str]:
    kernel = ctx.kernel(op) if op and ctx.has_kernel_facts else None
    label = op or "?"
    if kernel is not None and not kernel.aicore and kernel.aicpu:
        return FLOAT32, f"{label} has only an AI CPU kernel, which keeps the model's dtype"
    listed = kernel.aicore_dtypes if kernel is not None else None
    known = listed is not None
    kinds = set(listed or ())

    def has(dtype: str) -> bool:
        return dtype in kinds if known else True

    note = f"{label} kernel lists {'/'.join(sorted(kinds & set(WIDTH))) or 'no float dtype'}" if known else \
        f"{label} kernel dtypes unknown (op_select_format): assumed to take the mode's dtype"
    low = strategy.low or FLOAT16
    kind = strategy.strategy
    if kind == "origin":
        return FLOAT32, note
    if kind == "force-low":
        if has(low):
            return low, note
        return FLOAT32, note
    if kind == "force-fp32":
        if op in facts.cube_ops:
            return FLOAT16, f"{label} is a cube op: float16 input, float32 output ({facts.cube_source}); {note}"
        return (FLOAT32 if has(FLOAT32) else low), note
    if kind == "prefer-origin":
        if strategy.cube_low_first and op in facts.cube_ops and has(low):
            return low, f"{label} is a cube op, which asks for {low} first; {note}"
        if has(FLOAT32):
            return FLOAT32, note
        return (low if has(low) else FLOAT16), note
    if kind == "mixed":
        policy, where = _policy(ctx, facts, op)
        if policy == "white":
            return (low if has(low) else FLOAT32), f"{label} is on the white list{where}; {note}"
        if policy == "black":
            return FLOAT32, f"{label} is on the black list{where}"
        if father is None:
            fallback = PrecisionMode(mode, "", "prefer-origin", low, low == FLOAT16)
            dtype, basis = _pick(ctx, facts, fallback, mode, op, None)
            return dtype, f"{label} is gray{where} with no producer: like allow_fp32_to_{'fp16' if low == FLOAT16 else 'bf16'}; {basis}"
        if has(father):
            return father, f"{label} is gray{where}: follows its producer's {father}; {note}"
        return (FLOAT32 if has(FLOAT32) else low), f"{label} is gray{where}; its kernel lacks {father}; {note}"
    raise UsageError(f"precision strategy {kind} is not simulated")


def _policy(ctx: CheckContext, facts: PrecisionFacts, op: str | None) -> tuple[str, str]:
    if op is None:
        return "gray", " (no Ascend op known)"
    release = ctx.target.profile.kernel_release
    family = ctx.target.soc.kernel_family
    policy = facts.policy(release, family, op)
    if policy is not None:
        return policy, f" of {family}"
    for other in sorted(facts.releases()):
        policy = facts.policy(other, family, op)
        if policy is not None:
            return policy, f" of {family} ({other}: no lists for {release})"
    return "gray", f" (no precision_reduce lists for {family})"
