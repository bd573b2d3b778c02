"""``atccheck fix``: remove what a graph rewrite can remove, prove the result, write it.

The pipeline:

1. Load the model, say at once when this machine lacks the memory it needs
   (``atccheck/fixing/memory.py``), check it (the *before* report) and decide the static input
   shapes (``make-inputs-static``'s plan), which also fixes the shapes of the verification
   inputs. Then the weights: those inside the file are read with it; those in external data
   files stay there (their files are checked, not read). A pass reads the tensors it rewrites
   (``atccheck.model.weights.tensor_array``), onnxruntime reads the rest from their files, and
   the output's data file is copied from them.
2. Run the passes in ``atccheck.passes.base.ORDER``, each only when a finding of the current
   model calls for it (unsafe passes only with ``unsafe_fixes``). A pass works on a copy.
   Its result must be a valid graph in node order
   (:func:`atccheck.model.loading.graph_problem`), else it is reverted at once.
   After each pass the rules run again on the result, which decides the next passes. The
   passes repeat in rounds until a round changes nothing (a fixed point), at most
   :data:`MAX_ROUNDS` rounds: a pass runs again on every model it has not seen, whatever it
   did before. A decomposition can let ``convert-opset`` reach a lower opset it was rolled
   back from in round 1. A pass rolled back :data:`MAX_REVERTS` times does not run again.
3. Every step is verified on a worker thread while the next passes run: ``onnx.checker``
   full check, then either a structural proof (only names and shape annotations changed) or
   onnxruntime outputs against the model before the step, within the pass's tolerance. A
   step that fails (or a pass that raises) is rolled back, reported as reverted with its
   error, and the passes after it are replayed on the model before it.
   (``atccheck/fixing/verifier.py``.)
4. Write the result (atomically; external data beside it when the input had external data or
   the model is 2 GiB or more), check it again, and build the ``atc`` command line for it.
   (Output paths, staging and writing: ``atccheck/fixing/output.py``.)

:func:`fix` is the three steps in a row: :func:`prepare` (steps up to the first check),
:func:`run` (the check, the weights, the passes and their verification) and :func:`finish`
(the outcome, the written model, the atc command).

Nothing here prints or exits: :func:`fix` returns a :class:`FixOutcome` (``atccheck/fixing/outcome.py``;
this module re-exports it with ``PassStatus`` and the other data classes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.errors import AtcCheckError, InputError
from atccheck.findings import Finding, FixSuggestion
from atccheck.fixing.outcome import (
    SCHEMA_VERSION,
    UNVERIFIED,
    FixOutcome,
    PassOutcome,
    PassStatus,
    RemainingFinding,
    Verification,
    finding_delta,
)
from atccheck.fixing.output import Staging, default_output, inline_limit, resolve_output, write_model
from atccheck.fixing.runtime import runtime_load_error
from atccheck.fixing.state import State
from atccheck.fixing.verifier import LoadCheck, Verifier, record_verdict, summarize
from atccheck.model.loading import LoadedModel, check_external_files, graph_problem, load_model, read_weights
from atccheck.model.weights import weights_from
from atccheck.passes.base import ORDER, FixPass, Note, PassContext
from atccheck.report import Report
from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE, Target

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import onnx

    from atccheck.atc.command import AtcCommand
    from atccheck.fixing.verifier import Reference, Verdict
    from atccheck.passes.make_inputs_static import StaticPlan

# the public names of ``atccheck.fixing.pipeline`` (the data classes live in atccheck.fixing.outcome)
__all__ = [
    "fix",
    "FixOutcome",
    "PassOutcome",
    "PassStatus",
    "RemainingFinding",
    "Verification",
    "SCHEMA_VERSION",
    "default_output",
    "resolve_output",
    "read_weights",
]

MAX_ROUNDS = 6
# A pass rolled back this many times is not tried again in that run (each try may be costly,
# and a pass that failed on two different models rarely succeeds on a third).
MAX_REVERTS = 2


# --------------------------------------------------------------------------- loading


def working_model(loaded: LoadedModel, source: "str | os.PathLike[str] | onnx.ModelProto") -> "onnx.ModelProto":
    """The model the passes start from. Weights in external data files stay there (their files are
    checked, not read): a pass reads the tensors it rewrites, onnxruntime reads the rest itself."""
    if loaded.external and loaded.path is not None:
        check_external_files(loaded)
        return loaded.model
    return read_weights(loaded, source)


# --------------------------------------------------------------------------- the pipeline


class _Pipeline:
    def __init__(
        self,
        passes: Sequence[type[FixPass]],
        target: Target,
        user_shapes: Mapping[str, tuple[int, ...]],
        unsafe: bool,
        options: Mapping[str, Any],
        verifier: Verifier,
        on_step: "Callable[[PassOutcome, Report, Report], None] | None" = None,
    ) -> None:
        self.on_step = on_step
        self.passes = list(passes)
        self.target = target
        self.user_shapes = dict(user_shapes)
        self.unsafe = unsafe
        self.options = dict(options)
        self.verifier = verifier
        self.records: list[PassOutcome] = []
        self.excluded: set[str] = set()
        self.reverts: dict[str, int] = {}
        # the serial of the state each pass last ran on (or was rolled back to): it runs again
        # only on a model it has not seen
        self.last_run: dict[str, int] = {}
        self.serial = 0
        self.weights = verifier.weights  # the folder external-data locations are relative to

    def check(self, model: "onnx.ModelProto") -> Report:
        from atccheck.engine import check_prepared, prepare

        return check_prepared(prepare(model), self.target)

    def new_state(self, model: "onnx.ModelProto", report: Report, **kw: Any) -> State:
        self.serial += 1
        return State(self.serial, model, report, **kw)

    def run(self, start: State, before_settling: "Callable[[State], None] | None" = None) -> State:
        """Run passes from ``start`` until settled, replaying after a rolled-back step.

        ``before_settling`` gets each candidate final state before its verification is awaited
        (fix stages the output file meanwhile).
        """
        state = start
        while True:
            state = self._rounds(state)
            if before_settling is not None:
                before_settling(state)
            failing = self._first_failure(state)
            if failing is None:
                return state
            self._revert(failing)
            assert failing.parent is not None
            state = failing.parent

    def _rounds(self, state: State) -> State:
        for round_no in range(1, MAX_ROUNDS + 1):
            changed = False
            for cls in self.passes:
                if cls.name in self.excluded or self.last_run.get(cls.name) == state.serial:
                    continue
                instance = cls()
                try:
                    wanted = instance.wanted(state.report.findings)
                except Exception as exc:  # a broken pass must not stop the others
                    from atccheck.errors import one_line

                    record = _outcome(cls, PassStatus.REVERTED, round_no)
                    self.records.append(record)
                    self._reject(record, f"deciding whether to run raised {type(exc).__name__}: {one_line(exc)}")
                    self.excluded.add(cls.name)  # a broken test of the findings fails on every model
                    continue
                if not wanted:
                    continue
                if not cls.safe and not self.unsafe:
                    if not any(r.name == cls.name and r.status is PassStatus.SKIPPED for r in self.records):
                        self.records.append(_outcome(
                            cls, PassStatus.SKIPPED, round_no,
                            reason="unsafe (changes numerics or relies on an assumption): run with --unsafe-fixes"))
                    continue
                new = self._step(instance, state, round_no)
                if new is not state:
                    state = new
                    changed = True
            if not changed:
                break
        return state

    def _step(self, instance: FixPass, state: State, round_no: int) -> State:
        import onnx

        cls = type(instance)
        record = _outcome(cls, PassStatus.UNCHANGED, round_no, nodes_before=state.report.node_count,
                          tolerance=cls.comparison.atol, rtol=cls.comparison.rtol)
        self.records.append(record)
        self.last_run[cls.name] = state.serial
        if cls.copy_input:
            candidate = onnx.ModelProto()
            candidate.CopyFrom(state.model)
        else:  # the pass leaves its input as it is: no copy of the weights needed
            candidate = state.model
        ctx = PassContext(self.target, self.user_shapes, tuple(state.report.findings), self.unsafe, self.options,
                          context=state.report.context)
        started = time.perf_counter()
        try:
            with weights_from(self.weights):
                result = instance.run(candidate, ctx)
        except AtcCheckError:
            raise  # a usage error (e.g. a bad --input-shape) is the user's, not the pass's
        except Exception as exc:
            from atccheck.errors import one_line

            record.seconds = time.perf_counter() - started
            self._reject(record, f"the pass raised {type(exc).__name__}: {one_line(exc)}")
            return state
        record.seconds = time.perf_counter() - started
        record.notes = list(result.notes)
        if not result.modified:
            if any(r.name == cls.name for r in self.records[:-1]):
                self.records.pop()  # a re-run that found nothing new adds nothing to the report
            return state
        problem = graph_problem(result.model, in_order=True)  # before the rules walk it: no cycles
        try:
            report = self.check(result.model) if problem is None else None
        except AtcCheckError as exc:  # InputError: the rewrite left an invalid graph
            report, problem = None, str(exc)
        if report is None:
            self._reject(record, f"the result is not a valid graph: {problem}")
            return state
        record.status = PassStatus.APPLIED
        record.nodes_after = report.node_count
        record.removed, record.added = finding_delta(state.report, report)
        new = self.new_state(result.model, report, parent=state, step=record, pass_cls=cls, data=result.data)
        if self.on_step is not None:
            self.on_step(record, state.report, report)
        new.job = self.verifier.submit(new)
        self.last_run[cls.name] = new.serial
        return new

    def _first_failure(self, state: State) -> State | None:
        for item in state.lineage():
            if item.job is None:  # the start: nothing to verify
                continue
            assert item.step is not None
            verdict = item.job.result()
            record_verdict(item.step, verdict)
            if not verdict.ok:
                return item
        return None

    def _revert(self, failing: State) -> None:
        record = failing.step
        assert record is not None and failing.pass_cls is not None
        verdict = failing.job.result() if failing.job is not None else None
        self._reject(record, (verdict.reason if verdict is not None else None) or "verification failed")
        record.nodes_after = None
        # steps recorded after the failing one ran on a model that no longer exists
        index = self.records.index(record)
        self.records = self.records[: index + 1]
        assert failing.parent is not None
        parent_serial = failing.parent.serial
        self.last_run = {k: v for k, v in self.last_run.items() if v <= parent_serial}
        # it failed on the parent: it runs again only once another pass has changed that model
        self.last_run[failing.pass_cls.name] = parent_serial

    def _reject(self, record: PassOutcome, reason: str) -> None:
        """Report the pass as reverted, saying why; after MAX_REVERTS of these it does not run again."""
        record.status = PassStatus.REVERTED
        record.reason = reason
        self.reverts[record.name] = self.reverts.get(record.name, 0) + 1
        if self.reverts[record.name] >= MAX_REVERTS:
            self.excluded.add(record.name)


def _outcome(cls: type[FixPass], status: PassStatus, round_no: int | None, **kw: Any) -> PassOutcome:
    """A report entry for one pass."""
    return PassOutcome(cls.name, cls.stage, cls.safe, status, round_no, **kw)


# --------------------------------------------------------------------------- remaining findings


def _why(finding: Finding, records: Sequence[PassOutcome], passes: Sequence[type[FixPass]], unsafe: bool) -> str:
    by_name = {p.name: p for p in passes}
    if finding.fix.pass_name != FixSuggestion.MANUAL:
        names = [finding.fix.pass_name]
    else:
        names = [p.name for p in passes if _wants(p, finding)]
    if not names:
        return f"no graph rewrite removes it; {finding.hint}"
    reasons = []
    ran_out = []  # passes that ran and left it: running fix again will not help
    rolled_back: list[str] = []  # passes rolled back on this model: neither will running them again
    for name in names:
        cls = by_name.get(name)
        runs = [r for r in records if r.name == name]
        if cls is None:
            reasons.append(f"the pass it needs, {name}, is not part of this version of atccheck")
        elif runs and runs[-1].status is PassStatus.REVERTED:
            reasons.append(f"{name} was rolled back: {runs[-1].reason}")
            rolled_back.append(name)
        elif not cls.safe and not unsafe:
            reasons.append(f"{name} is unsafe (it changes numerics or relies on an assumption): run with --unsafe-fixes")
        elif runs:
            detail = "; ".join(_relevant_notes(finding, runs[-1])[:3])
            reasons.append(f"{name} ran but could not remove it" + (f" ({detail})" if detail else ""))
            ran_out.append(name)
        else:
            reasons.append(f"{name} did not run")
    if rolled_back and len(ran_out) + len(rolled_back) == len(names) and finding.fix.pass_name in rolled_back:
        return "; ".join(reasons) + f"; next step: {BY_HAND_ROLLED_BACK.format(name=finding.fix.pass_name)}"
    if ran_out and len(ran_out) == len(names) and finding.fix.pass_name in ran_out:
        # the finding's hint says to run that pass, which already ran: say what is left to do instead
        steps = [BY_HAND.get(name, BY_HAND_DEFAULT) for name in ran_out]
        step = next((s for s in steps if s is not None), None)
        return "; ".join(reasons) + f"; next step: {step if step is not None else finding.hint}"
    return "; ".join(reasons) + f"; next step: {finding.hint}"


# What is left to do by hand when a pass ran and a finding it addresses remains (the finding's
# own hint would only say to run the pass again). None: the finding's hint still applies.
BY_HAND_DEFAULT = ("manual: rewrite the node by hand or re-export the model without it (the pass's notes say "
                   "what it left)")
BY_HAND_ROLLED_BACK = ("manual: {name} did not hold on this model (rolled back, so running fix again will not "
                       "help); rewrite the node by hand or re-export the model without it")
BY_HAND: dict[str, str | None] = {
    "make-inputs-static": None,  # its hint names the --input-shape to give
    "simplify": ("manual: onnxsim already folded what it could and left this value computed at run time; make it "
                 "a constant in the exported model (static shapes, constant sizes and scales) or replace the op "
                 "that computes it"),
    "convert-opset": ("manual: the ops its notes name block every registered opset; decompose them or re-export the "
                      "model at a registered opset"),
    "single-opset-import": ("manual: the custom-domain ops stay; rewrite them into standard ops or give ATC a "
                            "custom-op plugin for them"),
    "unroll-loop": ("manual: the trip count or the loop's body depends on run-time data; move the loop out of the "
                    "model or re-export it with a fixed number of iterations"),
}


def _wants(cls: type[FixPass], finding: Finding) -> bool:
    """Whether this finding alone would make the pass run (its own test, e.g. int64 only)."""
    try:
        return cls().wanted([finding])
    except Exception:  # a pass's test must not break the report
        return False


def _relevant_notes(finding: Finding, record: PassOutcome) -> list[str]:
    """The notes of a pass's run that explain what it left (``Note.left``), those about the finding's
    node or input first (``Note.about``); all its notes when none says what it left."""
    notes = list(dict.fromkeys(n for n in record.notes if n))
    left: list[str] = [n for n in notes if isinstance(n, Note) and n.left] or notes
    keys = [k for k in (finding.location.node, finding.data.get("input") if finding.data else None) if k]
    specific: list[str] = [n for n in left if isinstance(n, Note) and any(k in n.about for k in keys)]
    return specific or left


def _skipped_records(
    records: list[PassOutcome], passes: Sequence[type[FixPass]], states: Sequence[State]
) -> list[PassOutcome]:
    """A 'skipped' entry for every pass that never ran, saying why."""
    ran = {r.name for r in records}
    out = []
    for cls in passes:
        if cls.name in ran:
            continue
        instance = cls()
        removed_by = None
        for prev, state in zip(states, states[1:]):
            if instance.wanted(prev.report.findings) and not instance.wanted(state.report.findings):
                removed_by = state.step.name if state.step is not None else None
                break
        reason = (f"its findings were removed by an earlier pass ({removed_by})" if removed_by
                  else "no finding calls for it")
        out.append(_outcome(cls, PassStatus.SKIPPED, None, reason=reason))
    return out


def _ordered(passes: Sequence[type[FixPass]]) -> list[type[FixPass]]:
    return sorted(passes, key=lambda p: (ORDER.index(p.stage), p.name))


# --------------------------------------------------------------------------- fix


@dataclass
class FixRun:
    """What :func:`prepare` makes ready for a fix: the model, the target, the verification set-up."""

    source: "str | os.PathLike[str] | onnx.ModelProto"
    target: Target
    user_shapes: dict[str, tuple[int, ...]]
    loaded: LoadedModel
    plan: "StaticPlan"
    out: Path | None
    verifier: Verifier
    staged: Staging
    load_check: LoadCheck
    verify: bool
    in_place: bool
    options: Mapping[str, Any]
    started: float
    samples: "Mapping[str, np.ndarray] | None" = None  # the user's inputs (the precision preflight runs them too)


@dataclass
class Settled:
    """What :func:`run` leaves: the pipeline's records, the first and the settled state, the verdicts."""

    pipeline: _Pipeline
    before: Report
    start: State
    final: State
    reference: "Reference | None"
    final_verdict: "Verdict | None"
    shown_before: Report  # the before counts as check shows them with the user's --input-shape


def fix(
    model: "str | os.PathLike[str] | onnx.ModelProto",
    soc: str,
    cann: str = DEFAULT_PROFILE,
    input_shapes: "str | Mapping[str, Sequence[int]] | None" = None,
    *,
    inputs: "str | os.PathLike[str] | Mapping[str, np.ndarray] | None" = None,
    output: "str | os.PathLike[str] | None" = None,
    in_place: bool = False,
    write: bool = True,
    unsafe_fixes: bool = False,
    verify: bool = True,
    precision_mode: str = DEFAULT_PRECISION_MODE,
    passes: Sequence[type[FixPass]] | None = None,
    options: Mapping[str, Any] | None = None,
    on_step: "Callable[[PassOutcome, Report, Report], None] | None" = None,
    numerics: bool = True,
) -> FixOutcome:
    """Fix a model for ``atc`` on one chip; see the module docstring for the pipeline.

    ``model`` is a path (the result goes to ``output``, default ``MODEL.atc.onnx``, or over
    the input with ``in_place``) or a ModelProto (written only when ``output`` is given).
    ``inputs`` is an ``.npz`` path or a mapping of arrays fed to both models besides the
    seeded random inputs. ``passes`` replaces the registered passes (tests inject a broken
    pass this way). ``on_step`` is called with each applied step's record and the reports of
    the model before and after it (the HTML report draws each step from them). Raises
    UsageError / InputError for bad options and unreadable models; a pass that fails never
    raises: it is reverted and reported.
    """
    from atccheck.passes import all_passes

    prepared = prepare(model, soc, cann, input_shapes, inputs=inputs, output=output, in_place=in_place, write=write,
                       verify=verify, precision_mode=precision_mode, options=options)
    settled = run(prepared, _ordered(passes if passes is not None else all_passes()), unsafe_fixes, on_step)
    return finish(prepared, settled, unsafe_fixes, numerics=numerics)


def prepare(
    model: "str | os.PathLike[str] | onnx.ModelProto",
    soc: str,
    cann: str = DEFAULT_PROFILE,
    input_shapes: "str | Mapping[str, Sequence[int]] | None" = None,
    *,
    inputs: "str | os.PathLike[str] | Mapping[str, np.ndarray] | None" = None,
    output: "str | os.PathLike[str] | None" = None,
    in_place: bool = False,
    write: bool = True,
    verify: bool = True,
    precision_mode: str = DEFAULT_PRECISION_MODE,
    options: Mapping[str, Any] | None = None,
) -> FixRun:
    """Resolve the target and the output, load the model (graph only), plan its static shapes and make
    the verification inputs: everything before the first check."""
    import onnx

    from atccheck.engine import as_input_shapes
    from atccheck.fixing.inputs import Inputs, load_samples, make_inputs
    from atccheck.fixing.runtime import RunError
    from atccheck.model.input_shape import validate_input_shapes
    from atccheck.passes.make_inputs_static import plan_static_shapes
    from atccheck.target import resolve_target

    started = time.perf_counter()
    target = resolve_target(soc, cann, precision_mode)
    user_shapes = as_input_shapes(input_shapes)
    source_path = None if isinstance(model, onnx.ModelProto) else Path(model)
    out = resolve_output(source_path, output, in_place) if write else None

    loaded = load_model(model)
    validate_input_shapes(loaded.model, user_shapes)  # refused as check refuses them
    if (options or {}).get("memory_check", True):
        from atccheck.fixing.memory import shortfall

        short = shortfall(loaded)  # before the run, rather than killed in the middle of it
        if short is not None:
            raise InputError(loaded.display_name, short)
    plan = plan_static_shapes(loaded.model, user_shapes)  # the graph is enough
    samples, label = None, "sample"
    if inputs is not None:
        if isinstance(inputs, (str, os.PathLike)):
            samples, label = load_samples(inputs), f"--inputs {os.fspath(inputs)}"
        else:
            samples = dict(inputs)
    weights = loaded.base_dir if loaded.external else None
    try:
        feed: Inputs | None = make_inputs(loaded.model, plan.dims, samples, label)
        unavailable = None
    except RunError as exc:
        feed, unavailable = None, str(exc)
    return FixRun(
        source=model, target=target, user_shapes=user_shapes, loaded=loaded, plan=plan, out=out,
        verifier=Verifier(feed, verify, unavailable, weights=weights),
        staged=Staging(out, None if loaded.external else inline_limit(options), durable=in_place),
        load_check=LoadCheck(weights), verify=verify, in_place=in_place, options=dict(options or {}), started=started,
        samples=samples,
    )


def run(
    prepared: FixRun,
    passes: Sequence[type[FixPass]],
    unsafe: bool,
    on_step: "Callable[[PassOutcome, Report, Report], None] | None" = None,
) -> Settled:
    """Check the model, read its weights, and run the passes until the result settles, each step
    verified; the verification threads stop before it returns or raises."""
    from atccheck.engine import check_prepared, prepare as prepare_check

    verifier, loaded = prepared.verifier, prepared.loaded
    # onnxruntime reads a model file (and its external data) itself: start the reference run at
    # once, beside the check; a ModelProto needs its weights read in first
    early = loaded.path is not None
    try:
        if early:
            verifier.start_reference(loaded.model, loaded.path)
        before = check_prepared(prepare_check(loaded), prepared.target)  # as stored: weights not read yet
        # the before counts as check shows them with the same --input-shape; made before anything is
        # staged, so an --input-shape the graph cannot take stops fix with nothing written
        shown_before = before
        if prepared.user_shapes:
            shown_before = check_prepared(prepare_check(loaded, prepared.user_shapes), prepared.target)
        working = working_model(loaded, prepared.source)
        if not early:
            verifier.start_reference(working, loaded.path)
        pipeline = _Pipeline(passes, prepared.target, prepared.user_shapes, unsafe, prepared.options, verifier,
                             on_step)
        start = pipeline.new_state(working, before)

        def settling(state: State) -> None:
            prepared.staged.stage(state)
            prepared.load_check.start(state)

        final = pipeline.run(start, settling)
        reference = verifier.reference.result() if verifier.reference is not None else None
        final_verdict = final.job.result() if final.job is not None else None
    except BaseException:
        prepared.staged.discard()
        prepared.load_check.close()
        raise
    finally:
        verifier.close()
    return Settled(pipeline, before, start, final, reference, final_verdict, shown_before)


def finish(prepared: FixRun, settled: Settled, unsafe: bool, numerics: bool = True) -> FixOutcome:
    """The outcome: what each pass did, how the result was verified, what remains and why; the model
    written and loaded back as a user loads it; the precision preflight of it (``numerics``), with the
    --keep_dtype list written beside it; its atc command line."""
    from atccheck.model.files import approx_size

    pipeline, before, start, final = settled.pipeline, settled.before, settled.start, settled.final
    out, loaded, target = prepared.out, prepared.loaded, prepared.target
    chain = final.lineage()
    records = pipeline.records + _skipped_records(pipeline.records, pipeline.passes, chain)
    # in the order the passes ran (a replay after a rollback starts again at round 1), skipped last
    records.sort(key=lambda r: r.status is PassStatus.SKIPPED)

    used = prepared.verifier.inputs  # without the sets the original fails on, when some run
    verification = summarize(prepared.verify, settled.reference, chain, used.describe() if used is not None else [])
    shown_before = settled.shown_before
    after = final.report.filtered(final.report.findings)
    after.model = str(out) if out is not None else before.model
    remaining = [RemainingFinding(f, _why(f, records, pipeline.passes, unsafe)) for f in after.findings]

    external = None
    final_model = final.model
    final_verdict = settled.final_verdict
    shown_verdict = final_verdict if final is not start else None
    # the written model must load in onnxruntime with graph optimizations on, as a user loads it,
    # before it is called fixed; the verification runs had them off, which skips some type inference.
    # The input itself is replaced only by a model that loads.
    runtime_error = prepared.load_check.result(final, shown_verdict, None) if prepared.in_place else None
    if runtime_error is not None:
        prepared.staged.discard()
    elif out is not None and not prepared.staged.commit(final):  # nothing staged for this model: write it now
        needs_external = bool(loaded.external) or approx_size(final_model) >= inline_limit(prepared.options)
        data = final_verdict.data if final_verdict is not None and final is not start else None
        external = write_model(final_model, out, needs_external, data, durable=prepared.in_place,
                               weights=prepared.verifier.weights)
    if not prepared.in_place:
        runtime_error = prepared.load_check.result(final, shown_verdict,
                                                   out if out is not None and out.exists() else None)
    written = out is not None and runtime_error is None
    if out is not None and runtime_error is not None and not prepared.in_place:  # nothing unfixed is left behind
        _remove_written(out, external)
        external = None
    if runtime_error is not None and final is not start \
            and runtime_load_error(start.model, loaded.path, as_users_load_it=True) is None:
        runtime_error += ("; the input model loads, so the fixed input shapes or a rewrite make it fail (a branch "
                          "of If/Loop that cannot take the --input-shape sizes, say)")

    preflight, keep_file = None, None
    # not when onnxruntime could not run the original (nor in time): the simulation would fail the same way
    if numerics and prepared.verify and written and out is not None and verification.status != UNVERIFIED:
        from atccheck.precision.preflight import preflight_written  # the precision preflight of the written model

        preflight, keep_file = preflight_written(final.report, final_model, out, prepared.samples)
    command, command_error = _atc_command(final_model, out if written else None, target, keep_file)
    return FixOutcome(
        source=before.model,
        target=target,
        before=shown_before,
        after=after,
        passes=records,
        remaining=remaining,
        verification=verification,
        model=final_model,
        output=out,
        written=written,
        external_data=external,
        warnings=prepared.plan.warnings(),
        input_shapes=_input_dims(final_model),
        atc_command=command,
        atc_command_error=command_error,
        seconds=time.perf_counter() - prepared.started,
        runtime_error=runtime_error,
        numerics=preflight,
        keep_dtype_file=keep_file,
    )


def _remove_written(out: Path, external: str | None) -> None:
    """Remove a written model that is not fixed (onnxruntime cannot load it), with its data file."""
    for path in (out, out.parent / external if external else None):
        if path is not None:
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def _input_dims(model: "onnx.ModelProto") -> dict[str, list[int | str | None]]:
    from atccheck.model.shapes import graph_inputs, type_info

    dims: dict[str, list[int | str | None]] = {}
    for vi in graph_inputs(model):
        info = type_info(vi.type)
        if info is not None and info.shape is not None:
            dims[vi.name] = list(info.shape)
    return dims


def _atc_command(model: "onnx.ModelProto", out: Path | None, target: Target,
                 keep_dtype: Path | None = None) -> tuple["AtcCommand | None", str | None]:
    if out is None:
        return None, "no output file was written, so there is no model path for atc"
    try:
        from atccheck.atc.command import build_command
    except ImportError:  # pragma: no cover - the generator ships with atccheck
        return None, "the atc command generator is not available"
    try:
        return build_command(model, str(out), target.soc.name, precision_mode=target.precision_mode,
                             cann=target.profile.id, keep_dtype=str(keep_dtype) if keep_dtype else None), None
    except AtcCheckError as exc:
        return None, str(exc)
