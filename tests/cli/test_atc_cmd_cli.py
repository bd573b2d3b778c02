"""atccheck atc-cmd and check --format atc-precheck, run as a user would."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from atccheck.tables import tables
from conftest import SAMPLE_MODELS

# One gear fewer than ATC's minimum (E10035).
TOO_FEW_GEARS = ",".join(str(b) for b in range(1, tables().limit("gear_count_min")))


def sample(name: str) -> str:
    path = SAMPLE_MODELS / f"{name}.onnx"
    if not path.is_file():
        pytest.skip(f"missing resource: {path} (sample models built by models/make_models.py)")
    return str(path)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_prints_one_copy_pasteable_line():
    model = sample("convnet_dynamic_batch")
    result = run("atc-cmd", model, "--soc", "Ascend310P3", "--dynamic-batch", "1,2,4,8")
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.strip().splitlines()
    argv = shlex.split(line)
    assert argv[:5] == ["atc", "--framework=5", f"--model={model}", f"--output={model[:-5]}", "--soc_version=Ascend310P3"]
    assert "--dynamic_batch_size=1,2,4,8" in argv and "--input_shape=image:-1,3,64,64" in argv


def test_json_has_the_argv():
    result = run("atc-cmd", sample("bert_tiny_two_inputs"), "--soc", "Ascend310", "--input-shape",
                 "input_ids:1,64;attention_mask:1,64", "--format", "json", "--output", "out/bert.om")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["argv"][0] == "atc" and "--input_format=ND" in doc["argv"] and "--output=out/bert" in doc["argv"]
    assert shlex.split(doc["line"]) == doc["argv"]
    assert any(".om" in note for note in doc["notes"])


def test_notes_go_to_stderr():
    result = run("atc-cmd", sample("convnet_clean"), "--soc", "ascend310p3")
    assert result.exit_code == 0
    assert result.stdout.startswith("atc ") and "# note:" not in result.stdout
    assert "case-sensitive" in result.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--soc", "Ascend310"), "EZ3002"),
        (("--soc", "Ascend310P3", "--dynamic-batch", TOO_FEW_GEARS), "E10035"),
        (("--soc", "Ascend310P3", "--dynamic-batch", "1,2", "--dynamic-dims", "1;2"), "E10009"),
        (("--soc", "Ascend310P3", "--dynamic-image-size", "64,64;32,32"), "E10019"),
    ],
)
def test_refusals_exit_2_naming_the_atc_code(args, code):
    result = run("atc-cmd", sample("convnet_dynamic_batch"), *args)
    assert result.exit_code == 2
    assert code in result.stderr and result.stderr.startswith("atccheck: error:")
    assert "Traceback" not in result.output


def test_usage_errors_exit_2():
    assert run("atc-cmd", sample("convnet_clean")).exit_code == 2  # no --soc
    assert run("atc-cmd", "missing.onnx", "--soc", "Ascend310P3").exit_code == 2
    assert run("atc-cmd", sample("convnet_clean"), "--soc", "Ascend999").exit_code == 2


def test_lint_exit_1_on_errors_with_a_suggestion():
    model = sample("convnet_dynamic_batch")
    bad = (f"atc --model={model} --framework=5 --output=net --soc_version=Ascend310P3 "
           "--input_format=NHWC --input_shape=\"image:1,3,64,64\"--log=error")
    result = run("atc-cmd", model, "--lint", bad)
    assert result.exit_code == 1
    assert "AC514 nhwc-for-onnx" in result.stdout and "AC504 glued-flags" in result.stdout
    assert "ATC: E10001" in result.stdout
    suggested = result.stdout.split("atccheck would write:\n", 1)[1].strip()
    assert "--input_format=NCHW" in suggested and '--input_shape="image:1,3,64,64"' in suggested


def test_lint_clean_command_exits_0():
    model = sample("convnet_clean")
    good = f"atc --model={model} --framework=5 --output=net --soc_version=Ascend310P3"
    result = run("atc-cmd", model, "--lint", good)
    assert result.exit_code == 0, result.output
    assert "0 error(s)" in result.stdout


def test_lint_file_json(tmp_path):
    model = sample("bert_tiny_two_inputs")
    script = tmp_path / "run.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"atc --model={model} --framework=5 --output=bert --soc_version=Ascend${{chip_name}} \\\n"
        "  --input_shape=input_ids:1,128;attention_mask:1,128\n", encoding="utf-8")
    result = run("atc-cmd", model, "--lint-file", str(script), "--format", "json", "--soc", "Ascend310")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    names = [f["name"] for f in doc["findings"]]
    assert "unquoted-shell-separator" in names and "unresolved-placeholder" in names
    assert doc["commands"][0]["line"] == 2 and doc["commands"][0]["argv"][0] == "atc"
    assert doc["suggested"]["argv"][4] == "--soc_version=Ascend310"
    assert run("atc-cmd", model, "--lint-file", str(tmp_path / "none.sh")).exit_code == 2


def test_lint_without_atc_is_a_usage_error():
    result = run("atc-cmd", sample("convnet_clean"), "--lint", "python export.py")
    assert result.exit_code == 2 and "no atc command" in result.stderr


def test_check_writes_the_precheck_file(tmp_path):
    out = tmp_path / "check_result.json"
    result = run("check", sample("custom_op"), "--soc", "Ascend310P3", "--format", "atc-precheck", "-o", str(out))
    assert result.exit_code == 1  # the custom op is an error finding
    text = out.read_text(encoding="utf-8")
    doc = json.loads(text)
    # two opset imports: the parser stops (E16005) before recording any op, so 'op' is absent
    assert list(doc) == ["fail", "name", "pass", "result", "total", "x_atccheck"]
    assert doc["x_atccheck"]["stopped"]["atc_error"] == "E16005" and doc["x_atccheck"]["atc_exit"] == "failed"
    assert not text.endswith("\n")
