"""Special files where a model or its weights should be: named in one line, never opened.

A FIFO blocks the process that opens it until a writer comes; a device has no size; a socket
cannot be opened; a symlink loop cannot be looked up. Each command runs on a thread with a
deadline: a command that waits on a special file fails the test (the FIFO is then opened for
writing, which lets the stuck reader go) instead of hanging the suite.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.cli.main import main
from builders import init, make_model, tensor_input

DEADLINE_S = 60  # a command on these tiny files takes a second; one that waits on a FIFO never returns


def unblock(fifo: Path) -> None:
    """Open the FIFO as a writer and close it: a reader waiting in open() or read() goes on."""
    try:
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    except OSError:
        return
    os.close(fd)


def run(args: list[str], fifos: list[Path] = ()) -> tuple[int, list[str], str]:
    """Exit code, stderr lines and stdout of an in-process atccheck run that must not wait."""
    box = {}

    def target() -> None:
        box["result"] = CliRunner().invoke(main, [str(a) for a in args])

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    if thread.is_alive():
        for fifo in fifos:
            unblock(fifo)
        thread.join(10)
        pytest.fail(f"atccheck {args[0]} did not return within {DEADLINE_S} s: it waits on a special file")
    result = box["result"]
    return result.exit_code, [line for line in result.stderr.splitlines() if line.strip()], result.stdout


def make_special(path: Path, kind: str) -> None:
    """Put a special file of this kind at ``path``."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))  # the file stays after the socket is closed
        server.close()
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # what /dev/null is
        except PermissionError:
            pytest.skip("missing resource: permission to make a device node (CAP_MKNOD)")
    elif kind == "symlink-loop":
        other = path.with_name(path.name + ".other")
        os.symlink(other.name, path)
        os.symlink(path.name, other)
    else:  # pragma: no cover
        raise ValueError(kind)


KINDS = ["fifo", "directory", "socket", "device", "symlink-loop"]
KIND_WORDS = {"fifo": "FIFO", "directory": "directory", "socket": "socket", "device": "character device",
              "symlink-loop": "symbolic links"}


def model_with_external_data(folder: Path) -> Path:
    """A one-node Add whose 16-float weight is stored in w.data beside the model; w.data is left out."""
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    model = make_model([node], [tensor_input("x", [16])], [tensor_input("y", [16])],
                       [init("w", np.arange(16, dtype=np.float32))])
    path = folder / "m.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location="w.data", size_threshold=0)
    (folder / "w.data").unlink()
    return path


@pytest.mark.parametrize("kind", KINDS)
def test_special_external_data_is_named_by_check(tmp_path, kind):
    model = model_with_external_data(tmp_path)
    make_special(tmp_path / "w.data", kind)
    code, errors, out = run(["check", model, "--soc", "Ascend310P3", "--format", "json"], [tmp_path / "w.data"])
    assert code == 1 and errors == []
    import json

    [finding] = [f for f in json.loads(out)["findings"] if f["name"] == "external-data-missing"]
    assert "'w.data'" in finding["message"] and KIND_WORDS[kind] in finding["message"]


@pytest.mark.parametrize("kind", KINDS)
def test_special_external_data_stops_fix_in_one_line(tmp_path, kind):
    model = model_with_external_data(tmp_path)
    make_special(tmp_path / "w.data", kind)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, errors, _ = run(["fix", model, "--soc", "Ascend310P3", "-o", tmp_path / "out.onnx"], [tmp_path / "w.data"])
    assert code == 2 and len(errors) == 1 and "w.data" in errors[0]
    assert "internal error" not in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize("command", ["check", "fix", "atc-cmd"])
@pytest.mark.parametrize("kind", [k for k in KINDS if k != "directory"])  # a folder is check's folder mode
def test_a_special_file_as_the_model_is_named(tmp_path, kind, command):
    model = tmp_path / "m.onnx"
    make_special(model, kind)
    # an output that already exists beside the model makes atccheck look for the model's data files
    (tmp_path / "out.txt").write_text("old")
    output = {"check": ["-o", tmp_path / "out.txt"], "fix": ["-o", tmp_path / "out.txt"], "atc-cmd": []}[command]
    code, errors, _ = run([command, model, "--soc", "Ascend310P3", *output], [model])
    assert code == 2 and len(errors) == 1, errors
    assert KIND_WORDS[kind] in errors[0] and "internal error" not in errors[0]
    if command == "fix":  # (check writes its report of the unchecked model, as for any model it cannot read)
        assert (tmp_path / "out.txt").read_text() == "old"


LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
               b"size 102400000\n")


@pytest.mark.parametrize("command", ["check", "fix", "atc-cmd"])
def test_a_git_lfs_pointer_saved_as_the_model_says_git_lfs_pull(tmp_path, command):
    model = tmp_path / "resnet.onnx"
    model.write_bytes(LFS_POINTER)
    code, errors, _ = run([command, model, "--soc", "Ascend310P3"])
    assert code == 2 and len(errors) == 1
    assert "Git LFS pointer" in errors[0] and "git lfs pull" in errors[0] and "not an ONNX model" not in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resnet.onnx"]
