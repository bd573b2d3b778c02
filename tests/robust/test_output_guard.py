"""No writer may replace one of its inputs: the model, its external data, a baseline, a sample."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from atccheck.errors import UsageError
from atccheck.fileio import atomic_write_text, refuse_overwriting_inputs
from builders import init, make_model, tensor_input


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def model_with_data(tmp_path) -> Path:
    weight = init("w", np.ones((64, 64), np.float32))
    node = onnx.helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    model = make_model([node], [tensor_input("x", [1, 64])], [tensor_input("y", [1, 64])], [weight])
    path = tmp_path / "m.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, location="weights.bin", size_threshold=0)
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("extra", [
    ["--format", "json", "-o", "{model}"],
    ["--format", "sarif", "-o", "{model}"],
    ["--format", "atc-precheck", "-o", "{model}"],
    ["--format", "json", "-o", "{data}"],
    ["--format", "text", "--format", "json", "-o", "-", "-o", "{data}"],
    ["--write-baseline", "{model}"],
    ["--write-baseline", "{data}"],
])
def test_check_refuses_an_output_that_is_an_input(model_with_data, extra):
    data = model_with_data.parent / "weights.bin"
    before = digest(model_with_data), digest(data)
    args = [a.format(model=model_with_data, data=data) for a in extra]
    result = run("check", str(model_with_data), "--soc", "Ascend310P3", *args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "never overwrites an input" in lines[0]
    assert (digest(model_with_data), digest(data)) == before


def test_check_refuses_to_write_over_its_baseline(model_with_data, tmp_path):
    baseline = tmp_path / "base.json"
    assert run("check", str(model_with_data), "--soc", "Ascend310P3", "--write-baseline", str(baseline)).exit_code == 0
    before = digest(baseline)
    result = run("check", str(model_with_data), "--soc", "Ascend310P3", "--baseline", str(baseline),
                 "--format", "json", "-o", str(baseline))
    assert result.exit_code == 2 and "--baseline input" in result.output
    assert digest(baseline) == before


def test_a_model_in_a_folder_argument_is_protected(model_with_data):
    result = run("check", str(model_with_data.parent), "--soc", "Ascend310P3", "--format", "json",
                 "-o", str(model_with_data))
    assert result.exit_code == 2 and "never overwrites an input" in result.output


def test_fix_refuses_an_output_over_the_input_weights(model_with_data):
    data = model_with_data.parent / "weights.bin"
    before = digest(data)
    result = run("fix", str(model_with_data), "--soc", "Ascend310P3", "-o", str(data))
    assert result.exit_code == 2 and "external data of the input model" in result.output
    assert digest(data) == before


def test_fix_refuses_an_output_whose_data_file_is_the_input_weights(tmp_path):
    weight = init("w", np.ones((64, 64), np.float32))
    node = onnx.helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    model = make_model([node], [tensor_input("x", [1, 64])], [tensor_input("y", [1, 64])], [weight])
    path = tmp_path / "m.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, location="out.onnx.data", size_threshold=0)
    result = run("fix", str(path), "--soc", "Ascend310P3", "-o", str(tmp_path / "out.onnx"))
    assert result.exit_code == 2 and "its data file" in result.output


def test_an_unrelated_existing_output_is_fine(model_with_data, tmp_path):
    report = tmp_path / "report.json"
    report.write_text("old")
    result = run("check", str(model_with_data), "--soc", "Ascend310P3", "--format", "json", "-o", str(report))
    assert result.exit_code in (0, 1)
    assert report.read_text().startswith("{")


def test_two_outputs_on_one_file_are_refused(tmp_path):
    out = tmp_path / "a.json"
    with pytest.raises(UsageError, match="name the same file"):
        refuse_overwriting_inputs([("-o", out), ("--write-baseline", out)])


@pytest.mark.parametrize("make_bad", ["file_as_folder", "directory"])
def test_the_atomic_writer_says_what_is_wrong_with_the_path(tmp_path, make_bad):
    blocker = tmp_path / "blocker"
    if make_bad == "file_as_folder":
        blocker.write_text("x")
        target = blocker / "out.json"
    else:
        blocker.mkdir()
        target = blocker
    with pytest.raises(UsageError, match="cannot write"):
        atomic_write_text(target, "text")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_weights_of_a_model_that_cannot_be_checked_are_protected_too(model_with_data):
    model = onnx.load(str(model_with_data), load_external_data=False)
    model.graph.node[0].input[0] = "nowhere"  # an invalid graph: check refuses the model itself
    onnx.save(model, str(model_with_data))
    data = model_with_data.parent / "weights.bin"
    before = digest(data)
    result = run("check", str(model_with_data), "--soc", "Ascend310P3", "--format", "junit", "-o", str(data))
    assert result.exit_code == 2 and "external data of the input model" in result.output
    assert digest(data) == before
