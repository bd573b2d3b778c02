"""Verifying the steps of ``atccheck fix``, on a worker thread while the next passes run.

Each applied pass makes a :class:`State` (the model after it, its report, its parent). The
:class:`Verifier` checks each state against its parent in order: ``onnx.checker`` full check,
then a structural proof (only names and shape annotations changed) or onnxruntime outputs
against the model before the step, within the pass's tolerance. The reference run of the
original model starts first, beside the first check. :func:`summarize` turns the verdicts of
the final chain into the outcome's :class:`~atccheck.fixing.outcome.Verification`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from atccheck.fixing.outcome import DISABLED, PROVED, TESTED, UNVERIFIED, PassOutcome, Verification
from atccheck.fixing.verify import Inputs, bind_cancel
from atccheck.passes.base import FixPass
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.verify import Comparison, ModelSource, Outputs


@dataclass
class Verdict:
    ok: bool
    kind: str | None = None  # PROVED / TESTED / UNVERIFIED / DISABLED
    reason: str | None = None
    comparison: "Comparison | None" = None
    cumulative: "Comparison | None" = None  # against the original
    outputs: "list[Outputs] | None" = None
    data: bytes | None = None  # the serialization onnxruntime ran, reused to write the output
    original: "list[Outputs] | None" = None  # outputs of the original (or of a model proved equal to it)
    proved_chain: bool = True  # every step up to here was proved structurally


@dataclass
class Reference:
    outputs: "list[Outputs] | None"
    error: str | None
    checker_error: str | None
    needs: str | None = None  # one line: the inputs a comparison needs, when the inputs were the problem
    dropped: str | None = None  # an input set the original fails on, left out of every comparison
    loads: bool = False  # onnxruntime made a session of the original (whether or not it could run it)
    evaluator: str | None = None  # why onnxruntime could not load the original, which onnx.reference ran


@dataclass
class State:
    serial: int
    model: "onnx.ModelProto"
    report: Report
    parent: "State | None" = None
    step: PassOutcome | None = None
    pass_cls: type[FixPass] | None = None
    job: "Future[Verdict] | None" = None
    # the serialization the worker made for onnxruntime (None when it made none), as soon as it
    # exists: the output can be staged from it while the run is still going
    serialized: "Future[bytes | None]" = field(default_factory=Future)

    def lineage(self) -> list[State]:
        """The states from the start of the pipeline up to this one, oldest first."""
        chain: list[State] = []
        node: State | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return chain


class Verifier:
    """One worker thread that checks each step in order while the pipeline goes on."""

    def __init__(self, inputs: "Inputs | None", enabled: bool, unavailable: str | None = None) -> None:
        self.inputs = inputs
        self.enabled = enabled
        self.unavailable = unavailable  # why no inputs could be made, if so
        # set by close(): a run the worker starts after it (still importing onnxruntime or making
        # the session when Ctrl-C came) is cancelled at once instead of running to its time limit
        self.cancelled = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atccheck-verify",
                                       initializer=bind_cancel, initargs=(self.cancelled,))
        self.reference: "Future[Reference] | None" = None

    def start_reference(self, model: "onnx.ModelProto", path: Path | None) -> None:
        """Run the original model: from its file when it has one (onnxruntime reads it), else ``model``."""
        self.reference = self.pool.submit(self._reference, model, path)

    def _reference(self, model: "onnx.ModelProto", path: Path | None) -> Reference:
        from atccheck.fixing.verify import (
            LoadError,
            ModelSource,
            RunError,
            RunTimeout,
            check_graph,
            one_line,
            run_model,
        )

        checker_error = check_graph(model)
        if not self.enabled:
            return Reference(None, "disabled", checker_error)
        if self.inputs is None:
            return Reference(None, self.unavailable, checker_error)
        source = ModelSource(path=path) if path is not None else ModelSource(model)
        try:
            try:
                return Reference(run_model(source, self.inputs), None, checker_error, loads=True)
            except LoadError as exc:
                evaluated = evaluate(model, self.inputs)
                if evaluated is not None:  # a small model onnx's reference evaluator runs (float64 Conv)
                    return Reference(evaluated, None, checker_error, evaluator=str(exc))
                return Reference(None, str(exc), checker_error)
            except RunTimeout as exc:  # stopped (too long, or interrupted): another try would be too
                return Reference(None, str(exc), checker_error, loads=True)
            except RunError as exc:
                failure = exc
            # the original fails on some input set: keep the sets it runs on (the user's sample, say)
            kept, outputs, failed = [], [], []
            for feeds, label in zip(self.inputs.sets, self.inputs.labels):
                try:
                    outputs.extend(run_model(source, Inputs([feeds], [label], self.inputs.shapes)))
                    kept.append((feeds, label))
                except RunTimeout as exc:
                    return Reference(None, str(exc), checker_error, loads=True)
                except RunError as exc:
                    failed.append((label, exc))
            if kept and failed:
                dropped = "; ".join(f"{label}: {exc}" for label, exc in failed)
                self.inputs = Inputs([f for f, _ in kept], [label for _, label in kept], self.inputs.shapes)
                return Reference(outputs, None, checker_error, dropped=dropped, loads=True)
            return Reference(None, str(failure), checker_error, needs=self._needs(), loads=True)
        except Exception as exc:  # anything else onnxruntime or numpy raise
            return Reference(None, one_line(exc), checker_error)
        finally:
            source.release()

    def _needs(self) -> str:
        """One line naming the arrays a ``--inputs`` sample must hold for the original to run."""
        assert self.inputs is not None
        first = self.inputs.sets[0] if self.inputs.sets else {}
        arrays = ", ".join(f"{name} {array.dtype} [{','.join(str(d) for d in array.shape)}]"
                           for name, array in first.items())
        given = len(self.inputs.sets) > 1
        return (f"--inputs SAMPLE.npz with values the model accepts for {arrays or 'its inputs'}"
                + (" (the given sample fails too)" if given else ""))

    def submit(self, state: State) -> "Future[Verdict]":
        return self.pool.submit(self._verify, state)

    def _verify(self, state: State) -> Verdict:
        try:
            return self._verify_unguarded(state)
        except Exception as exc:  # a bug in verification must not pass a step
            from atccheck.fixing.verify import one_line

            return Verdict(False, reason=f"verification raised {type(exc).__name__}: {one_line(exc)}")
        finally:
            if not state.serialized.done():
                state.serialized.set_result(None)

    def _verify_unguarded(self, state: State) -> Verdict:
        from atccheck.fixing.verify import ModelSource, RunError, check_graph, compare, same_computation

        assert self.reference is not None and state.parent is not None and state.pass_cls is not None
        reference = self.reference.result()
        parent = state.parent
        parent_verdict = parent.job.result() if parent.job is not None else None
        if parent_verdict is not None and not parent_verdict.ok:
            return Verdict(False, reason="the step before it was rolled back")
        checker_error = check_graph(state.model)
        if checker_error is not None and checker_error != reference.checker_error:
            return Verdict(False, reason=f"onnx.checker rejects the result: {checker_error}")
        parent_outputs = parent_verdict.outputs if parent_verdict is not None else reference.outputs
        original = parent_verdict.original if parent_verdict is not None else reference.outputs
        proved_chain = parent_verdict.proved_chain if parent_verdict is not None else True
        if same_computation(parent.model, state.model, self.inputs.sets if self.inputs is not None else []):
            return Verdict(True, PROVED, outputs=parent_outputs, original=original, proved_chain=proved_chain,
                            cumulative=parent_verdict.cumulative if parent_verdict is not None else None)
        if not self.enabled:
            return Verdict(True, DISABLED, reason="--no-verify", proved_chain=False)
        if parent_outputs is None and proved_chain and self.inputs is not None:
            # onnxruntime refused the original (two nodes with one name, say), but every step so far
            # was proved to compute the same: the model before this step stands in for it.
            try:
                parent_outputs = original = run_or_evaluate(ModelSource(parent.model), parent.model,
                                                            fitted(self.inputs, parent.model))
            except RunError:
                parent_outputs = None
        if parent_outputs is None or original is None or self.inputs is None:
            if reference.loads:  # nothing to compare, but a step must not make the model unloadable
                error = runtime_load_error(state.model, None)
                if error is not None:
                    return Verdict(False, reason=f"{error} (onnxruntime loads the original)")
            return Verdict(True, UNVERIFIED, reason=reference.error, proved_chain=False)
        source = ModelSource(state.model)
        state.serialized.set_result(source.data)
        try:
            outputs = run_or_evaluate(source, state.model, fitted(self.inputs, state.model))
        except RunError as exc:
            source.release()
            return Verdict(False, reason=str(exc))
        cls = state.pass_cls
        min_cosine = getattr(cls, "min_cosine", None)
        if min_cosine is not None:  # a pass that changes numerics by design (dequantize)
            comparison = compare_cosine(parent_outputs, outputs, min_cosine)
        else:
            comparison = compare(parent_outputs, outputs, cls.tolerance, cls.rtol)
        cumulative = compare(original, outputs, math.inf, math.inf)
        if parent_verdict is not None:
            parent_verdict.data = None  # only the newest serialization may be written
        data = source.data
        source.release()
        if not comparison.ok:
            return Verdict(False, TESTED, comparison.reason, comparison, cumulative)
        return Verdict(True, TESTED, None, comparison, cumulative, outputs, data, original, proved_chain=False)

    def close(self) -> None:
        from atccheck.fixing.verify import terminate_runs

        self.pool.shutdown(wait=False, cancel_futures=True)
        self.cancelled.set()  # before terminate_runs: a run registering after it sees the event
        terminate_runs()  # a run still going is one nobody waits for (an interrupt, an error)
        self.pool.shutdown(wait=True)


# onnxruntime lacks kernels for some dtypes (float64 Conv): models up to these sizes then run in
# onnx's reference evaluator (numpy, slow) so that their rewrites are still compared.
EVALUATOR_MAX_NODES = 2000
EVALUATOR_MAX_BYTES = 64 * 2**20


def evaluate(model: "onnx.ModelProto", inputs: Inputs) -> "list[Outputs] | None":
    """Outputs of every input set from ``onnx.reference``, or None (too large, or it fails too)."""
    import numpy as np

    from atccheck.fixing.verify import approx_size

    if len(model.graph.node) > EVALUATOR_MAX_NODES or approx_size(model) > EVALUATOR_MAX_BYTES:
        return None
    try:
        from onnx.reference import ReferenceEvaluator

        evaluator = ReferenceEvaluator(model)
        names = [o.name for o in model.graph.output]
        return [dict(zip(names, (np.asarray(v) for v in evaluator.run(None, feeds)))) for feeds in inputs.sets]
    except Exception:  # an op or dtype the reference evaluator lacks too
        return None


def run_or_evaluate(source: "ModelSource", model: "onnx.ModelProto", inputs: Inputs) -> "list[Outputs]":
    """onnxruntime's outputs, or onnx.reference's when onnxruntime cannot load a small model."""
    from atccheck.fixing.verify import LoadError, run_model

    try:
        return run_model(source, inputs)
    except LoadError:
        evaluated = evaluate(model, inputs)
        if evaluated is None:
            raise
        return evaluated


def fitted(inputs: Inputs, model: "onnx.ModelProto") -> Inputs:
    """The inputs with float arrays cast to the float type the model's inputs now declare.

    A pass may change an input's float type (float64-to-float32); the same values, rounded,
    are fed to the new model. Other changes of type are left for onnxruntime to refuse.
    """
    import numpy as np
    import onnx

    declared = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input
                if vi.type.WhichOneof("value") == "tensor_type"}
    changes: dict[str, "np.dtype"] = {}
    for feeds in inputs.sets:
        for name, array in feeds.items():
            elem = declared.get(name)
            if not elem or not np.issubdtype(array.dtype, np.floating):
                continue
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem))
            if dtype != array.dtype and np.issubdtype(dtype, np.floating):
                changes[name] = dtype
    if not changes:
        return inputs
    sets = [{k: (v.astype(changes[k]) if k in changes else v) for k, v in feeds.items()} for feeds in inputs.sets]
    return Inputs(sets, inputs.labels, inputs.shapes)


def compare_cosine(reference: "Sequence[Outputs]", candidate: "Sequence[Outputs]", minimum: float) -> "Comparison":
    """Each float output's cosine similarity with the reference's must reach ``minimum``.

    For passes that change numerics on purpose (dequantizing an int8 model): the elementwise
    errors are reported too, but the verdict is the direction of each output as a whole.
    Integer and bool outputs must match exactly; NaN or infinity anywhere fails.
    """
    import numpy as np

    from atccheck.fixing.verify import Comparison, compare

    loose = compare(reference, candidate, math.inf, math.inf)
    if not loose.ok:  # with infinite tolerances: a missing output, a shape change, NaN or infinity
        return loose
    for ref_set, new_set in zip(reference, candidate):
        for name, ref in ref_set.items():
            new = new_set[name]
            if ref.size == 0:
                continue
            if not np.issubdtype(ref.dtype, np.floating):
                if not np.array_equal(ref, new):
                    return Comparison(False, loose.max_abs, loose.max_rel, name,
                                      f"output '{name}' ({ref.dtype}) changed")
                continue
            a, b = ref.astype(np.float64).ravel(), new.astype(np.float64).ravel()
            norms = float(np.linalg.norm(a) * np.linalg.norm(b))
            cosine = float(a @ b) / norms if norms > 0 else (1.0 if not a.any() and not b.any() else 0.0)
            if cosine < minimum:
                return Comparison(False, loose.max_abs, loose.max_rel, name,
                                  f"output '{name}' has cosine similarity {cosine:.4f} with the model before, below "
                                  f"{minimum:g}")
    return Comparison(True, loose.max_abs, loose.max_rel, loose.worst_output)


def record_verdict(record: PassOutcome, verdict: Verdict) -> None:
    """Copy how a step was verified, and its errors, onto its pass's report entry."""
    record.verification = verdict.kind
    if verdict.comparison is not None:
        record.max_abs_error = verdict.comparison.max_abs
        record.max_rel_error = verdict.comparison.max_rel
    elif verdict.kind == PROVED:
        record.max_abs_error = record.max_rel_error = 0.0


def summarize(enabled: bool, reference: Reference | None, chain: Sequence[State], inputs: list[str]) -> Verification:
    """How the final model (the last of ``chain``, oldest first) was shown to compute what the input did."""
    checker = reference.checker_error if reference is not None else None
    steps = [s for s in chain if s.job is not None]
    if not steps:
        return Verification("unchanged", "no pass changed the model", inputs, original_checker=checker)
    verdicts = [s.job.result() for s in steps if s.job is not None]
    last_tested = next((v for v in reversed(verdicts) if v.cumulative is not None), None)
    max_abs = last_tested.cumulative.max_abs if last_tested is not None and last_tested.cumulative else None
    max_rel = last_tested.cumulative.max_rel if last_tested is not None and last_tested.cumulative else None
    if all(v.kind == PROVED for v in verdicts):
        return Verification("verified", "every change was proved structurally (same nodes and weights)", inputs,
                            0.0, 0.0, checker, dropped=reference.dropped if reference is not None else None)
    if not enabled:
        return Verification("disabled", "--no-verify: only onnx.checker ran", [], original_checker=checker)
    if any(v.kind == UNVERIFIED for v in verdicts) or reference is None:
        why = reference.error if reference is not None else "no reference outputs"
        if why and why.startswith("timed out"):  # verify.RunTimeout: more sizes would not help
            return Verification("unverified", f"{why}; outputs were not compared, onnx.checker passed every step",
                                inputs, original_checker=checker)
        return Verification("unverified", f"onnxruntime could not run the original model, so outputs were not "
                                          f"compared ({why}); onnx.checker passed every step", inputs,
                            original_checker=checker, needs=reference.needs if reference is not None else None)
    how = None
    if reference is not None and reference.evaluator:
        how = f"the original ran in onnx's reference evaluator ({reference.evaluator})"
    return Verification("verified", how, inputs, max_abs if max_abs is not None else 0.0,
                        max_rel if max_rel is not None else 0.0, checker,
                        dropped=reference.dropped if reference is not None else None)


def runtime_load_error(
    model: "onnx.ModelProto | None", path: Path | None, as_users_load_it: bool = False
) -> str | None:
    """Why onnxruntime cannot load a model (from ``path`` when given, else ``model``), or None.

    ``as_users_load_it``: with graph optimizations on (onnxruntime's basic level, constant
    folding and the redundant-node removals, prepacking off to keep it quick), as a user's
    ``InferenceSession(path)`` loads it: optimizations resolve the graph again, inferring the
    types of If/Loop branches with the now-known shapes, which the verification sessions
    (optimizations off) never do. Otherwise with the verification's own options.
    """
    from atccheck.fixing.verify import LoadError, ModelSource, RunError, one_line, run_model

    source = ModelSource(path=path) if path is not None else ModelSource(model)
    try:
        if as_users_load_it:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.log_severity_level = 4
            options.add_session_config_entry("session.disable_prepacking", "1")
            try:
                ort.InferenceSession(source.payload, options, providers=["CPUExecutionProvider"])
            except Exception as exc:
                return f"onnxruntime cannot load the model with graph optimizations on: {one_line(exc)}"
            return None
        run_model(source, Inputs([], []))  # a session is made; no input set is run
    except LoadError as exc:
        return str(exc)
    except RunError:  # pragma: no cover - no set is run
        return None
    finally:
        source.release()
    return None


class LoadCheck:
    """The written model's load check, started on a thread as soon as a final candidate is staged.

    A model without If/Loop/Scan bodies that onnxruntime already loaded and ran for the last
    step's comparison is not loaded again: optimizing changes nothing onnxruntime checks there
    but the subgraphs' types. Otherwise ``start`` runs the check while the last step is still
    verified, and ``result`` reuses it when the settled final state is that candidate.
    """

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atccheck-load")
        self.serial: int | None = None
        self.future: "Future[str | None] | None" = None

    def start(self, state: State) -> None:
        from atccheck.fixing.verify import INLINE_LIMIT, approx_size

        if state.job is not None and not _has_subgraphs(state.model):
            return  # its verification loads it (when that runs onnxruntime); result() decides
        if approx_size(state.model) >= INLINE_LIMIT:  # too large for bytes: checked from the written file
            return
        self.serial = state.serial
        self.future = self.pool.submit(runtime_load_error, state.model, None, True)

    def result(self, final: State, verdict: "Verdict | None", written: Path | None) -> str | None:
        """The check of ``final`` (from the ``written`` file when it was not checked ahead)."""
        try:
            if verdict is not None and verdict.ok and verdict.kind == TESTED and not _has_subgraphs(final.model):
                return None  # onnxruntime loaded and ran this very model
            if self.future is not None and self.serial == final.serial:
                return self.future.result()
            return runtime_load_error(final.model, written, True)
        finally:
            self.close()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _has_subgraphs(model: "onnx.ModelProto") -> bool:
    import onnx

    return any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
               for n in model.graph.node for a in n.attribute)
