"""Ctrl-C: one line ("interrupted"), exit 130, no worker left running, no report file written.

The command runs in a session of its own and SIGINT goes to the whole process group, the way a
terminal delivers Ctrl-C to a command and every worker it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from conftest import SAMPLE_MODELS

COMMAND = [sys.executable, "-c", "from atccheck.cli.main import main; main()"]


def session_processes(sid: int) -> list[int]:
    """Live (not zombie) processes of a session."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getsid(int(entry)) != sid:
                continue
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry))
    return found


ONNX_EXTENSION = "onnx_cpp2py_export"
ONNXRUNTIME_EXTENSION = "onnxruntime_pybind11_state"


def loaded(sid: int, extension: str) -> bool:
    """Whether some process of the session has this extension module mapped (onnx's: it is
    checking by now; onnxruntime's: a verification run is being set up)."""
    for pid in session_processes(sid):
        try:
            if extension in Path(f"/proc/{pid}/maps").read_text():
                return True
        except OSError:
            continue
    return False


def interrupt(args: list[str], after: float, cwd: Path, extension: str = ONNX_EXTENSION,
              command: list[str] = COMMAND) -> tuple[int, str, list[int], float]:
    """Run atccheck ARGS, send Ctrl-C once it is at work (EXTENSION loaded, then AFTER seconds
    more: a loaded machine may take seconds just to start Python), and return its exit code,
    stderr, the processes of its session still alive and the seconds from Ctrl-C to its exit."""
    proc = subprocess.Popen([*command, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    deadline = time.monotonic() + 120
    while not loaded(proc.pid, extension) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(after)
    assert proc.poll() is None, "the command ended before it could be interrupted; give it more work"
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    waited = time.monotonic() - sent
    left: list[int] = []
    for _ in range(50):  # a worker being reaped may take a moment to go
        left = session_processes(proc.pid)
        if not left:
            break
        time.sleep(0.1)
    return proc.returncode, err, left, waited


@pytest.fixture
def many_models(tmp_path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    samples = sorted(SAMPLE_MODELS.glob("*.onnx"))
    for i in range(600):  # enough that a fast machine is still checking when Ctrl-C comes
        for sample in samples:
            os.link(sample, folder / f"{sample.stem}_{i}.onnx")  # a path of its own, no copy of the bytes
    return folder


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="missing resource: /proc (Linux) to list processes")
@pytest.mark.parametrize("jobs,after", [("2", 0.5), ("1", 0.5)])
def test_ctrl_c_during_check(many_models, tmp_path, jobs, after):
    report = tmp_path / "report.json"
    code, err, left, _ = interrupt(["check", str(many_models), "--soc", "Ascend310P3", "-j", jobs, "--format", "json",
                                 "-o", str(report)], after, tmp_path)
    assert code == 130
    assert err == "atccheck: interrupted\n"
    assert left == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]


def endless_loop_model() -> onnx.ModelProto:
    """A Loop with neither trip count nor condition: onnxruntime runs it until stopped."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1])])
    graph = helper.make_graph([helper.make_node("Loop", ["", "", "x"], ["y"], name="forever", body=body)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="missing resource: /proc (Linux) to list processes")
@pytest.mark.parametrize("extension,after", [(ONNXRUNTIME_EXTENSION, 0.0), (ONNX_EXTENSION, 2.0)],
                         ids=["while-the-run-is-set-up", "while-it-runs"])
def test_ctrl_c_during_fix_stops_onnxruntime(tmp_path, extension, after):
    """Ctrl-C while onnxruntime makes its session (the run has not begun) or while it runs.

    A run nobody waits for is stopped. Here the watchdog waits an hour, so a run Ctrl-C did not
    stop would keep the command alive past interrupt()'s two minutes and fail the test: the
    verdict does not hang on how long a loaded machine takes to exit (a time bound near the
    watchdog's 30 s did, 32.6 s once).
    """
    command = [sys.executable, "-c", "import atccheck.fixing.runtime as r; r.RUN_TIMEOUT_S = 3600.0; "
                                     "from atccheck.cli.main import main; main()"]
    onnx.save(endless_loop_model(), str(tmp_path / "endless.onnx"))
    code, err, left, waited = interrupt(["fix", "endless.onnx", "--soc", "Ascend310P3"], after, tmp_path, extension,
                                        command)
    assert code == 130 and err == "atccheck: interrupted\n" and left == []
    assert waited < 120  # stopped by Ctrl-C: the watchdog would have taken an hour
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.onnx"]


def test_a_run_set_up_while_ctrl_c_comes_is_cancelled(tmp_path, monkeypatch):
    """The moment the subprocess test above may miss: Ctrl-C lands while the verification thread
    is still making onnxruntime's session, before the run exists to be stopped."""
    import threading

    import onnxruntime as ort

    import atccheck.engine
    from atccheck.fixing import runtime, verifier
    from atccheck.fixing.pipeline import fix

    monkeypatch.setattr(runtime, "RUN_TIMEOUT_S", 600.0)  # the watchdog: beyond this test's patience
    making, made = threading.Event(), threading.Event()
    real_session, real_terminate = ort.InferenceSession, runtime.terminate_runs

    def session(*args, **kwargs):
        making.set()
        made.wait(60)  # the session exists only once the interrupt has been handled
        return real_session(*args, **kwargs)

    def terminate() -> None:
        real_terminate()
        made.set()

    def interrupted(*args, **kwargs):
        assert making.wait(60)
        raise KeyboardInterrupt

    monkeypatch.setattr(ort, "InferenceSession", session)
    monkeypatch.setattr(verifier, "terminate_runs", terminate)
    monkeypatch.setattr(atccheck.engine, "check_prepared", interrupted)
    onnx.save(endless_loop_model(), str(tmp_path / "endless.onnx"))
    done = threading.Event()
    raised: list[BaseException] = []

    def run() -> None:
        try:
            fix(str(tmp_path / "endless.onnx"), "Ascend310P3")
        except BaseException as exc:  # noqa: BLE001 - the KeyboardInterrupt is what is expected
            raised.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    try:
        assert done.wait(120), "fix waited for the endless run's watchdog"
    finally:
        real_terminate()  # a failed run of this test leaves no endless run behind
    assert [type(e) for e in raised] == [KeyboardInterrupt]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.onnx"]
