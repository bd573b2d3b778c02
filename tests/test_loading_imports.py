"""What a command imports: check and atc-cmd leave out onnxruntime, onnxsim, networkx and the onnx package
itself (only its protobuf classes and C++ extension load, see atccheck.model.onnxpb), with the reports
of a full import; --help leaves out onnx altogether."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import SAMPLE_MODELS

HEAVY = ("onnxruntime", "onnxsim", "networkx")
MODEL = str(SAMPLE_MODELS / "transformer_block_op17.onnx")

PROBE = (
    "import json, sys\n"
    "from atccheck.cli.main import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
)


def imported_modules(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def imported(*args: str) -> set[str]:
    """The top-level packages the command imported."""
    return {name.split(".")[0] for name in imported_modules(*args)}


@pytest.mark.parametrize("args", [
    ["check", MODEL, "--soc", "Ascend310P3", "--format", "json"],
    ["atc-cmd", MODEL, "--soc", "Ascend310P3"],
])
def test_check_and_atc_cmd_leave_the_heavy_packages_out(args):
    modules = imported_modules(*args)
    assert "onnx.onnx_ml_pb2" in modules and "onnx.onnx_cpp2py_export" in modules  # the command did read the model
    assert "onnx" not in modules and "ml_dtypes" not in modules  # the package's __init__ never ran
    packages = {name.split(".")[0] for name in modules}
    assert not packages & set(HEAVY), packages & set(HEAVY)


@pytest.mark.parametrize("extra", [[], ["-j", "2"]], ids=["one-process", "workers"])
def test_the_leaves_give_the_reports_of_a_full_import(tmp_path, shared_models, extra):
    """The CLI in a fresh interpreter (leaves only) against the same command in this one, where onnx
    was imported whole long ago: byte-identical JSON on every sample and real model, two chips."""
    from click.testing import CliRunner

    from atccheck.cli.main import main

    args = ["check", str(SAMPLE_MODELS), str(shared_models), "--soc", "Ascend310P3", "--soc", "Ascend910B3",
            "--format", "json"]
    fresh = tmp_path / "fresh.json"
    done = subprocess.run([sys.executable, "-c", PROBE, *args, *extra, "-o", str(fresh)], capture_output=True,
                          text=True, timeout=600)
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "onnx" not in modules
    here = tmp_path / "here.json"
    result = CliRunner().invoke(main, [*args, "-o", str(here)])
    assert result.exit_code == 1, result.output  # the samples include models with errors
    assert fresh.read_text() == here.read_text()
    assert len(json.loads(here.read_text())["reports"]) > 20


def test_help_leaves_onnx_out():
    modules = imported("--help")
    assert "atccheck" in modules
    assert not modules & {"onnx", "numpy", *HEAVY}
