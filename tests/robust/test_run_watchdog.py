"""The one watchdog thread that bounds every onnxruntime run in time."""

from __future__ import annotations

import os
import threading
import time

import pytest

from atccheck.fixing import runtime


class _Options:
    terminate = False


def test_a_run_past_its_deadline_is_terminated_and_one_within_it_is_not():
    late, early = _Options(), _Options()
    late_expired, early_expired = threading.Event(), threading.Event()
    runtime._watchdog.watch(late, 0.2, late_expired)
    early_token = runtime._watchdog.watch(early, 30.0, early_expired)
    assert late_expired.wait(10), "the watchdog never stopped the run past its deadline"
    assert late.terminate is True
    runtime._watchdog.release(early_token)
    assert early.terminate is False and not early_expired.is_set()


def test_a_released_run_is_never_terminated():
    options, expired = _Options(), threading.Event()
    token = runtime._watchdog.watch(options, 0.2, expired)
    runtime._watchdog.release(token)
    time.sleep(0.5)
    assert options.terminate is False and not expired.is_set()


def test_one_thread_serves_every_run():
    before = {t.name for t in threading.enumerate()}
    tokens = [runtime._watchdog.watch(_Options(), 30.0, threading.Event()) for _ in range(20)]
    for token in tokens:
        runtime._watchdog.release(token)
    watchdogs = [t for t in threading.enumerate() if t.name == "atccheck-run-watchdog"]
    assert len(watchdogs) == 1
    assert {t.name for t in threading.enumerate()} - before <= {"atccheck-run-watchdog"}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="missing resource: os.fork (POSIX only)")
def test_a_forked_worker_gets_a_watchdog_of_its_own():
    runtime._watchdog.watch(_Options(), 30.0, threading.Event())  # the parent's thread runs
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its watchdog must stop a run although the parent's thread is not here
        code = 1
        try:
            options, expired = _Options(), threading.Event()
            runtime._watchdog.watch(options, 0.1, expired)
            code = 0 if expired.wait(10) and options.terminate else 1
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    assert answer == b"\x00", "the forked child's run was not stopped"


def test_an_endless_run_stops_at_the_limit(monkeypatch):
    """A real session: a Loop with neither trip count nor condition end runs until the watchdog stops it."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Add", ["v_in", "one"], ["v_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1])],
        [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["", "cond", "x"], ["y"], body=body)], "endless",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [helper.make_tensor("cond", TensorProto.BOOL, [], [True])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = ort.InferenceSession(model.SerializeToString(), runtime.session_options(),
                                   providers=["CPUExecutionProvider"])
    started = time.monotonic()
    with pytest.raises(runtime.RunTimeout, match="more than 0.5 s"):
        runtime.run_bounded(session, ["y"], {"x": np.zeros(1, np.float32)}, timeout=0.5)
    assert time.monotonic() - started < 20
