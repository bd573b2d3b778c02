"""memory-over-budget: weights plus peak live activations exceed the chip's device memory."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from atccheck.context import CheckContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.model.loading import element_size, iter_graph_tensors, tensor_nbytes
from atccheck.model.toposort import dataflow_order
from atccheck.rules.base import Rule, register

FLOAT32 = 1
FLOAT16_BYTES = 2
USER_BASIS = "--device-memory given by the user"


@dataclass(frozen=True)
class Estimate:
    weights: int
    activation_peak: int
    peak_node: str | None
    fp16_activations: bool

    @property
    def total(self) -> int:
        return self.weights + self.activation_peak


@register
class MemoryOverBudget(Rule):
    """The model's estimated device memory (weights + peak live activations) exceeds the budget.

    ## What it does
    Estimates the device memory the model needs: every initializer and Constant tensor
    (subgraphs included, from dims x element size, external data counted without being
    read, at its stored dtype) plus the peak of live activations. The peak comes from a
    liveness walk over the root graph in topological order (networkx): a tensor is live
    from its producer until its last consumer (graph inputs from the start, graph outputs
    to the end), sized from its static inferred shape; float32 activations count as
    float16 when the precision mode casts float32 to float16 (the default ``force_fp16``).
    The budget is ``--device-memory`` (``check(..., device_memory=bytes)``) or the chip's
    figure in ``op_tables/socs.json`` (the CANN platform ini wins over product pages; the
    finding names which). It warns when the estimate exceeds the budget.

    It stays silent when the budget is unknown (Ascend310, first-generation Ascend910 and
    other chips without a confirmed figure) and no ``--device-memory`` is given, since the
    device-memory facts say to skip rather than guess; and when some activation shape is not
    static (dynamic-input-shape and dynamic-shape-unsupported report those).

    ## Why
    ATC builds the model whatever its size; the .om then fails to load, or runs out of
    memory, on a device that cannot hold its weights and feature maps at once.

    ## Example
    A model with 3 GiB of float32 weights checked with ``--device-memory 2``.

    ## Fix
    Manual: lower the batch or sequence length in ``--input-shape``, quantize the weights
    (AMCT), split the model, or target a chip with more memory. Pass ``--device-memory``
    when the board's figure differs from the chip's.

    ## Facts
    Device memory: ``op_tables/socs.json`` ``memory_bytes``/``memory_basis`` from the CANN
    8.1.RC1 platform_config ``memory_size`` and shared/reference/device_memory.json (product
    pages, with confidence). Precision classes: ``atccheck/target.py`` from
    ``atc_options.json`` ``--precision_mode``. The estimate ignores workspace memory and
    any reuse beyond liveness; it is a lower bound for activations.
    """

    code = "AC403"
    name = "memory-over-budget"
    severity = Severity.WARNING
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        budget, basis, budget_source = _budget(ctx)
        if budget is None:
            return  # unknown chip memory: skip rather than guess
        estimate = estimate_memory(ctx)
        if estimate is None or estimate.total <= budget:
            return
        assumptions = _assumptions(ctx, estimate)
        yield self.finding(
            ctx,
            f"estimated device memory {_size(estimate.total)} (weights {_size(estimate.weights)} + peak live "
            f"activations {_size(estimate.activation_peak)}) is above the {_size(budget)} budget for "
            f"{ctx.target.soc.name} ({basis}); assumes {'; '.join(assumptions)}",
            hint="lower the batch or sequence length in --input-shape, quantize or split the model, or target a chip "
            "with more memory; pass --device-memory GIB if the device has a different amount",
            source=budget_source,
            data={
                "estimate_bytes": estimate.total,
                "weights_bytes": estimate.weights,
                "activation_peak_bytes": estimate.activation_peak,
                "peak_node": estimate.peak_node,
                "budget_bytes": budget,
                "budget_basis": basis,
                "fp16_activations": estimate.fp16_activations,
                "assumptions": assumptions,
            },
        )


def _budget(ctx: CheckContext) -> tuple[int | None, str, str]:
    given = ctx.options.get("device_memory")
    if given:
        return int(given), USER_BASIS, "atccheck --device-memory"
    soc = ctx.target.soc
    source = soc.memory_source or "op_tables/socs.json"
    return soc.memory_bytes, soc.memory_basis, f"op_tables/socs.json {soc.name}: {source}"


def estimate_memory(ctx: CheckContext) -> Estimate | None:
    """Weights plus the liveness peak of root-graph activations; None when a shape is not static."""
    weights = sum(tensor_nbytes(t) for t in iter_graph_tensors(ctx.model.graph))
    fp16 = ctx.target.casts_fp32_to_fp16
    nodes = list(ctx.model.graph.node)
    reads = [ctx.graph.reads(node) for node in nodes]
    order = dataflow_order([node.output for node in nodes], reads)
    if order is None:
        return None  # a cycle: not a valid graph to walk
    step = {index: position for position, index in enumerate(order)}
    last = max(len(order) - 1, 0)

    # (size, first step, last step) of every activation tensor
    spans: dict[str, list[int]] = {}
    for name in ctx.graph.real_inputs:
        spans[name] = [0, 0]
    for index, node in enumerate(nodes):
        if node.op_type == "Constant" and is_standard(node.domain):
            continue  # counted with the weights
        for name in node.output:
            if name:
                spans[name] = [step[index], step[index]]
    for index, names in enumerate(reads):
        for name in names:
            if name in spans:
                spans[name][1] = max(spans[name][1], step[index])
    for out in ctx.model.graph.output:
        if out.name in spans:
            spans[out.name][1] = last

    delta = [0] * (last + 2)
    for name, (first, final) in spans.items():
        size = _activation_bytes(ctx, name, fp16)
        if size is None:
            return None
        delta[first] += size
        delta[final + 1] -= size
    peak, live, peak_step = 0, 0, 0
    for position in range(last + 1):
        live += delta[position]
        if live > peak:
            peak, peak_step = live, position
    peak_node = None
    if order:
        gnode = nodes[order[peak_step]]
        peak_node = gnode.name or f"{gnode.op_type}_{order[peak_step]}"
    return Estimate(weights=weights, activation_peak=peak, peak_node=peak_node, fp16_activations=fp16)


def _activation_bytes(ctx: CheckContext, name: str, fp16: bool) -> int | None:
    info = ctx.info(name)
    if info is None or not info.is_static or not info.elem_type:
        return None
    count = 1
    for dim in info.shape or ():
        count *= int(dim)  # type: ignore[arg-type]
    per = FLOAT16_BYTES if fp16 and info.elem_type == FLOAT32 else element_size(info.elem_type)
    return count * per


def _assumptions(ctx: CheckContext, estimate: Estimate) -> list[str]:
    shapes = "input shapes from --input-shape" if ctx.input_shapes else "input shapes as declared in the model"
    items = [shapes]
    if estimate.fp16_activations:
        items.append(f"float32 activations as float16 ({ctx.target.precision_mode})")
    else:
        items.append(f"activations at their ONNX dtype ({ctx.target.precision_mode})")
    items.append("weights at their stored dtype")
    items.append("no workspace, memory reuse only by liveness")
    if any(gnode.graph != "main" for gnode in ctx.graph.nodes):
        items.append("subgraph activations not counted")
    return items


def _size(nbytes: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} B"
