"""Directory mode: check many models for one or more chips, in parallel processes.

Every model is loaded and shape-inferred once (``engine.prepare``) and then checked for each
target (``engine.check_prepared``), so a model x chip matrix costs one load per model. With
``jobs > 1`` models are spread over worker processes; a model that cannot be checked (missing,
empty, not ONNX, shapes that do not fit it, even one that kills its worker process) becomes an
:class:`UncheckedModel` and the others go on.

Reports from worker processes come back without their ``context`` (the loaded graph is not sent
between processes); in-process runs keep it when asked (``keep_context``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.model import onnxpb
from atccheck.model.files import FIXED_MODEL_SUFFIX  # what fix writes beside its input: folders skip these
from atccheck.report import Report

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.spec import Gears
    from atccheck.target import Target

MODEL_SUFFIX = ".onnx"
# Worker processes start fresh ("spawn"): forking a parent that may hold onnx/onnxruntime
# threads is not safe, and spawn behaves the same on Linux, macOS and Windows.
START_METHOD = "spawn"


@dataclass(frozen=True)
class UncheckedModel:
    """A model that could not be checked: its path and the problem, in one line."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"

    def to_dict(self) -> dict[str, str]:
        return {"model": self.path, "problem": self.problem}


Outcome = list[Report] | UncheckedModel


@dataclass(frozen=True)
class BatchResult:
    reports: tuple[Report, ...]  # model order, then target order
    unchecked: tuple[UncheckedModel, ...]


# --------------------------------------------------------------------------- discovery


def discover(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[str], list[UncheckedModel]]:
    """Model files from command-line arguments: files as given, folders searched for ``*.onnx``.

    A folder is searched recursively (hidden folders and the ``*.atc.onnx`` files that
    ``atccheck fix`` writes skipped), in sorted order; a file given by name is checked whatever
    its suffix (the loader says when it is no model). A folder without any model is reported
    as unchecked. Duplicates are dropped.
    """
    models: list[str] = []
    unchecked: list[UncheckedModel] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            models.append(path)

    for arg in paths:
        arg = os.fspath(arg)
        if os.path.isdir(arg):
            found = models_below(arg)
            if not found:
                unchecked.append(UncheckedModel(arg, f"folder holds no {MODEL_SUFFIX} file"))
            for path in found:
                add(path)
        else:
            add(arg)
    return models, unchecked


def models_below(folder: str) -> list[str]:
    found = []
    for directory, subdirs, files in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            lowered = name.lower()
            if lowered.endswith(MODEL_SUFFIX) and not lowered.endswith(FIXED_MODEL_SUFFIX) and not name.startswith("."):
                found.append(str(Path(directory) / name))
    return found


# --------------------------------------------------------------------------- checking one model


def check_one(
    model: str,
    targets: Sequence["Target"],
    *,
    input_shapes: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    keep_context: bool = True,
    gears: "Gears | None" = None,
) -> Outcome:
    """One model for every target; an :class:`UncheckedModel` instead of raising for bad input.
    With ``gears`` the model is checked at every gear's static shapes (``atccheck.gears.check_geared``)."""
    from atccheck.engine import check_prepared, prepare
    from atccheck.errors import AtcCheckError, InputError
    from atccheck.gears import check_geared, prepare_gears

    try:
        if gears is not None:
            geared = prepare_gears(model, gears, input_shapes)
            reports = [check_geared(geared, t, select=select, ignore=ignore, options=options) for t in targets]
        else:
            prepared = prepare(model, input_shapes)
            reports = [check_prepared(prepared, t, select=select, ignore=ignore, options=options) for t in targets]
    except InputError as exc:
        return UncheckedModel(model, exc.problem)
    except AtcCheckError as exc:  # --input-shape / input-shapes that do not fit this model
        return UncheckedModel(model, str(exc))
    except MemoryError:
        return UncheckedModel(model, "out of memory while checking")
    except Exception as exc:  # a bug must not stop the other models
        return UncheckedModel(model, f"internal error: {type(exc).__name__}: {exc}")
    if not keep_context:
        for report in reports:
            report.context = None
    return reports


def _worker(
    model: str,
    targets: tuple["Target", ...],
    input_shapes: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    options: dict[str, Any] | None,
    gears: "Gears | None" = None,
) -> Outcome:
    """Runs in a worker process; the reports travel back pickled, without their context."""
    return check_one(model, targets, input_shapes=input_shapes, select=select, ignore=ignore, options=options,
                     keep_context=False, gears=gears)


# --------------------------------------------------------------------------- many models


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask where the system keeps one (a
    container or ``taskset`` may allow fewer than the machine has), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity on this system
        return os.cpu_count() or 1


def worker_count(jobs: int) -> int:
    """Worker processes for ``-j JOBS``: one per usable CPU for 0, and never more than that.

    Checking is CPU-bound: workers beyond the CPUs only take turns, each with its own start-up
    and memory (a folder took 8 s at -j 1 and 31 s at -j 16 on 2 CPUs).
    """
    cpus = usable_cpus()
    return cpus if jobs <= 0 else min(jobs, cpus)


def check_models(
    models: Sequence[str],
    targets: Sequence["Target"],
    *,
    shapes_for: Callable[[str], str | None] = lambda _: None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    jobs: int = 1,
    keep_context: bool = False,
    on_done: Callable[[str, Outcome], None] | None = None,
    gears_for: Callable[[str], "Gears | None"] = lambda _: None,
) -> BatchResult:
    """Check every model for every target; ``on_done`` is called as each model finishes.

    ``jobs`` > 1 uses that many worker processes (reports then come back without context);
    ``jobs`` <= 1 checks in this process.
    """
    done = on_done or (lambda _model, _outcome: None)
    outcomes: dict[str, Outcome] = {}
    if jobs <= 1 or len(models) <= 1:
        for model in models:
            outcomes[model] = check_one(model, targets, input_shapes=shapes_for(model), select=select,
                                        ignore=ignore, options=options, keep_context=keep_context,
                                        gears=gears_for(model))
            done(model, outcomes[model])
    else:
        outcomes = _check_parallel(models, targets, shapes_for, tuple(select), tuple(ignore),
                                   dict(options) if options else None, jobs, done, gears_for)
    reports: list[Report] = []
    unchecked: list[UncheckedModel] = []
    for model in models:
        outcome = outcomes[model]
        if isinstance(outcome, UncheckedModel):
            unchecked.append(outcome)
        else:
            reports.extend(outcome)
    return BatchResult(tuple(reports), tuple(unchecked))


def _check_parallel(
    models: Sequence[str],
    targets: Sequence["Target"],
    shapes_for: Callable[[str], str | None],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    options: dict[str, Any] | None,
    jobs: int,
    done: Callable[[str, Outcome], None],
    gears_for: Callable[[str], "Gears | None"] = lambda _: None,
) -> dict[str, Outcome]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    targets = tuple(targets)  # pickled to each worker with the rest of its arguments
    context = multiprocessing.get_context(START_METHOD)
    outcomes: dict[str, Outcome] = {}
    orphans: list[str] = []

    def settle(model: str, result: Outcome) -> None:
        outcomes[model] = result
        done(model, result)

    pool = ProcessPoolExecutor(max_workers=min(jobs, len(models)), mp_context=context, initializer=_start_worker,
                               initargs=(onnxpb.using_leaves(),))
    try:
        with _sigint_ignored():  # workers start with Ctrl-C ignored, before Python even runs in them
            futures = {
                pool.submit(_worker, model, targets, shapes_for(model), select, ignore, options,
                            gears_for(model)): model
                for model in models
            }
        for future in as_completed(futures):
            model = futures[future]
            try:
                settle(model, future.result())
            except BrokenProcessPool:
                orphans.append(model)  # a worker died; which model killed it is found below
            except Exception as exc:
                settle(model, UncheckedModel(model, f"internal error: {type(exc).__name__}: {exc}"))
    except BaseException:  # Ctrl-C (or a failing callback): stop the workers now, leave none behind
        _abort(pool)
        raise
    pool.shutdown(wait=True)
    # A dead worker breaks the whole pool: re-run the models it took down, each in a process of
    # its own, so only the model that really kills its process is reported.
    for model in sorted(orphans, key=list(models).index):
        pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_start_worker,
                               initargs=(onnxpb.using_leaves(),))
        try:
            with _sigint_ignored():
                future = pool.submit(_worker, model, targets, shapes_for(model), select, ignore, options,
                                     gears_for(model))
            try:
                result: Outcome = future.result()
            except BrokenProcessPool:
                result = UncheckedModel(model, "the checking process died (crash or out of memory in the ONNX parser)")
            except Exception as exc:
                result = UncheckedModel(model, f"internal error: {type(exc).__name__}: {exc}")
        except BaseException:
            _abort(pool)
            raise
        pool.shutdown(wait=True)
        settle(model, result)
    return outcomes


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ctrl-C ignored while worker processes are started: a spawned process inherits the setting,
    so none prints a KeyboardInterrupt traceback from its start-up. The parent's handler comes back
    (and a Ctrl-C that came meanwhile is lost, not half-handled)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _start_worker(leaves: bool) -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no traceback from each worker), and
    load onnx the way the parent does."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if leaves:
        onnxpb.use_leaves()


def _abort(pool: Any) -> None:
    """Stop a pool at once: cancel what has not started, kill the workers, reap them.

    A second Ctrl-C while this runs is ignored, so the cleanup cannot be cut short and leave
    workers running.
    """
    import signal

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to set
        previous = None
    try:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            if process.is_alive():
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join(timeout=5)
        pool.shutdown(wait=True)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


# --------------------------------------------------------------------------- summary


def summary_rows(
    reports: Sequence[Report], unchecked: Sequence[UncheckedModel], fail_on: str = "error"
) -> list[tuple[str, str, str, str, str, str]]:
    """(model, soc, errors, warnings, info, result) per model x chip, then the unchecked models."""
    rows = []
    for report in reports:
        counts = report.counts()
        result = "FAIL" if report.fails(fail_on) else "pass"
        rows.append((report.model, report.target.soc.name, str(counts["error"]), str(counts["warning"]),
                     str(counts["info"]), result))
    for item in unchecked:
        rows.append((item.path, "-", "-", "-", "-", f"NOT CHECKED: {item.problem}"))
    return rows


def summary_table(reports: Sequence[Report], unchecked: Sequence[UncheckedModel], fail_on: str = "error") -> str:
    """A plain-text table of every model x chip, for the end of the text report."""
    header = ("model", "soc", "errors", "warnings", "info", f"result (--fail-on {fail_on})")
    rows = summary_rows(reports, unchecked, fail_on)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [row[i].rjust(widths[i]) for i in (2, 3, 4)]
        lines.append("  ".join([*cells, row[5]]).rstrip())
    failed = sum(1 for r in reports if r.fails(fail_on))
    models = len({r.model for r in reports})
    chips = len({r.target.soc.name for r in reports})
    tail = (f"{models} model{'s' if models != 1 else ''} x {chips} chip{'s' if chips != 1 else ''} checked: "
            f"{failed} of {len(reports)} fail")
    if unchecked:
        tail += f", {len(unchecked)} could not be checked"
    return "\n".join([*lines, tail]) + "\n"
