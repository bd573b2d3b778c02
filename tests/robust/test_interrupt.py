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


def onnx_loaded(sid: int) -> bool:
    """Whether some process of the session has onnx's extension mapped: it is checking by now."""
    for pid in session_processes(sid):
        try:
            if "onnx_cpp2py_export" in Path(f"/proc/{pid}/maps").read_text():
                return True
        except OSError:
            continue
    return False


def interrupt(args: list[str], after: float, cwd: Path) -> tuple[int, str, list[int]]:
    """Run atccheck ARGS, send Ctrl-C once it is at work (onnx loaded, then AFTER seconds more:
    a loaded machine may take seconds just to start Python), and return its exit code, stderr
    and the processes of its session still alive."""
    proc = subprocess.Popen([*COMMAND, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    deadline = time.monotonic() + 60
    while not onnx_loaded(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(after)
    assert proc.poll() is None, "the command ended before it could be interrupted; give it more work"
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    left: list[int] = []
    for _ in range(50):  # a worker being reaped may take a moment to go
        left = session_processes(proc.pid)
        if not left:
            break
        time.sleep(0.1)
    return proc.returncode, err, left


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
    code, err, left = interrupt(["check", str(many_models), "--soc", "Ascend310P3", "-j", jobs, "--format", "json",
                                 "-o", str(report)], after, tmp_path)
    assert code == 130
    assert err == "atccheck: interrupted\n"
    assert left == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="missing resource: /proc (Linux) to list processes")
def test_ctrl_c_during_fix_stops_onnxruntime(tmp_path):
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
    onnx.save(model, str(tmp_path / "endless.onnx"))
    started = time.monotonic()
    code, err, left = interrupt(["fix", "endless.onnx", "--soc", "Ascend310P3"], 2.0, tmp_path)
    assert code == 130 and err == "atccheck: interrupted\n" and left == []
    assert time.monotonic() - started < 20  # onnxruntime was stopped, not waited for
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.onnx"]
