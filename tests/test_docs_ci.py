"""docs/ci.md and .pre-commit-hooks.yaml stay true: their commands run here as a user would run them."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import onnx
import pytest

from atccheck.config import load_settings
from builders import single_op_model
from conftest import PROJECT

CI_DOC = PROJECT / "docs" / "ci.md"
HOOKS = PROJECT / ".pre-commit-hooks.yaml"


def fenced_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def atccheck(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run the command as installed: 'atccheck' is the console script calling cli.main:main."""
    assert args[0] == "atccheck"
    code = "import sys; from atccheck.cli.main import main; sys.argv[0] = 'atccheck'; main()"
    return subprocess.run([sys.executable, "-c", code, *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A project checkout: models/ with one model ATC converts and one it does not."""
    (tmp_path / "models").mkdir()
    (tmp_path / ".atccheck.toml").write_text("")
    onnx.save(single_op_model("Relu", [[1, 3, 8, 8]], [1, 3, 8, 8], opset=13), tmp_path / "models" / "good.onnx")
    onnx.save(single_op_model("FindMax", [[4, 4]], [4], opset=11), tmp_path / "models" / "custom.onnx")
    return tmp_path


def workflow_command() -> list[str]:
    (workflow,) = [b for b in fenced_blocks(CI_DOC.read_text(), "yaml") if "jobs:" in b]
    commands = re.findall(r"^\s*run: (atccheck .*)$", workflow, flags=re.M)
    assert len(commands) == 1, commands
    return shlex.split(commands[0])


def test_the_workflow_command_runs(repo, shared_reference):
    args = workflow_command()
    result = atccheck(args, repo)
    assert result.returncode == 1, result.stderr  # custom.onnx cannot convert: the build fails
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert annotations and all(line.startswith("::error file=models/custom.onnx,") for line in annotations)
    sarif = json.loads((repo / "atccheck.sarif").read_text())
    import jsonschema

    jsonschema.Draft4Validator(json.loads((shared_reference / "sarif-schema-2.1.0.json").read_text())).validate(sarif)
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]} == {
        "models/custom.onnx"}
    junit = ET.parse(repo / "atccheck-junit.xml").getroot()
    assert junit.get("failures") == "2" and junit.get("errors") == "0"  # custom.onnx on each of the two chips
    assert "**fails**" in (repo / "atccheck.md").read_text()


def test_the_workflow_command_passes_clean_exports(repo):
    (repo / "models" / "custom.onnx").unlink()
    result = atccheck(workflow_command(), repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


def test_the_configuration_example_is_valid(tmp_path):
    (example,) = [b for b in fenced_blocks(CI_DOC.read_text(), "toml") if "[tool.atccheck]" in b]
    (tmp_path / "pyproject.toml").write_text(example)
    settings = load_settings(cwd=tmp_path)
    assert settings.socs == ("Ascend310P3", "Ascend910B3") and settings.fail_on == "warning"
    assert settings.shapes_for(tmp_path / "models" / "det_1.onnx") == "x:1,3,640,640"


def hook() -> dict[str, str]:
    text = HOOKS.read_text()
    entries = re.findall(r"^- id: (.+)$", text, flags=re.M)
    assert entries == ["atccheck"]
    return dict(re.findall(r"^  ?-? ?(\w+): (.+)$", text, flags=re.M))


def test_pre_commit_hook_checks_the_files_it_is_given(repo):
    spec = hook()
    assert spec["entry"] == "atccheck check" and spec["pass_filenames"] == "true" and spec["language"] == "python"
    pattern = re.compile(spec["files"])
    assert pattern.search("models/good.onnx") and not pattern.search("models/good.onnx.data")
    files = ["models/good.onnx", "models/custom.onnx"]
    entry = shlex.split(spec["entry"]) + ["--soc", "Ascend310P3"]
    assert atccheck(entry + files[:1], repo).returncode == 0
    failed = atccheck(entry + files, repo)
    assert failed.returncode == 1 and "models/custom.onnx" in failed.stdout
