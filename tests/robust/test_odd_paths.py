"""Odd paths: output names at and over the file system's limit, symlink loops, special outputs.

Each is one line and exit 2 (never "internal error"), or, for a name the file system takes,
a written model.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from conftest import SAMPLE_MODELS

MODEL = SAMPLE_MODELS / "convnet_clean.onnx"


def run(*args) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, [line for line in result.stderr.splitlines() if line.strip()], result.stdout


def name_max(folder: Path) -> int:
    return os.pathconf(folder, "PC_NAME_MAX")


def symlink_loop(folder: Path, name: str) -> Path:
    path = folder / name
    os.symlink(name + ".other", path)
    os.symlink(name, folder / (name + ".other"))
    return path


def one_error(code: int, lines: list[str]) -> str:
    assert code == 2 and len(lines) == 1, lines
    assert "internal error" not in lines[0]
    return lines[0]


def test_fix_output_name_over_the_file_system_limit_is_one_line(tmp_path):
    out = tmp_path / ("o" * (name_max(tmp_path) + 1) + ".onnx")
    line = one_error(*run("fix", MODEL, "--soc", "Ascend310P3", "-o", out)[:2])
    assert "too long" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("model", ["convnet_clean.onnx", "transformer_block_op17.onnx"])  # unchanged / rewritten
def test_fix_output_name_at_the_file_system_limit_is_written(tmp_path, model):
    """The hidden files beside the output (staged result, atomic write) must fit too."""
    out = tmp_path / ("o" * (name_max(tmp_path) - len(".onnx")) + ".onnx")
    code, lines, _ = run("fix", SAMPLE_MODELS / model, "--soc", "Ascend310P3", "-o", out)
    assert code in (0, 1), lines
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@pytest.mark.parametrize("where", ["model", "output", "in-place"])
def test_fix_on_a_symlink_loop_is_one_line(tmp_path, where):
    loop = symlink_loop(tmp_path, "m.onnx")
    args = {"model": [loop, "-o", tmp_path / "out.onnx"],
            "output": [MODEL, "-o", loop],
            "in-place": [loop, "--in-place"]}[where]
    line = one_error(*run("fix", *args, "--soc", "Ascend310P3")[:2])
    assert "symbolic links" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.onnx.other"]


@pytest.mark.parametrize("args", [
    ["check", "{loop}", "--format", "sarif"],
    ["check", str(MODEL), "{loop}", "--format", "sarif"],
])
def test_check_of_a_symlink_loop_says_it_cannot_read_it(tmp_path, args):
    loop = symlink_loop(tmp_path, "m.onnx")
    code, lines, _ = run(*[a.format(loop=loop) for a in args], "--soc", "Ascend310P3")
    assert code == 2 and lines and not any("internal error" in line for line in lines), lines
    assert any("symbolic links" in line for line in lines)


def test_a_baseline_written_over_a_symlink_loop_replaces_the_link(tmp_path):
    """Like every output: the file is renamed into place, so the (dangling) link itself is replaced."""
    loop = symlink_loop(tmp_path, "base.json")
    code, lines, _ = run("check", MODEL, "--soc", "Ascend310P3", "--write-baseline", loop)
    assert code == 0 and not any("internal error" in line for line in lines), lines
    assert loop.is_file() and not loop.is_symlink()


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_fix_refuses_a_special_output(tmp_path, kind):
    out = tmp_path / "out.onnx"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        import socket

        server = socket.socket(socket.AF_UNIX)
        server.bind(str(out))
        server.close()
    line = one_error(*run("fix", MODEL, "--soc", "Ascend310P3", "-o", out)[:2])
    assert "not a file" in line
    assert [p.name for p in tmp_path.iterdir()] == ["out.onnx"] and not out.is_file()
