"""Verifying the steps of ``atccheck fix``, on a worker thread while the next passes run.

Each applied pass makes a :class:`State` (the model after it, its report, its parent). The
:class:`Verifier` checks each state against its parent in order: ``onnx.checker`` full check,
then a structural proof (``proof``: only names and shape annotations changed) or onnxruntime
outputs (``runtime``) against the model before the step, judged by the comparison the pass
declares (``numerics``). The reference run of the
original model starts first, beside the first check. :func:`summarize` turns the verdicts of
the final chain into the outcome's :class:`~atccheck.fixing.outcome.Verification`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from atccheck.errors import one_line
from atccheck.fixing.inputs import Inputs, fitted
from atccheck.fixing.outcome import DISABLED, PROVED, TESTED, UNVERIFIED, PassOutcome, Verification
from atccheck.fixing.proof import same_computation
from atccheck.fixing.runtime import (
    LoadError,
    ModelSource,
    RunError,
    RunTimeout,
    beside_work_threads,
    bind_cancel,
    check_graph,
    evaluate,
    run_model,
    run_or_evaluate,
    runtime_load_error,
    terminate_runs,
)
from atccheck.fixing.state import State
from atccheck.model.files import INLINE_LIMIT, approx_size
from atccheck.numerics import Allclose, Cosine, cosine_similarities

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.numerics import Comparison, Outputs


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
    timeout: float | None = None  # the time limit (s) the original's run hit, when it did


class Verifier:
    """One worker thread that checks each step in order while the pipeline goes on."""

    def __init__(self, inputs: "Inputs | None", enabled: bool, unavailable: str | None = None,
                 weights: Path | None = None) -> None:
        self.inputs = inputs
        self.enabled = enabled
        self.unavailable = unavailable  # why no inputs could be made, if so
        self.weights = weights  # the folder of the external data the models name (the input's own)
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

        checker_error = check_graph(model)
        if not self.enabled:
            return Reference(None, "disabled", checker_error)
        if self.inputs is None:
            return Reference(None, self.unavailable, checker_error)
        source = ModelSource(path=path) if path is not None else ModelSource(model, weights=self.weights)
        try:
            try:
                return Reference(run_model(source, self.inputs, threads=beside_work_threads()), None, checker_error,
                                 loads=True)
            except LoadError as exc:
                evaluated = evaluate(model, self.inputs)
                if evaluated is not None:  # a small model onnx's reference evaluator runs (float64 Conv)
                    return Reference(evaluated, None, checker_error, evaluator=str(exc))
                return Reference(None, str(exc), checker_error)
            except RunTimeout as exc:  # stopped (too long, or interrupted): another try would be too
                return Reference(None, str(exc), checker_error, loads=True, timeout=exc.limit)
            except RunError as exc:
                failure = exc
            # the original fails on some input set: keep the sets it runs on (the user's sample, say)
            kept, outputs, failed = [], [], []
            for feeds, label in zip(self.inputs.sets, self.inputs.labels):
                try:
                    outputs.extend(run_model(source, Inputs([feeds], [label], self.inputs.shapes)))
                    kept.append((feeds, label))
                except RunTimeout as exc:
                    return Reference(None, str(exc), checker_error, loads=True, timeout=exc.limit)
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
            from atccheck.errors import one_line

            return Verdict(False, reason=f"verification raised {type(exc).__name__}: {one_line(exc)}")
        finally:
            if not state.serialized.done():
                state.serialized.set_result(None)

    def _verify_unguarded(self, state: State) -> Verdict:

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
                parent_outputs = original = run_or_evaluate(ModelSource(parent.model, weights=self.weights), parent.model,
                                                            fitted(self.inputs, parent.model))
            except RunError:
                parent_outputs = None
        if parent_outputs is None or original is None or self.inputs is None:
            if reference.loads:  # nothing to compare, but a step must not make the model unloadable
                error = runtime_load_error(state.model, None, weights=self.weights)
                if error is not None:
                    return Verdict(False, reason=f"{error} (onnxruntime loads the original)")
            return Verdict(True, UNVERIFIED, reason=reference.error, proved_chain=False)
        source = ModelSource(state.model, weights=self.weights, data=state.data)
        state.data = None  # the source holds it now, until it is released
        state.serialized.set_result(source.data if source.weights is None else None)  # bytes a file can hold alone
        try:
            outputs = run_or_evaluate(source, state.model, fitted(self.inputs, state.model))
        except RunError as exc:
            source.release()
            return Verdict(False, reason=str(exc))
        judge = state.pass_cls.comparison  # what the pass declares
        comparison = judge.judge(parent_outputs, outputs)
        if not comparison.ok and isinstance(judge, Allclose) and judge.exact and math.isfinite(comparison.max_abs):
            comparison = _judged_where_rewritten(comparison, parent.model, state.model, source.data,
                                                 fitted(self.inputs, parent.model))
        cumulative = Allclose(math.inf, math.inf).judge(original, outputs)
        if isinstance(judge, Cosine) or (parent_verdict is not None and parent_verdict.cumulative is not None
                                         and parent_verdict.cumulative.cosines is not None):
            # a step judged by cosine: the final model's cosine against the original is shown too
            cumulative = replace(cumulative, cosines=cosine_similarities(original, outputs))
        if parent_verdict is not None:
            parent_verdict.data = None  # only the newest serialization may be written
        data = source.data if source.weights is None else None
        source.release()
        if not comparison.ok:
            return Verdict(False, TESTED, comparison.reason, comparison, cumulative)
        return Verdict(True, TESTED, None, comparison, cumulative, outputs, data, original, proved_chain=False)

    def close(self) -> None:

        self.pool.shutdown(wait=False, cancel_futures=True)
        self.cancelled.set()  # before terminate_runs: a run registering after it sees the event
        terminate_runs()  # a run still going is one nobody waits for (an interrupt, an error)
        self.pool.shutdown(wait=True)


def _judged_where_rewritten(comparison: "Comparison", before: "onnx.ModelProto", after: "onnx.ModelProto",
                            data: bytes | None, inputs: Inputs) -> "Comparison":
    """An exact rewrite whose outputs fail the tolerance, judged again at the values it rewrote
    against the float rounding bound of its arithmetic (``rounding``); the outputs' figures stay."""
    from atccheck.fixing.rounding import rounding_check

    try:
        bound = rounding_check(before, after, data, inputs)
    except RunError as exc:
        bound = f"the models do not run with the rewritten values exposed ({exc})"
    if isinstance(bound, str):
        return replace(comparison, reason=f"{comparison.reason}; not judged at the rewritten values: {bound}")
    if bound.measured <= bound.bound:
        return replace(comparison, ok=True, reason=None, method="rounding", measured=bound.measured,
                       bound=bound.bound, rounding=bound)
    return replace(comparison, method="rounding", measured=bound.measured, bound=bound.bound, rounding=bound,
                   reason=f"{comparison.reason}, and the rewritten values differ beyond float rounding")


def record_verdict(record: PassOutcome, verdict: Verdict) -> None:
    """Copy how a step was verified, and its errors, onto its pass's report entry."""
    record.verification = verdict.kind
    if verdict.comparison is not None:
        record.max_abs_error = verdict.comparison.max_abs
        record.max_rel_error = verdict.comparison.max_rel
        record.comparison = verdict.comparison
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
        if reference is not None and reference.timeout is not None:  # more sizes would not help
            return Verification("unverified", f"the original model's reference run hit the time limit of "
                                              f"{reference.timeout:g} s (a loop without an end?), so outputs were not "
                                              "compared; onnx.checker passed every step",
                                inputs, original_checker=checker, timeout_s=reference.timeout)
        return Verification("unverified", f"onnxruntime could not run the original model, so outputs were not "
                                          f"compared ({why}); onnx.checker passed every step", inputs,
                            original_checker=checker, needs=reference.needs if reference is not None else None)
    how = None
    if reference is not None and reference.evaluator:
        how = f"the original ran in onnx's reference evaluator ({reference.evaluator})"
    thresholds = [s.pass_cls.comparison.minimum for s in steps
                  if s.pass_cls is not None and isinstance(s.pass_cls.comparison, Cosine)]
    cosines = last_tested.cumulative.cosines if last_tested is not None and last_tested.cumulative else None
    return Verification("verified", how, inputs, max_abs if max_abs is not None else 0.0,
                        max_rel if max_rel is not None else 0.0, checker,
                        dropped=reference.dropped if reference is not None else None,
                        cosines=cosines if thresholds else None, cosine_threshold=max(thresholds, default=None))


class LoadCheck:
    """The written model's load check, started on a thread as soon as a final candidate is staged.

    A model without If/Loop/Scan bodies that onnxruntime already loaded and ran for the last
    step's comparison is not loaded again: optimizing changes nothing onnxruntime checks there
    but the subgraphs' types. Otherwise ``start`` runs the check while the last step is still
    verified, and ``result`` reuses it when the settled final state is that candidate.
    """

    def __init__(self, weights: Path | None = None) -> None:
        self.weights = weights  # the folder of the external data the models name
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atccheck-load")
        self.serial: int | None = None
        self.future: "Future[str | None] | None" = None

    def start(self, state: State) -> None:

        if state.job is not None and not _has_subgraphs(state.model):
            return  # its verification loads it (when that runs onnxruntime); result() decides
        from atccheck.model.weights import has_external

        # too large for bytes, or weights in files: checked from the written file, once the
        # verification's own session is gone (two sessions at once would hold the weights twice)
        if has_external(state.model) or approx_size(state.model) >= INLINE_LIMIT:
            return
        self.serial = state.serial
        self.future = self.pool.submit(runtime_load_error, state.model, None, True, self.weights)

    def result(self, final: State, verdict: "Verdict | None", written: Path | None) -> str | None:
        """The check of ``final`` (from the ``written`` file when it was not checked ahead)."""
        try:
            if verdict is not None and verdict.ok and verdict.kind == TESTED and not _has_subgraphs(final.model):
                return None  # onnxruntime loaded and ran this very model
            if self.future is not None and self.serial == final.serial:
                return self.future.result()
            return runtime_load_error(final.model, written, True, self.weights)
        finally:
            self.close()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _has_subgraphs(model: "onnx.ModelProto") -> bool:
    import onnx

    return any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
               for n in model.graph.node for a in n.attribute)
