"""The sample models in models/: reproducible, loadable, and reported as a user would see them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner

from atccheck.api import check
from atccheck.cli.main import main
from conftest import PROJECT, SAMPLE_MODELS

GENERATOR = SAMPLE_MODELS / "make_models.py"
SAMPLES = [
    "convnet_clean",
    "convnet_dynamic_batch",
    "custom_op",
    "transformer_block_op17",
    "bert_tiny_two_inputs",
    "video_conv3d",
    "detector_stem_exported",
]
GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN = [("convnet_dynamic_batch", "Ascend310"), ("custom_op", "Ascend310P3")]
CLEAN_TARGETS = [(soc, cann) for soc in ("Ascend310", "Ascend310P3", "Ascend910B3") for cann in ("6.0", "8.0", "9.0")]


def sample(name: str) -> Path:
    return SAMPLE_MODELS / f"{name}.onnx"


def test_generator_reproduces_the_committed_files(tmp_path):
    result = subprocess.run([sys.executable, str(GENERATOR), str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    built = sorted(p.name for p in tmp_path.glob("*.onnx"))
    assert built == sorted(f"{n}.onnx" for n in SAMPLES)
    for name in built:
        assert (tmp_path / name).read_bytes() == (SAMPLE_MODELS / name).read_bytes(), f"{name} differs from models/"


@pytest.mark.parametrize("name", SAMPLES)
def test_each_sample_loads_and_is_small(name):
    path = sample(name)
    assert path.stat().st_size < 1_000_000
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=name != "custom_op")  # the custom op has no schema
    assert model.graph.node


@pytest.mark.parametrize(("soc", "cann"), CLEAN_TARGETS)
def test_convnet_clean_has_no_error_or_warning(soc, cann):
    report = check(sample("convnet_clean"), soc=soc, cann=cann)
    noisy = [(f.name, f.message) for f in report.findings if f.severity.value in ("error", "warning")]
    assert noisy == []


def test_convnet_dynamic_batch_is_clean_once_the_shape_is_given():
    path = sample("convnet_dynamic_batch")
    without = check(path, soc="Ascend310", cann="8.0")
    assert [f.name for f in without.findings if f.severity.value == "error"] == ["dynamic-input-shape"]
    fixed = check(path, soc="Ascend310", cann="8.0", input_shapes="image:1,3,64,64")
    assert [f for f in fixed.findings if f.severity.value in ("error", "warning")] == []


# --------------------------------------------------------------------------- golden reports


def normalized_report(name: str, soc: str) -> dict:
    """The CLI's JSON report with the machine-specific parts made stable."""
    # Run from the project folder with a relative path, as a user would, so that every path in
    # the report (the model, the atc command's --model/--output) is the same on any machine.
    cwd = os.getcwd()
    os.chdir(PROJECT)
    try:
        relative = sample(name).resolve().relative_to(PROJECT).as_posix()
        result = CliRunner().invoke(main, ["check", relative, "--soc", soc, "--format", "json"])
    finally:
        os.chdir(cwd)
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    doc["model"] = Path(doc["model"]).resolve().relative_to(PROJECT).as_posix()
    doc.get("tool", {}).pop("version", None)
    return doc


@pytest.mark.parametrize(("name", "soc"), GOLDEN)
def test_golden_json_report(name, soc):
    golden = GOLDEN_DIR / f"{name}.{soc}.json"
    doc = normalized_report(name, soc)
    text = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    if os.environ.get("ATCCHECK_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.is_file(), f"{golden} is missing; run with ATCCHECK_UPDATE_GOLDEN=1 to create it"
    assert json.loads(golden.read_text(encoding="utf-8")) == doc, (
        f"report differs from {golden.name}; if the change is intended, regenerate with ATCCHECK_UPDATE_GOLDEN=1"
    )


# --------------------------------------------------------------------------- real models


@pytest.mark.parametrize("soc", ["Ascend310P3", "Ascend310"])
def test_check_runs_on_every_real_model(shared_models, soc):
    models = sorted(shared_models.glob("*.onnx"))
    assert models, f"no .onnx files in {shared_models}"
    runner = CliRunner()
    for path in models:
        result = runner.invoke(main, ["check", str(path), "--soc", soc, "--format", "json"])
        assert result.exit_code in (0, 1), f"{path.name}: exit {result.exit_code}\n{result.output}"
        doc = json.loads(result.stdout)
        assert doc["target"]["soc"] == soc
        internal = [f for f in doc["findings"] if f["code"] == "AC000"]
        assert internal == [], f"{path.name}: {internal}"
