"""Compare the lowered run with the float32 run, name the causes, and search the keep list.

- Each graph output is judged by its relative error (L2 norm of the difference over the L2 norm
  of the float32 output) and its cosine similarity with the float32 output; it has lost precision
  when the relative error is above :data:`REL_ERROR_MAX` or the cosine below :data:`COSINE_MIN`
  (and some element moved by more than :data:`ABS_FLOOR`), or when it holds inf or NaN where the
  float32 run has finite values. An output that is not
  float is judged by the share of elements that differ (:data:`MISMATCH_MAX`).
- A *cause* is a node where the error first grows: its float32 output's relative error is above
  :data:`REL_ERROR_MAX` (or it holds new inf/NaN) while no float32 input it reads is. Only causes
  upstream of a failing output count. A cause whose output holds new inf or NaN is an overflow
  (the largest float32 value there is reported); any other is a precision loss. Downstream nodes
  inherit the error and are not causes, so one cause gives one finding.
- The keep list starts empty. Each round keeps the causes in float32 (or, when a cause already
  computes in float32, the lowered nodes that feed it); the model is simulated again until every
  output is within the thresholds, then each kept node is dropped again if the outputs stay
  within them without it. The search stops after :data:`MAX_SIMULATIONS` runs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atccheck.precision.dtypes import BFLOAT16, FLOAT16, Assignment, NodeDtype, assign_dtypes, root_nodes

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from atccheck.context import CheckContext
    from atccheck.precision.simulate import Simulator, Values

# Judgement of an output (not ATC facts: atccheck's own thresholds, stated in docs/numerics.md).
REL_ERROR_MAX = 1e-2  # relative L2 error
COSINE_MIN = 0.999  # cosine similarity with the float32 output
MISMATCH_MAX = 0.01  # share of differing elements of an output that is not float
# Differences no larger than this are no deviation, whatever the relative error: near zero float16
# resolves little (its smallest normal number is 6.1e-5), and an output of probabilities near 0
# moves by 1e-7 with a large relative error and no consequence.
ABS_FLOOR = 1e-4
# Largest finite values (IEEE 754 binary16; bfloat16 has float32's exponent range).
DTYPE_MAX = {FLOAT16: 65504.0, BFLOAT16: 3.3895313892515355e38}
MAX_SIMULATIONS = 24  # simulations the keep-list search may run (pruning included)


def _finite(value: float | None) -> float | str | None:
    if value is None:
        return None
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


@dataclass(frozen=True)
class OutputError:
    """How far one graph output of the lowered run is from the float32 run (worst input set)."""

    name: str
    rel_error: float  # inf when the lowered run has inf/NaN where float32 is finite
    cosine: float | None  # None for outputs that are not float
    max_abs: float
    nonfinite: int  # elements inf/NaN in the lowered run, finite in float32
    float_output: bool = True

    @property
    def ok(self) -> bool:
        if not self.float_output:
            return self.rel_error <= MISMATCH_MAX
        if self.nonfinite:
            return False
        if self.max_abs <= ABS_FLOOR:
            return True
        return self.rel_error <= REL_ERROR_MAX and (self.cosine is None or self.cosine >= COSINE_MIN)

    def describe(self) -> str:
        if not self.float_output:
            return f"{self.rel_error:.1%} of elements differ"
        if self.nonfinite:
            return f"{self.nonfinite} element{'s' if self.nonfinite != 1 else ''} inf/NaN"
        cosine = f", cosine {self.cosine:.6f}" if self.cosine is not None else ""
        return f"relative error {self.rel_error:.3g}{cosine}, largest difference {self.max_abs:.3g}"

    def to_dict(self) -> dict[str, Any]:
        return {"output": self.name, "relative_error": _finite(self.rel_error), "cosine": _finite(self.cosine),
                "max_abs_error": _finite(self.max_abs), "nonfinite": self.nonfinite, "ok": self.ok,
                "float": self.float_output}


@dataclass(frozen=True)
class Cause:
    """A node where the error first grows (one finding each)."""

    kind: str  # overflow | precision-loss
    node: NodeDtype
    value: str  # the node's output where it shows
    error_in: float  # largest relative error of the float32 values it reads
    error_out: float  # relative error of its output (inf: new inf/NaN)
    largest: float | None  # overflow: the largest magnitude of the value in float32
    largest_at: str | None  # overflow: the value that holds it (an output, or an input it rounds)
    limit: float | None  # overflow: the largest finite value of the dtype
    outputs: tuple[str, ...]  # the failing graph outputs downstream of it

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "node": self.node.name, "op_type": self.node.op_type, "value": self.value,
            "compute_dtype": self.node.inputs, "output_dtype": self.node.outputs, "ascend_ops": list(self.node.ascend_ops),
            "error_in": _finite(self.error_in), "error_out": _finite(self.error_out),
            "largest": _finite(self.largest), "largest_at": self.largest_at, "limit": self.limit,
            "outputs": list(self.outputs), "basis": self.node.basis,
        }


@dataclass(frozen=True)
class KeepSearch:
    nodes: tuple[str, ...]  # the keep list (ATC node names), in graph order
    restored: bool  # every output within the thresholds with it
    after: tuple[OutputError, ...]
    simulations: int
    seconds: float
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": list(self.nodes), "restored": self.restored, "after": [o.to_dict() for o in self.after],
                "simulations": self.simulations, "seconds": round(self.seconds, 3), "note": self.note}


@dataclass(frozen=True)
class Alternative:
    """Another precision mode, simulated on the same inputs."""

    mode: str
    ok: bool
    outputs: tuple[OutputError, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "ok": self.ok, "outputs": [o.to_dict() for o in self.outputs]}


@dataclass(frozen=True)
class NumericsResult:
    """The precision preflight of one model for one chip and precision mode."""

    mode: str
    soc: str
    inputs: tuple[str, ...]
    nodes: int = 0  # root nodes with a float32 tensor
    lowered: int = 0  # of them, computing below float32 under the mode
    assumed: int = 0  # lowered nodes whose kernel dtypes are unknown (op_select_format)
    before: tuple[OutputError, ...] = ()
    causes: tuple[Cause, ...] = ()
    keep: KeepSearch | None = None
    alternative: Alternative | None = None
    error: str | None = None  # why nothing was simulated
    keep_note: str | None = None  # why no keep list is searched
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and all(o.ok for o in self.before)

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision_mode": self.mode,
            "soc": self.soc,
            "inputs": list(self.inputs),
            "thresholds": {"relative_error_max": REL_ERROR_MAX, "cosine_min": COSINE_MIN,
                           "mismatch_max": MISMATCH_MAX, "abs_floor": ABS_FLOOR},
            "nodes": self.nodes,
            "lowered": self.lowered,
            "kernel_dtypes_assumed": self.assumed,
            "ok": self.ok,
            "before": [o.to_dict() for o in self.before],
            "causes": [c.to_dict() for c in self.causes],
            "keep_dtype": self.keep.to_dict() if self.keep is not None else None,
            "keep_note": self.keep_note,
            "alternative": self.alternative.to_dict() if self.alternative is not None else None,
            "error": self.error,
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
        }


# --------------------------------------------------------------------------- errors


def value_error(reference: "np.ndarray", lowered: "np.ndarray") -> tuple[float, float | None, float, int]:
    """(relative L2 error, cosine, max abs error, new non-finite count) of a float value."""
    import numpy as np

    r = np.asarray(reference, dtype=np.float64).ravel()
    s = np.asarray(lowered, dtype=np.float64).ravel()
    if r.shape != s.shape:
        return math.inf, None, math.inf, 0
    finite = np.isfinite(r)
    both = finite & np.isfinite(s)
    nonfinite = int(np.count_nonzero(finite & ~both))
    if not both.all():
        r, s = r[both], s[both]
    if r.size == 0:
        return (math.inf if nonfinite else 0.0), None, 0.0, nonfinite
    diff = s - r
    ref_norm = float(np.linalg.norm(r))
    diff_norm = float(np.linalg.norm(diff))
    low_norm = float(np.linalg.norm(s))
    max_abs = float(np.abs(diff).max())
    rel = diff_norm / ref_norm if ref_norm > 0 else (0.0 if diff_norm == 0 else math.inf)
    if ref_norm > 0 and low_norm > 0:
        cosine = float(np.dot(r, s) / (ref_norm * low_norm))
    else:
        cosine = 1.0 if diff_norm == 0 else 0.0
    if nonfinite:
        rel = math.inf
    return rel, min(cosine, 1.0), max_abs, nonfinite


def output_errors(names: Sequence[str], reference: Sequence["Values"], lowered: Sequence["Values"]) -> tuple[OutputError, ...]:
    import numpy as np

    found = []
    for name in names:
        worst: OutputError | None = None
        for ref_set, low_set in zip(reference, lowered):
            ref, low = ref_set.get(name), low_set.get(name)
            if ref is None or low is None:
                continue
            if np.issubdtype(ref.dtype, np.floating):
                rel, cosine, max_abs, nonfinite = value_error(ref, low)
                item = OutputError(name, rel, cosine, max_abs, nonfinite)
            else:
                differ = float(np.count_nonzero(ref != low)) / max(ref.size, 1) if ref.shape == low.shape else 1.0
                item = OutputError(name, differ, None, differ, 0, float_output=False)
            if worst is None or _worse(item, worst):
                worst = item
        if worst is not None:
            found.append(worst)
    return tuple(found)


def _worse(a: OutputError, b: OutputError) -> bool:
    return (a.nonfinite, a.rel_error) > (b.nonfinite, b.rel_error)


# --------------------------------------------------------------------------- causes


class Graph:
    """Producers and float32 values of the root graph, for walking upstream from an output."""

    def __init__(self, ctx: "CheckContext", float32_values: Collection[str]) -> None:
        self.nodes = {g.index: g.node for g in root_nodes(ctx)}
        self.producer: dict[str, int] = {}
        for index, node in self.nodes.items():
            for out in node.output:
                if out:
                    self.producer[out] = index
        self.float32 = frozenset(float32_values)

    def float_inputs(self, index: int) -> list[str]:
        return [v for v in self.nodes[index].input if v and v in self.float32]

    def float_outputs(self, index: int) -> list[str]:
        return [v for v in self.nodes[index].output if v and v in self.float32]

    def ancestors(self, values: Sequence[str]) -> set[int]:
        seen: set[int] = set()
        stack = [self.producer[v] for v in values if v in self.producer]
        while stack:
            index = stack.pop()
            if index in seen:
                continue
            seen.add(index)
            for name in self.nodes[index].input:
                if name in self.producer:
                    stack.append(self.producer[name])
                # values read by subgraphs of If/Loop count too
            for attr in self.nodes[index].attribute:
                for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    for inner in sub.node:
                        for name in inner.input:
                            if name in self.producer:
                                stack.append(self.producer[name])
        return seen


def light_error(reference: "np.ndarray", lowered: "np.ndarray") -> tuple[float, float, int]:
    """(relative L2 error, max abs error, new non-finite count) in float32 arithmetic: the error of every
    intermediate value is asked for, so it is kept cheap (BLAS norms scale as they sum)."""
    import numpy as np

    r = np.asarray(reference, dtype=np.float32).ravel()
    s = np.asarray(lowered, dtype=np.float32).ravel()
    if r.shape != s.shape:
        return math.inf, math.inf, 0
    finite = np.isfinite(r)
    if not finite.all():
        keep = finite & np.isfinite(s)
        nonfinite = int(np.count_nonzero(finite & ~keep))
        r, s = r[keep], s[keep]
    else:
        nonfinite = int(s.size - np.count_nonzero(np.isfinite(s)))
    if nonfinite:
        return math.inf, math.inf, nonfinite
    if r.size == 0:
        return 0.0, 0.0, 0
    diff = s - r
    diff_norm, ref_norm = float(np.linalg.norm(diff)), float(np.linalg.norm(r))
    max_abs = float(np.abs(diff).max())
    rel = diff_norm / ref_norm if ref_norm > 0 else (0.0 if diff_norm == 0 else math.inf)
    return rel, max_abs, 0


class Errors:
    """Relative errors of float32 values, computed once each (worst input set)."""

    def __init__(self, reference: Sequence["Values"], lowered: Sequence["Values"]) -> None:
        self.reference = reference
        self.lowered = lowered
        self._cache: dict[str, float] = {}
        self._new_nonfinite: dict[str, int] = {}

    def of(self, name: str) -> float:
        found = self._cache.get(name)
        if found is None:
            worst, nonfinite = 0.0, 0
            for ref_set, low_set in zip(self.reference, self.lowered):
                ref, low = ref_set.get(name), low_set.get(name)
                if ref is None or low is None:
                    continue
                rel, max_abs, bad = light_error(ref, low)
                if not bad and max_abs <= ABS_FLOOR:
                    rel = 0.0  # too small a difference to count (ABS_FLOOR)
                worst, nonfinite = max(worst, rel), max(nonfinite, bad)
            found = self._cache[name] = worst
            self._new_nonfinite[name] = nonfinite
        return found

    def nonfinite(self, name: str) -> int:
        self.of(name)
        return self._new_nonfinite.get(name, 0)

    def largest(self, name: str) -> float:
        import numpy as np

        best = 0.0
        for ref_set in self.reference:
            ref = ref_set.get(name)
            if ref is not None and ref.size:
                finite = ref[np.isfinite(ref)]
                if finite.size:
                    best = max(best, float(np.abs(finite).max()))
        return best


def find_causes(graph: Graph, assignment: Assignment, errors: Errors, failing: Sequence[str]) -> list[Cause]:
    """The nodes upstream of the failing outputs where the error first grows past REL_ERROR_MAX."""
    reach: dict[int, list[str]] = {}
    for output in failing:
        for index in graph.ancestors([output]):
            reach.setdefault(index, []).append(output)
    causes = []
    for index in sorted(reach):
        outs = graph.float_outputs(index)
        if not outs:
            continue
        error_out = max(errors.of(v) for v in outs)
        if error_out <= REL_ERROR_MAX:
            continue
        error_in = max((errors.of(v) for v in graph.float_inputs(index) if v in graph.producer), default=0.0)
        if error_in > REL_ERROR_MAX:
            continue
        node = assignment.nodes.get(index)
        if node is None:
            continue
        value = max(outs, key=errors.of)
        if errors.nonfinite(value):
            limit = DTYPE_MAX.get(node.outputs) or DTYPE_MAX.get(node.inputs)
            largest, at = errors.largest(value), value
            if limit is None or largest <= limit:
                # the value left the range where the node rounds what it reads
                candidates = graph.float_inputs(index)
                if candidates:
                    at = max(candidates, key=errors.largest)
                    largest = errors.largest(at)
                limit = DTYPE_MAX.get(node.inputs, limit)
            causes.append(Cause("overflow", node, value, error_in, math.inf, largest, at, limit,
                                tuple(dict.fromkeys(reach[index]))))
        else:
            causes.append(Cause("precision-loss", node, value, error_in, error_out, None, None, None,
                                tuple(dict.fromkeys(reach[index]))))
    return causes


# --------------------------------------------------------------------------- the analysis


def analyze(
    ctx: "CheckContext",
    simulator: "Simulator",
    labels: Sequence[str],
    *,
    search: bool = True,
    alternative: str | None = None,
) -> NumericsResult:
    """Simulate the target's precision mode on the simulator's inputs and judge it."""
    mode = ctx.target.precision_mode
    soc = ctx.target.soc.name
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    # float32 values by their inferred dtype (graph inputs and weights by their declared one)
    float32 = set(simulator.float32_inputs) | {v for v in simulator.node_values if _inferred_float32(ctx, v)}
    assignment = assign_dtypes(ctx, mode, (), float32)
    lowered_nodes = [n for n in assignment.lowered()]
    assumed = sum(1 for n in lowered_nodes if "unknown" in n.basis)
    base = NumericsResult(mode, soc, tuple(labels), len(assignment.nodes), len(lowered_nodes), assumed)
    if not lowered_nodes:
        reference = simulator.reference()
        seconds["simulation"] = time.perf_counter() - started
        same = output_errors(simulator.output_names, reference, reference)
        return _replace(base, before=same, keep_note=f"under {mode} no float32 value is computed in a narrower dtype",
                        seconds=seconds)
    reference, lowered = simulator.both(assignment, float32)
    seconds["simulation"] = time.perf_counter() - started
    before = output_errors(simulator.output_names, reference, lowered)
    failing = [o.name for o in before if not o.ok]
    if not failing:
        return _replace(base, before=before, seconds=seconds)
    graph = Graph(ctx, float32)
    causes = find_causes(graph, assignment, Errors(reference, lowered), failing)
    facts = ctx.tables.precision
    keep = None
    keep_note = None
    if mode in facts.keep_no_effect_under:
        keep_note = f"--keep_dtype has no effect under {mode} ({facts.keep_source.split(';')[-1].strip()})"
    elif search:
        mark = time.perf_counter()
        keep = search_keep_list(ctx, simulator, graph, reference, float32, causes, mode)
        seconds["keep_search"] = time.perf_counter() - mark
    alt = None
    if alternative:
        from atccheck.precision.simulate import SimulationError

        mark = time.perf_counter()
        alt_assignment = assign_dtypes(ctx, alternative, (), float32)
        try:
            alt_outputs = output_errors(simulator.output_names, reference, simulator.lowered(alt_assignment, float32))
            alt = Alternative(alternative, all(o.ok for o in alt_outputs), alt_outputs)
        except SimulationError:
            alt = None  # bfloat16 rounding cannot be simulated for this model (its opset)
        seconds["alternative"] = time.perf_counter() - mark
    return _replace(base, before=before, causes=tuple(causes), keep=keep, keep_note=keep_note, alternative=alt,
                    seconds=seconds)


def _inferred_float32(ctx: "CheckContext", name: str) -> bool:
    info = ctx.info(name)
    return info is not None and info.dtype_name == "float32"


def _replace(result: NumericsResult, **changes: Any) -> NumericsResult:
    from dataclasses import replace

    return replace(result, **changes)


def search_keep_list(
    ctx: "CheckContext",
    simulator: "Simulator",
    graph: Graph,
    reference: Sequence["Values"],
    float32: Collection[str],
    causes: Sequence[Cause],
    mode: str,
) -> KeepSearch:
    """Keep the causes in float32, simulate again, repeat; then drop what is not needed."""
    started = time.perf_counter()
    keep: list[str] = []
    simulations = 0
    after: tuple[OutputError, ...] = ()
    restored = False
    note = None
    current = list(causes)
    assignment = assign_dtypes(ctx, mode, (), float32)
    lowered_values: Sequence[Values] = ()

    def simulate(names: Sequence[str]) -> tuple[Assignment, Sequence["Values"], tuple[OutputError, ...]]:
        nonlocal simulations
        chosen = assign_dtypes(ctx, mode, names, float32)
        values = simulator.lowered(chosen, float32)
        simulations += 1
        return chosen, values, output_errors(simulator.output_names, reference, values)

    while simulations < MAX_SIMULATIONS:
        additions = _additions(current, assignment, graph, keep)
        if not additions:
            note = ("no node left to keep: the nodes where the error grows and those feeding them are kept, or "
                    "their kernels have no float32")
            break
        keep.extend(additions)
        assignment, lowered_values, after = simulate(keep)
        failing = [o.name for o in after if not o.ok]
        if not failing:
            restored = True
            break
        current = find_causes(graph, assignment, Errors(reference, lowered_values), failing)
    else:
        note = f"stopped after {MAX_SIMULATIONS} simulations"
    if restored:
        for name in list(reversed(keep)):
            if simulations >= MAX_SIMULATIONS or len(keep) == 1:
                break
            trial = [n for n in keep if n != name]
            _, _, trial_after = simulate(trial)
            if all(o.ok for o in trial_after):
                keep, after = trial, trial_after
    order = {n.name: n.index for n in assignment.nodes.values()}
    ordered = tuple(sorted(keep, key=lambda n: order.get(n, 0)))
    return KeepSearch(ordered, restored, after, simulations, time.perf_counter() - started, note)


def _additions(causes: Sequence[Cause], assignment: Assignment, graph: Graph, keep: Sequence[str]) -> list[str]:
    """Nodes to keep next: each cause, or where a cause already computes in float32, the lowered nodes
    feeding it (their rounding is what it amplifies)."""
    chosen: list[str] = []
    for cause in causes:
        node = assignment.nodes.get(cause.node.index, cause.node)
        if node.lowered and node.name not in keep:
            chosen.append(node.name)
            continue
        for value in graph.float_inputs(node.index):
            producer = graph.producer.get(value)
            feeder = assignment.nodes.get(producer) if producer is not None else None
            if feeder is not None and feeder.lowered and feeder.name not in keep:
                chosen.append(feeder.name)
    return list(dict.fromkeys(chosen))


def keep_file_text(nodes: Sequence[str]) -> str:
    """A --keep_dtype file: one node name a line (op_tables/command_files.json, the --keep_dtype entry)."""
    return "".join(f"{name}\n" for name in nodes)
