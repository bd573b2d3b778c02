"""Running models for ``atccheck fix``: onnx.checker, onnxruntime, and onnx's reference evaluator.

:func:`check_graph` runs ``onnx.checker`` with ``full_check`` on a copy whose large initializers
stand in as typed graph inputs. :class:`ModelSource` hands a model to onnxruntime (bytes, or a
file when too large), :func:`run_model` runs every input set within a time limit, and
:func:`run_or_evaluate` falls back to ``onnx.reference`` for a small model onnxruntime cannot
load. Errors onnxruntime raises become :class:`RunError` with one line. Nothing here prints.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atccheck.errors import one_line
from atccheck.model.files import INLINE_LIMIT, approx_size, save_with_external_data

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.fixing.inputs import Inputs
    from atccheck.numerics import Outputs


class RunError(Exception):
    """onnxruntime could not load or run a model; the message is one line."""


class LoadError(RunError):
    """onnxruntime could not even load the model (no input can help)."""


class RunTimeout(RunError):
    """onnxruntime was stopped: the run took longer than RUN_TIMEOUT_S (``limit``), or was cancelled (None)."""

    def __init__(self, message: str, limit: float | None = None) -> None:
        super().__init__(message)
        self.limit = limit


def check_graph(model: "onnx.ModelProto") -> str | None:
    """``onnx.checker`` full check of the model with its weights left out; the error, or None."""
    import onnx

    from atccheck.model.shapes import stripped_copy

    copy = stripped_copy(model, {})
    copy.ir_version = model.ir_version or copy.ir_version
    del copy.metadata_props[:]
    copy.metadata_props.extend(model.metadata_props)
    try:
        onnx.checker.check_model(copy, full_check=True)
    except Exception as exc:  # ValidationError, InferenceError, ValueError (too large)
        return one_line(exc)
    return None


class ModelSource:
    """A model as onnxruntime takes it: serialized bytes, or a file when too large for bytes.

    ``bytes`` is kept so the caller can write the same serialization to the output file;
    ``data``, the model's serialization when the caller has it already, is taken as it is.
    A model whose weights stay in external data files (``weights``: the folder their
    locations are relative to, the input model's) goes as bytes of its graph, and onnxruntime
    reads the weights from that folder itself: nothing is copied.
    """

    def __init__(self, model: "onnx.ModelProto | None" = None, path: "str | os.PathLike[str] | None" = None,
                 weights: "str | os.PathLike[str] | None" = None, data: bytes | None = None) -> None:
        self.path: str | None = os.fspath(path) if path is not None else None
        self.data: bytes | None = None
        self.weights: str | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        if model is not None and self.path is None:
            from atccheck.model.weights import has_external, inline_size

            external = weights is not None and has_external(model)
            if external:
                self.weights = os.fspath(weights)  # type: ignore[arg-type]
            if (inline_size(model) if external else approx_size(model)) < INLINE_LIMIT:
                self.data = data if data is not None else model.SerializeToString()
            else:
                self._tmp = tempfile.TemporaryDirectory(prefix="atccheck-verify-")
                target = Path(self._tmp.name) / "model.onnx"
                if external:
                    assert weights is not None
                    _link_external(model, Path(weights), Path(self._tmp.name))
                save_with_external_data(model, target)
                self.path = str(target)
                self.weights = None

    def release(self) -> None:
        self.data = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    @property
    def payload(self) -> "bytes | str":
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path


def session_options(source: "ModelSource | None" = None, threads: int | None = None) -> Any:
    import onnxruntime as ort

    # the process-wide logger too: some messages (graph loading, provider set-up) are written before
    # a session's own severity applies, in colour, straight to the terminal
    ort.set_default_logger_severity(4)
    options = ort.SessionOptions()
    # run the graph as written: a rewrite is judged on its own ops, not on what ORT fuses it into
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4  # failures come back as exceptions; nothing goes to stderr
    # Threads that sleep when idle: verification runs beside the passes on its own thread, and
    # spinning workers would only take CPU from them. Two threads rather than one: most of the
    # time the pipeline is waiting for this very run (measured in bench/bench_fix.py).
    options.intra_op_num_threads = threads if threads is not None else min(2, os.cpu_count() or 1)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # a session runs once or twice: packing the weights for faster kernels costs more than it saves
    options.add_session_config_entry("session.disable_prepacking", "1")
    _weights_folder(options, source)
    return options


def _weights_folder(options: Any, source: "ModelSource | None") -> None:
    """Where onnxruntime reads the external data of a model handed to it as bytes."""
    if source is not None and source.weights is not None and source.data is not None:
        options.add_session_config_entry("session.model_external_initializers_file_folder_path", source.weights)


def _link_external(model: "onnx.ModelProto", folder: Path, into: Path) -> None:
    """Every external data file the model names under ``folder``, in ``into`` as a hard link (a copy
    across file systems). onnxruntime refuses a symbolic link that leads out of the model's folder."""
    import shutil

    from atccheck.model.loading import iter_graph_tensors
    from atccheck.model.weights import external_record, is_external

    for location in {external_record(t)[0] for t in iter_graph_tensors(model.graph) if is_external(t)}:
        link = into / location
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(folder / location, link)
            except OSError:
                shutil.copyfile(folder / location, link)


def beside_work_threads() -> int:
    """Threads for a run that goes on beside the passes (the original's, started at once): all but
    one core, at most two, so the passes, which the run does not hold up, keep a core of their own."""
    return max(1, min(2, (os.cpu_count() or 1) - 1))


# One onnxruntime run may take this long; a model that runs longer (a Loop with neither trip
# count nor condition runs forever) is stopped and left unverified.
RUN_TIMEOUT_S = 30.0


_active_runs: set[Any] = set()


_active_lock = threading.Lock()
# The cancel event of the current thread's runs, when a pool bound one (see bind_cancel): a run
# that starts after its owner stopped waiting (Ctrl-C while onnxruntime was still importing or
# making the session) is cancelled before it begins, not left to the watchdog.
_thread = threading.local()


class _Watchdog:
    """One daemon thread that sets ``terminate`` on the runs that outlive their deadline. It is
    started with the first run and serves every later one: starting a timer thread per run cost
    about as much as running a small model once."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._deadlines: dict[int, tuple[float, Any, threading.Event]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, options: Any, limit: float, expired: threading.Event) -> int:
        """Watch one run; the token to :meth:`release` it with when it ends."""
        token = id(expired)
        with self._lock:
            self._deadlines[token] = (time.monotonic() + limit, options, expired)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="atccheck-run-watchdog", daemon=True)
                self._thread.start()
            self._lock.notify()
        return token

    def release(self, token: int) -> None:
        with self._lock:
            self._deadlines.pop(token, None)

    def _serve(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for token, (deadline, options, expired) in list(self._deadlines.items()):
                    if deadline <= now:
                        expired.set()
                        options.terminate = True
                        del self._deadlines[token]
                soonest = min((d for d, _, _ in self._deadlines.values()), default=None)
                self._lock.wait(None if soonest is None else soonest - now)


_watchdog = _Watchdog()


def _new_watchdog_after_fork() -> None:
    global _watchdog
    _watchdog = _Watchdog()  # a forked worker has no watchdog thread, and its lock may be held


os.register_at_fork(after_in_child=_new_watchdog_after_fork)


def bind_cancel(cancelled: threading.Event) -> None:
    """Cancel every later run on this thread once ``cancelled`` is set (a thread pool's initializer)."""
    _thread.cancelled = cancelled


def terminate_runs() -> None:
    """Stop every onnxruntime run in progress (on interrupt, or when the caller no longer waits).

    A run that has not registered yet is stopped by the cancel event bound to its thread: the
    owner sets that event before calling this, and a run checks it under the same lock.
    """
    with _active_lock:
        for options in _active_runs:
            options.terminate = True


def _cancelled() -> bool:
    event = getattr(_thread, "cancelled", None)
    return event is not None and event.is_set()


CANCELLED = "onnxruntime run cancelled"


def open_session(source: ModelSource, threads: int | None = None) -> Any:
    """An onnxruntime session of the model; LoadError when onnxruntime cannot load it."""
    import onnxruntime as ort

    try:
        return ort.InferenceSession(source.payload, session_options(source, threads), providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise LoadError(f"onnxruntime cannot load the model: {one_line(exc)}") from None


def run_model(source: ModelSource, inputs: "Inputs", timeout: float | None = None,
              threads: int | None = None) -> "list[Outputs]":
    """Outputs of every input set, by output name; RunError when onnxruntime refuses.

    Each run is bounded in time (:func:`run_bounded`).
    ``threads``: onnxruntime's intra-op threads (default: two, or one on a single core).
    """
    if _cancelled():  # the owner stopped waiting while this worker was still starting
        raise RunTimeout(CANCELLED)
    session = open_session(source, threads)
    names = [o.name for o in session.get_outputs()]
    return [dict(zip(names, run_bounded(session, names, feeds, timeout))) for feeds in inputs.sets]


def run_bounded(session: Any, names: "list[str]", feeds: Any, timeout: float | None = None) -> list[Any]:
    """One ``session.run``, bounded in time: a watchdog sets onnxruntime's ``RunOptions.terminate``
    after ``timeout`` seconds (default :data:`RUN_TIMEOUT_S`) and :class:`RunTimeout` is raised;
    :func:`terminate_runs` stops it too. RunError when onnxruntime refuses."""
    import onnxruntime as ort

    limit = RUN_TIMEOUT_S if timeout is None else timeout
    if _cancelled():
        raise RunTimeout(CANCELLED)
    options = ort.RunOptions()
    options.log_severity_level = 4
    expired = threading.Event()
    with _active_lock:
        _active_runs.add(options)
        if _cancelled():  # the owner stopped waiting before this run could register
            options.terminate = True
    token = _watchdog.watch(options, limit, expired)
    try:
        return list(session.run(names, feeds, options))
    except Exception as exc:
        if expired.is_set():
            raise RunTimeout(f"timed out: onnxruntime ran the model for more than {limit:g} s "
                             "(a loop without an end?)", limit) from None
        if options.terminate:
            raise RunTimeout(CANCELLED) from None
        raise RunError(f"onnxruntime cannot run the model: {one_line(exc)}") from None
    finally:
        _watchdog.release(token)
        with _active_lock:
            _active_runs.discard(options)


# onnxruntime lacks kernels for some dtypes (float64 Conv): models up to these sizes then run in
# onnx's reference evaluator (numpy, slow) so that their rewrites are still compared.
EVALUATOR_MAX_NODES = 2000


EVALUATOR_MAX_BYTES = 64 * 2**20


def evaluate(model: "onnx.ModelProto", inputs: "Inputs") -> "list[Outputs] | None":
    """Outputs of every input set from ``onnx.reference``, or None (too large, or it fails too)."""
    import numpy as np

    if len(model.graph.node) > EVALUATOR_MAX_NODES or approx_size(model) > EVALUATOR_MAX_BYTES:
        return None
    try:
        from onnx.reference import ReferenceEvaluator

        evaluator = ReferenceEvaluator(model)
        names = [o.name for o in model.graph.output]
        return [dict(zip(names, (np.asarray(v) for v in evaluator.run(None, feeds)))) for feeds in inputs.sets]
    except Exception:  # an op or dtype the reference evaluator lacks too
        return None


def run_or_evaluate(source: ModelSource, model: "onnx.ModelProto", inputs: "Inputs") -> "list[Outputs]":
    """onnxruntime's outputs, or onnx.reference's when onnxruntime cannot load a small model."""
    try:
        return run_model(source, inputs)
    except LoadError:
        evaluated = evaluate(model, inputs)
        if evaluated is None:
            raise
        return evaluated


def runtime_load_error(
    model: "onnx.ModelProto | None", path: Path | None, as_users_load_it: bool = False,
    weights: "str | os.PathLike[str] | None" = None,
) -> str | None:
    """Why onnxruntime cannot load a model (from ``path`` when given, else ``model``), or None.

    ``as_users_load_it``: with graph optimizations on (onnxruntime's basic level, constant
    folding and the redundant-node removals, prepacking off to keep it quick), as a user's
    ``InferenceSession(path)`` loads it: optimizations resolve the graph again, inferring the
    types of If/Loop branches with the now-known shapes, which the verification sessions
    (optimizations off) never do. Otherwise with the verification's own options. ``weights``:
    the folder of the external data ``model`` names.
    """
    source = ModelSource(path=path) if path is not None else ModelSource(model, weights=weights)
    try:
        if as_users_load_it:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.log_severity_level = 4
            options.add_session_config_entry("session.disable_prepacking", "1")
            _weights_folder(options, source)
            try:
                ort.InferenceSession(source.payload, options, providers=["CPUExecutionProvider"])
            except Exception as exc:
                return f"onnxruntime cannot load the model with graph optimizations on: {one_line(exc)}"
            return None
        open_session(source)
    except LoadError as exc:
        return str(exc)
    finally:
        source.release()
    return None
