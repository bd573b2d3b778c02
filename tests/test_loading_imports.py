"""What a command imports: check and atc-cmd leave out onnxruntime, onnxsim and networkx; --help leaves out onnx."""

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
    "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})), file=sys.stderr)\n"
)


def imported(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [
    ["check", MODEL, "--soc", "Ascend310P3", "--format", "json"],
    ["atc-cmd", MODEL, "--soc", "Ascend310P3"],
])
def test_check_and_atc_cmd_leave_the_heavy_packages_out(args):
    modules = imported(*args)
    assert "onnx" in modules  # the probe did run the command
    assert not modules & set(HEAVY), modules & set(HEAVY)


def test_help_leaves_onnx_out():
    modules = imported("--help")
    assert "atccheck" in modules
    assert not modules & {"onnx", "numpy", *HEAVY}
