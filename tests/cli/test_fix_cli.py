from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.cli.main import main
from builders import init, make_model, tensor_input

MODELS = Path(__file__).resolve().parents[2] / "models"


def run(*args):
    return CliRunner().invoke(main, ["fix", *map(str, args)])


def convnet(path: Path, batch="batch") -> Path:
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    w = init("w", np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32))
    model = make_model(nodes, [tensor_input("x", [batch, 3, 8, 8])], [tensor_input("y", [batch, 4, 8, 8])], [w])
    onnx.save(model, str(path))
    return path


def test_text_report_and_exit_0_when_no_error_remains(tmp_path):
    source = convnet(tmp_path / "net.onnx")
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    result = run(source, "--soc", "Ascend310P3")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "before: 1 error(s)" in out and "after:  0 error(s)" in out
    assert "applied   make-inputs-static" in out and "proved" in out
    assert "set to 1" in out and "--dynamic_batch_size" in out  # the batch warning names the alternative
    assert "remaining findings: none" in out
    assert "verification: verified" in out
    assert f"--model={tmp_path / 'net.atc.onnx'}" in out and "atc --framework=5" in out
    assert (tmp_path / "net.atc.onnx").exists()
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before


def test_exit_1_when_errors_remain_with_why(tmp_path):
    source = MODELS / "custom_op.onnx"
    if not source.exists():
        pytest.skip(f"missing resource: {source} (sample models)")
    local = tmp_path / "custom_op.onnx"
    shutil.copy(source, local)
    result = run(local, "--soc", "Ascend310P3")
    assert result.exit_code == 1, result.output
    assert "remaining findings (" in result.output and "why:" in result.output
    assert "errors remain" in result.output


def test_json_report(tmp_path):
    source = convnet(tmp_path / "net.onnx")
    result = run(source, "--soc", "Ascend310P3", "--format", "json", "-o", tmp_path / "out.onnx")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["kind"] == "fix" and doc["output"] == str(tmp_path / "out.onnx") and doc["written"]
    applied = [p["name"] for p in doc["passes"] if p["status"] == "applied"]
    assert applied == ["make-inputs-static"]
    assert doc["verification"]["status"] == "verified"
    assert doc["atc_command"]["argv"][0] == "atc"


def test_usage_and_input_errors_exit_2_with_one_line(tmp_path):
    missing = run(tmp_path / "nope.onnx", "--soc", "Ascend310P3")
    assert missing.exit_code == 2 and "no such file" in missing.output and "Traceback" not in missing.output
    source = convnet(tmp_path / "net.onnx")
    bad_shape = run(source, "--soc", "Ascend310P3", "--input-shape", "x:1,3,8")
    assert bad_shape.exit_code == 2 and "E10049" in bad_shape.output
    same = run(source, "--soc", "Ascend310P3", "-o", source)
    assert same.exit_code == 2 and "--in-place" in same.output
    bad_soc = run(source, "--soc", "Ascend999")
    assert bad_soc.exit_code == 2


def test_in_place_and_no_verify(tmp_path):
    source = convnet(tmp_path / "net.onnx")
    result = run(source, "--soc", "Ascend310P3", "--in-place", "--no-verify", "--input-shape", "x:2,3,8,8")
    assert result.exit_code == 0, result.output
    dims = onnx.load(str(source)).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [2, 3, 8, 8]
    assert not (tmp_path / "net.atc.onnx").exists()


def test_help_lists_the_pass_order_and_exit_codes():
    result = CliRunner().invoke(main, ["fix", "--help"])
    assert result.exit_code == 0
    assert "make-inputs-static, simplify, convert-opset" in result.output
    assert "Exit codes" in result.output and "--unsafe-fixes" in result.output


def test_when_random_inputs_fail_one_line_names_the_inputs_and_a_sample_is_used(tmp_path):
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
             helper.make_node("Mish", ["r"], ["y"], name="mish")]
    model = make_model(nodes, [tensor_input("x", [1, 12]), tensor_input("shape", [2], onnx.TensorProto.INT64)],
                       [tensor_input("y", [3, 4])], opset=18)
    path = tmp_path / "reshape.onnx"
    onnx.save(model, str(path))
    result = run(path, "--soc", "Ascend310P3")
    lines = result.output.splitlines()
    assert any(line.startswith("verification: unverified") for line in lines)
    needs = [line for line in lines if line.strip().startswith("needs:")]
    assert len(needs) == 1 and "--inputs" in needs[0] and "shape int64 [2]" in needs[0]
    sample = tmp_path / "sample.npz"
    np.savez(sample, shape=np.array([3, 4], np.int64))
    result = run(path, "--soc", "Ascend310P3", "--inputs", sample)
    assert "verification: verified" in result.output and "not compared on: seeded random inputs" in result.output
    assert result.exit_code == 0, result.output
