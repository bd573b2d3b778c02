"""AC542 fixed-dim-mismatch, and the same refusal as an option of check, fix and atc-cmd (exit 2, one line)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.api import check
from atccheck.atc.command import build_command
from atccheck.atc.lint import lint_command
from atccheck.cli.main import main
from atccheck.errors import UsageError
from builders import init, make_model, tensor_input

REFUSAL = "input 'images' is given size 4 on axis 1, but the model fixes that dim at 3"


def yolo_stem(batch: int | str = 1) -> onnx.ModelProto:
    """A YOLOv8-style export: input fixed at [1,3,320,320], a 3-channel Conv."""
    w = init("w", np.zeros((8, 3, 3, 3), np.float32))
    conv = helper.make_node("Conv", ["images", "w"], ["y"], name="stem", kernel_shape=[3, 3])
    return make_model([conv], [tensor_input("images", [batch, 3, 320, 320])], [tensor_input("y", [batch, 8, 318, 318])],
                      [w])


def lint(shape: str, model: onnx.ModelProto | None = None, extra: str = ""):
    text = (f'atc --model=m.onnx --framework=5 --output=net --soc_version=Ascend310P3 --input_shape="{shape}"'
            f"{extra}")
    return [f for f in lint_command(text, model or yolo_stem(), model_path="m.onnx").findings]


def test_lint_reports_a_size_against_a_fixed_dim_as_an_error_without_a_code():
    (f,) = lint("images:1,4,320,320")
    assert f.code == "AC542" and f.name == "fixed-dim-mismatch" and f.severity.value == "error"
    assert REFUSAL in f.message and f.atc_error is None and "onnx_data_parser.cc" in f.source


@pytest.mark.parametrize("shape", ["images:1,3,320,320", "images:-1,3,320,320", "1,3,320,320"])
def test_lint_takes_the_fixed_sizes_and_minus_one(shape):
    extra = " --dynamic_batch_size=1,4" if "-1" in shape else ""
    assert [f.name for f in lint(shape, extra=extra)] == []


def test_lint_judges_positional_entries_and_symbolic_dims():
    assert [f.name for f in lint("1,4,320,320")] == ["fixed-dim-mismatch"]
    assert lint("images:8,3,320,320", yolo_stem("batch")) == []  # a symbol takes any size


def test_check_refuses_it_as_a_usage_error():
    with pytest.raises(UsageError, match=REFUSAL):
        check(yolo_stem(), "Ascend310P3", input_shapes="images:1,4,320,320")


def test_atc_cmd_refuses_it_the_same_way():
    with pytest.raises(UsageError, match=REFUSAL):
        build_command(yolo_stem(), "m.onnx", "Ascend310P3", input_shapes="images:1,4,320,320")


@pytest.mark.parametrize("command", [
    ["check", "m.onnx", "--soc", "Ascend310P3", "--no-config"],
    ["fix", "m.onnx", "--soc", "Ascend310P3", "-o", "out.onnx"],
    ["atc-cmd", "m.onnx", "--soc", "Ascend310P3"],
])
def test_every_command_exits_2_with_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    onnx.save(yolo_stem(), tmp_path / "m.onnx")
    before = (tmp_path / "m.onnx").read_bytes()
    result = CliRunner().invoke(main, [*command, "--input-shape", "images:1,4,320,320"])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("atccheck: error")]
    assert len(errors) == 1 and REFUSAL in errors[0] and "re-export" in errors[0]
    assert "Traceback" not in result.output and not (tmp_path / "out.onnx").exists()
    assert (tmp_path / "m.onnx").read_bytes() == before


def test_a_gear_on_a_fixed_batch_is_checked_through_the_graph_not_refused():
    report = check(yolo_stem(), "Ascend310P3", input_shapes="images:-1,3,320,320", dynamic_batch="1,4")
    assert [f for f in report.findings if f.severity.value == "error"] == []
