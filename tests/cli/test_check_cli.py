from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import onnx
import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from builders import single_op_model


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A working directory with an empty .atccheck.toml, so no config file above it applies."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".atccheck.toml").write_text("")
    onnx.save(single_op_model("Relu", [[1, 3]], [1, 3], opset=13), tmp_path / "clean.onnx")
    onnx.save(single_op_model("FindMax", [[4, 4]], [4], opset=11), tmp_path / "custom.onnx")
    return tmp_path


@pytest.fixture
def folder(workdir) -> Path:
    models = workdir / "models"
    models.mkdir()
    (workdir / "clean.onnx").rename(models / "clean.onnx")
    (workdir / "custom.onnx").rename(models / "custom.onnx")
    (models / "corrupt.onnx").write_bytes(b"\x0a\x05hello, not a model")
    return models


def run(*args: str):
    return CliRunner().invoke(main, ["check", *args])


# --------------------------------------------------------------------------- exit codes


def test_clean_model_exits_0(workdir):
    result = run("clean.onnx", "--soc", "Ascend310")
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings, 0 info: passes" in result.stdout


def test_findings_exit_1_unless_fail_on_says_otherwise(workdir):
    result = run("custom.onnx", "--soc", "Ascend310")
    assert result.exit_code == 1 and "AC101 unsupported-op" in result.stdout
    assert run("custom.onnx", "--soc", "Ascend310", "--fail-on", "never").exit_code == 0
    assert run("custom.onnx", "--soc", "Ascend310", "--ignore", "AC101").exit_code == 0


@pytest.mark.parametrize("content, problem", [
    (None, "no such file"),
    (b"", "empty file"),
    (b"\x0a\x05hello, not a model", "not an ONNX model"),
])
def test_bad_input_exits_2_with_one_line(workdir, content, problem):
    if content is not None:
        (workdir / "bad.onnx").write_bytes(content)
    result = run("bad.onnx", "--soc", "Ascend310")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"atccheck: error: bad.onnx: {result.stderr.split(': ', 3)[-1].strip()}"]
    assert problem in result.stderr and "Traceback" not in result.output


def test_unknown_soc_exits_2_with_the_closest_names(workdir):
    result = run("clean.onnx", "--soc", "Ascend310P")
    assert result.exit_code == 2
    assert "unknown --soc 'Ascend310P': --soc_version names one model" in result.stderr
    assert "Ascend310P1, Ascend310P3, Ascend310P5" in result.stderr
    assert result.stdout == ""


def test_no_soc_anywhere_exits_2(workdir):
    result = run("clean.onnx")
    assert result.exit_code == 2 and "give --soc" in result.stderr


def test_unknown_rule_pattern_exits_2(workdir):
    result = run("clean.onnx", "--soc", "Ascend310", "--select", "AC99")
    assert result.exit_code == 2 and "'AC99' matches no rule" in result.stderr


# --------------------------------------------------------------------------- folders and matrices


def test_folder_with_a_corrupt_model(folder):
    result = run("models", "--soc", "Ascend310", "-j", "2", "--format", "json")
    assert result.exit_code == 2, result.output
    doc = json.loads(result.stdout)
    assert [(Path(r["model"]).name, r["summary"]["error"]) for r in doc["reports"]] == [("clean.onnx", 0), ("custom.onnx", 1)]
    assert doc["unchecked"] == [{"model": "models/corrupt.onnx", "problem": doc["unchecked"][0]["problem"]}]
    assert "not an ONNX model" in doc["unchecked"][0]["problem"]
    assert "atccheck: error: models/corrupt.onnx: not an ONNX model" in result.stderr


def test_folder_text_ends_with_one_summary_table(folder):
    result = run("models", "--soc", "Ascend310", "--soc", "Ascend910B3", "--cann", "6.0")
    assert result.exit_code == 2
    tail = result.stdout.splitlines()[-7:]
    assert tail[0].startswith("model") and "result (--fail-on error)" in tail[0]
    rows = [line.split()[:2] + [line.split()[-1]] for line in tail[1:5]]
    assert rows == [["models/clean.onnx", "Ascend310", "pass"], ["models/clean.onnx", "Ascend910B3", "pass"],
                    ["models/custom.onnx", "Ascend310", "FAIL"], ["models/custom.onnx", "Ascend910B3", "FAIL"]]
    assert "NOT CHECKED" in tail[5]
    assert tail[-1] == "2 models x 2 chips checked: 2 of 4 fail, 1 could not be checked"


def test_matrix_of_two_chips(workdir):
    result = run("custom.onnx", "clean.onnx", "--soc", "Ascend310", "--soc", "ascend910b3", "--format", "json")
    assert result.exit_code == 1
    reports = json.loads(result.stdout)["reports"]
    assert [(r["model"], r["target"]["soc"]) for r in reports] == [
        ("custom.onnx", "Ascend310"), ("custom.onnx", "Ascend910B3"), ("clean.onnx", "Ascend310"), ("clean.onnx", "Ascend910B3")]


def test_one_model_in_a_folder_still_gives_a_collection(folder):
    for name in ("custom.onnx", "corrupt.onnx"):
        (folder / name).unlink()
    doc = json.loads(run("models", "--soc", "Ascend310", "--format", "json").stdout)
    assert [Path(r["model"]).name for r in doc["reports"]] == ["clean.onnx"]


def test_empty_folder_exits_2(workdir):
    (workdir / "empty").mkdir()
    result = run("empty", "--soc", "Ascend310")
    assert result.exit_code == 2 and "empty: folder holds no .onnx file" in result.stderr


def test_files_and_folders_mixed_as_pre_commit_passes_them(folder, workdir):
    onnx.save(single_op_model("Relu", [[1, 3]], [1, 3], opset=13), workdir / "extra.onnx")
    result = run("extra.onnx", "models/clean.onnx", "models", "--soc", "Ascend310", "--format", "json")
    doc = json.loads(result.stdout)
    assert [r["model"] for r in doc["reports"]] == ["extra.onnx", "models/clean.onnx", "models/custom.onnx"]


def test_real_models_folder(shared_models):
    result = run(str(shared_models), "--soc", "Ascend310P3", "--cann", "8.0", "-j", "2", "--format", "json",
                 "--fail-on", "never")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert len(doc["reports"]) == len(list(shared_models.glob("*.onnx"))) and doc["unchecked"] == []


# --------------------------------------------------------------------------- several outputs


def test_several_formats_in_one_run(folder, workdir):
    result = run("models", "--soc", "Ascend310", "--format", "text", "--format", "sarif", "--format", "junit",
                 "--format", "markdown", "-o", "-", "-o", "out/a.sarif", "-o", "out/junit.xml", "-o", "out/pr.md")
    assert result.exit_code == 2
    assert "models/custom.onnx: Ascend310" in result.stdout
    sarif = json.loads((workdir / "out/a.sarif").read_text())
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"AC101"}
    junit = ET.parse(workdir / "out/junit.xml").getroot()
    assert junit.get("errors") == "1" and junit.get("failures") == "1"
    assert "could not be checked" in (workdir / "out/pr.md").read_text()


def test_output_without_format_is_text(workdir):
    result = run("clean.onnx", "--soc", "Ascend310", "-o", "report.txt")
    assert result.exit_code == 0 and result.stdout == ""
    assert "passes --fail-on error" in (workdir / "report.txt").read_text()


@pytest.mark.parametrize("args, message", [
    (["--format", "json", "--format", "sarif"], "need one -o each"),
    (["--format", "json", "--format", "sarif", "-o", "x"], "2 --format but 1 -o"),
    (["--format", "json", "--format", "sarif", "-o", "-", "-o", "-"], "only one format can go to stdout"),
    (["--format", "json", "--format", "sarif", "-o", "x", "-o", "./x"], "same file"),
    (["--baseline", "b.json", "--write-baseline", "c.json"], "exclude each other"),
])
def test_output_usage_errors(workdir, args, message):
    result = run("clean.onnx", "--soc", "Ascend310", *args)
    assert result.exit_code == 2 and message in result.stderr


# --------------------------------------------------------------------------- baselines


def test_baseline_round_trip(workdir):
    written = run("custom.onnx", "clean.onnx", "--soc", "Ascend310", "--write-baseline", "baseline.json")
    assert written.exit_code == 0, written.output
    assert "wrote baseline baseline.json with 1 finding" in written.stderr
    unchanged = run("custom.onnx", "clean.onnx", "--soc", "Ascend310", "--baseline", "baseline.json")
    assert unchanged.exit_code == 0, unchanged.output
    assert "0 new, 1 recorded in the baseline, 0 baseline entries no longer occur" in unchanged.stderr
    assert "baseline: 0 new, 1 recorded in the baseline" in unchanged.stdout
    onnx.save(single_op_model("FindMin", [[4, 4]], [4], opset=11), workdir / "clean.onnx")
    new = run("custom.onnx", "clean.onnx", "--soc", "Ascend310", "--baseline", "baseline.json", "--format", "json")
    assert new.exit_code == 1
    reports = json.loads(new.stdout)["reports"]
    assert [len(r["findings"]) for r in reports] == [0, 1]
    onnx.save(single_op_model("Relu", [[4, 4]], [4, 4], opset=11), workdir / "custom.onnx")
    fixed = run("custom.onnx", "--soc", "Ascend310", "--baseline", "baseline.json")
    assert fixed.exit_code == 0
    assert "no longer occurs: custom.onnx [Ascend310] AC101 unsupported-op at main/findmax_node" in fixed.stderr


def test_missing_baseline_exits_2(workdir):
    result = run("clean.onnx", "--soc", "Ascend310", "--baseline", "nope.json")
    assert result.exit_code == 2 and "create it with --write-baseline" in result.stderr


def test_the_legacy_ascend910b_name_gets_a_note_naming_the_910b_series(workdir):
    result = run("clean.onnx", "--soc", "ascend910b")
    assert result.exit_code == 0
    assert "atccheck: note: Ascend910B is a chip of the" in result.stderr and "Ascend910B3" in result.stderr
    assert "Ascend910B" in result.stdout and "note:" not in result.stdout


# --------------------------------------------------------------------------- gears


def test_gear_options_check_each_gear_and_print_them_in_the_atc_command(workdir):
    onnx.save(single_op_model("Relu", [["batch", 3]], ["batch", 3], opset=13), workdir / "dyn.onnx")
    plain = run("dyn.onnx", "--soc", "Ascend310")
    assert plain.exit_code == 1 and "AC201" in plain.output
    geared = run("dyn.onnx", "--soc", "Ascend310", "--dynamic-batch", "1,2,4,8")
    assert geared.exit_code == 0, geared.output
    assert '--input_shape="x0:-1,3" --dynamic_batch_size="1,2,4,8"' in geared.output


def test_gear_misuse_exits_2_with_atc_code(workdir):
    onnx.save(single_op_model("Relu", [["batch", 3]], ["batch", 3], opset=13), workdir / "dyn.onnx")
    result = run("dyn.onnx", "--soc", "Ascend310", "--dynamic-batch", "4")
    assert result.exit_code == 2
    assert "E10035" in result.output
    both = run("dyn.onnx", "--soc", "Ascend310", "--dynamic-batch", "1,2", "--dynamic-dims", "1;2")
    assert both.exit_code == 2 and "E10009" in both.output
