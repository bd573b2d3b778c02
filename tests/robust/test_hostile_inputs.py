"""Inputs that used to hang or crash: fifos, devices, odd config values, endless models."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

import atccheck.fixing.inputs as inputs
import atccheck.fixing.runtime as runtime
from atccheck.cli.main import main
from atccheck.fixing.pipeline import fix
from builders import init, make_model, tensor_input
from conftest import SAMPLE_MODELS

MODEL = str(SAMPLE_MODELS / "convnet_clean.onnx")


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("args", [
    ["check", MODEL, "--soc", "Ascend310P3", "--baseline", "{fifo}"],
    ["check", MODEL, "--soc", "Ascend310P3", "--config", "{fifo}"],
    ["fix", MODEL, "--soc", "Ascend310P3", "--inputs", "{fifo}", "-o", "{out}"],
    ["atc-cmd", MODEL, "--soc", "Ascend310P3", "--lint-file", "{fifo}"],
    ["atc-cmd", MODEL, "--soc", "Ascend310P3", "--lint-file", "/dev/zero"],
])
def test_a_fifo_or_a_device_is_refused_not_read(args, fifo, tmp_path):
    code, lines = run(*(a.format(fifo=fifo, out=tmp_path / "out.onnx") for a in args))
    assert code == 2 and len(lines) == 1
    assert "not a regular file" in lines[0]
    assert not (tmp_path / "out.onnx").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "1e999", "1e300"])
def test_device_memory_out_of_reason_is_refused(value):
    code, lines = run("check", MODEL, "--soc", "Ascend310P3", "--device-memory", value)
    assert code == 2 and len(lines) == 1 and "device-memory" in lines[0]


@pytest.mark.parametrize("text,problem", [
    (b"[tool]\natccheck = 3\n", "must be a table"),
    (b"[tool.atccheck]\ndevice-memory = inf\n", "device-memory"),
    (b"[tool.atccheck]\ndevice-memory = nan\n", "device-memory"),
    (b"[tool.atccheck]\nsoc = \"\xff\"\n", "not UTF-8"),
    (b"[tool.atccheck]\nx = " + b"[" * 3000 + b"]" * 3000 + b"\n", "pyproject.toml"),
])
def test_odd_config_files_are_one_line(tmp_path, monkeypatch, text, problem):
    (tmp_path / "pyproject.toml").write_bytes(text)
    monkeypatch.chdir(tmp_path)
    code, lines = run("check", MODEL, "--soc", "Ascend310P3")
    assert code == 2 and len(lines) == 1 and problem in lines[0]
    assert "internal error" not in lines[0]


@pytest.mark.parametrize("text,problem", [
    (b"[" * 200_000, "nested too deeply"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b'{"atccheck_baseline": 1, "findings": {"a": 1}}', "must be a list"),
    (b'{"atccheck_baseline": 1, "findings": [{"model": "m", "soc": "s", "rule": "r", "graph": "g", '
     b'"count": 1e999}]}', "entry 0"),
])
def test_odd_baselines_are_one_line(tmp_path, text, problem):
    baseline = tmp_path / "base.json"
    baseline.write_bytes(text)
    code, lines = run("check", MODEL, "--soc", "Ascend310P3", "--baseline", str(baseline))
    assert code == 2 and len(lines) == 1 and problem in lines[0]


def endless_layer_norm_model() -> onnx.ModelProto:
    """LayerNormalization (a pass rewrites it) beside a Loop with neither trip count nor condition."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1, 8])])
    nodes = [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"], name="ln", axis=-1),
             helper.make_node("Loop", ["", "", "n"], ["y"], name="forever", body=body)]
    return make_model(nodes, [tensor_input("x", [1, 8])], [tensor_input("y", [1, 8])],
                      [init("gamma", np.ones(8, np.float32)), init("beta", np.zeros(8, np.float32))], opset=17)


def test_verification_of_an_endless_model_times_out(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "RUN_TIMEOUT_S", 1.0)
    path = tmp_path / "m.onnx"
    onnx.save(endless_layer_norm_model(), str(path))
    outcome = fix(str(path), soc="Ascend310P3", cann="6.0")  # LayerNormalization needs a rewrite there
    assert outcome.verification.status == "unverified"
    assert outcome.verification.timeout_s == 1.0
    assert outcome.to_dict()["verification"]["reference_timeout_s"] == 1.0
    # one line says the original's run hit the time limit, and which limit
    from atccheck.emit import fix_renderer

    lines = [line for line in fix_renderer("text")(outcome).splitlines() if "time limit" in line]
    assert lines == ["verification: unverified: the original model's reference run hit the time limit of 1 s "
                     "(a loop without an end?), so outputs were not compared; onnx.checker passed every step"]


def test_random_inputs_beyond_reason_are_not_made():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_input("x", [1] * 39 + [2] * 25)],
                       [tensor_input("y", [1] * 39 + [2] * 25)])
    with pytest.raises(runtime.RunError, match="not made"):
        inputs.make_inputs(model, {"x": [1] * 39 + [2] * 25})


@pytest.mark.parametrize("command", ["check", "fix"])
@pytest.mark.parametrize("shape", ["o:1,3", "image:8,785"])
def test_an_input_shape_for_an_input_of_opaque_type_is_refused(tmp_path, command, shape):
    """An opaque (or sequence, map, optional) input has no dims: a shape for it is refused before
    anything is written, not taken as given and then failed on."""
    model = onnx.load(MODEL)
    opaque = onnx.ValueInfoProto()
    opaque.name = "o"
    opaque.type.opaque_type.domain, opaque.type.opaque_type.name = "custom", "Thing"
    model.graph.input.append(opaque)
    if shape.startswith("image"):  # the image input itself of opaque type
        model.graph.input[0].type.ClearField("tensor_type")
        model.graph.input[0].type.opaque_type.name = "Image"
        del model.graph.input[-1]
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    code, lines = run(command, str(path), "--soc", "Ascend310P3", "--input-shape", shape)
    assert code == 2 and len(lines) == 1 and "opaque type" in lines[0]
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def continued_command(size: int) -> str:
    """One atc command continued over as many lines as fill ``size`` bytes, each line with flags
    (known, glued, unknown, repeated) and stray words: every line has findings."""
    words = ["--framework=5", "--input_shape=x:1,3", "--bogus{i}", "stray{i}", "--soc_version=Ascend310",
             "--log=error--output=o", "-x", "value{i}", "--out_nodes=a:0"]
    lines = ["atc --model=m.onnx \\"]
    total, i = len(lines[0]) + 1, 0
    while True:
        line = "  " + " ".join(w.format(i=i) for w in words[i % 3:] + words[:i % 3]) + " \\"
        if total + len(line) + 1 + len("  --output=out\n") > size:
            break
        lines.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join([*lines, "  --output=out"]) + "\n"


def test_a_script_over_the_size_limit_is_one_line(tmp_path):
    from atccheck.cli.atc_cmd import SCRIPT_LIMIT

    script = tmp_path / "run.sh"
    script.write_text(continued_command(int(SCRIPT_LIMIT * 1.9)))  # 1.9 MB: a script no one writes
    code, lines = run("atc-cmd", MODEL, "--lint-file", str(script))
    assert code == 2 and len(lines) == 1 and "over 1 MiB" in lines[0]


def test_a_script_at_the_size_limit_is_linted_without_hanging(tmp_path):
    """The lint is linear in the script: one command continued over thousands of lines took
    minutes when each stray word was compared with every flag before it. The deadline only tells
    a hang from a run (this takes a second or two); bench/bench_lint.py measures the time."""
    import subprocess
    import sys

    from atccheck.cli.atc_cmd import SCRIPT_LIMIT

    script = tmp_path / "run.sh"
    script.write_text(continued_command(SCRIPT_LIMIT))
    done = subprocess.run([sys.executable, "-c", "from atccheck.cli.main import main; main()", "atc-cmd", MODEL,
                           "--lint-file", str(script), "--format", "json"], capture_output=True, timeout=60)
    assert done.returncode == 1, done.stderr[-300:]
    import json

    findings = json.loads(done.stdout)["findings"]
    assert sum(f["name"] == "stray-word" for f in findings) > 5_000


@pytest.mark.parametrize("command", ["check", "fix", "atc-cmd"])
def test_an_input_shape_dim_beyond_int64_is_one_line(tmp_path, command):
    extra = ["-o", str(tmp_path / "out.onnx")] if command == "fix" else []
    code, lines = run(command, MODEL, "--soc", "Ascend310P3", "--input-shape", "image:1,3,64,99999999999999999999",
                      *extra)
    assert code == 2 and len(lines) == 1 and "int64" in lines[0] and "internal error" not in lines[0]
    assert list(tmp_path.iterdir()) == []
