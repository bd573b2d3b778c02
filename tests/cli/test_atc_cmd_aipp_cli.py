"""atccheck atc-cmd with AIPP: writing a config with the command, and a lint that keeps the user's flags."""

from __future__ import annotations

import json
import shlex

import onnx
from click.testing import CliRunner

from atccheck.atc.aipp import AippTarget, model_aipp_inputs, parse_aipp, validate
from atccheck.atc.command_files import FileBase
from atccheck.atc.lint import lint_command
from atccheck.cli.main import main
from command_files_kit import GOOD_AIPP, image_model


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def write_model(tmp_path, model=None) -> str:
    path = tmp_path / "net.onnx"
    onnx.save(model or image_model(), str(path))
    return str(path)


def test_aipp_format_writes_the_config_and_the_flag(tmp_path):
    model = write_model(tmp_path)
    out = tmp_path / "cfg" / "net_aipp.cfg"
    result = run("atc-cmd", model, "--soc", "Ascend310P3", "--aipp-format", "RGB888_U8",
                 "--mean", "123.675,116.28,103.53", "--std", "58.395,57.12,57.375", "--aipp-out", str(out))
    assert result.exit_code == 0, result.output
    argv = shlex.split(result.stdout.strip())
    assert f"--insert_op_conf={out}" in argv and "--input_format=NCHW" in argv
    assert f"wrote the AIPP config {out}" in result.stderr
    config = parse_aipp(out.read_text(encoding="utf-8")).config
    target = AippTarget(model_aipp_inputs(onnx.load(model)), "9.0", "cann-8.1.RC1", "Ascend310P")
    assert config is not None and validate(config, target) == []
    # the same command, linted, is clean
    lint = lint_command(result.stdout, onnx.load(model), model_path=model, files=FileBase(str(tmp_path)))
    assert lint.findings == ()


def test_default_path_and_json(tmp_path):
    model = write_model(tmp_path)
    result = run("atc-cmd", model, "--soc", "Ascend910B4", "--aipp-format", "YVU420SP_U8", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    path = str(tmp_path / "net_aipp.cfg")
    assert doc["aipp"]["path"] == path and f"--insert_op_conf={path}" in doc["argv"]
    assert "rbuv_swap_switch: true" in doc["aipp"]["text"] and (tmp_path / "net_aipp.cfg").is_file()


def test_refusals_exit_2_and_write_nothing(tmp_path):
    model = write_model(tmp_path)
    for extra, message in (
        (["--aipp-format", "YUV422SP_U8"], "E81012"),  # not a format of Ascend310P's AIPP
        (["--aipp-format", "RGB888_U8", "--std", "0,1,1"], "infinite"),
        (["--aipp-format", "RGB888_U8", "--mean", "a,b,c"], "takes numbers"),
        (["--mean", "1,2,3"], "need --aipp-format"),
    ):
        result = run("atc-cmd", model, "--soc", "Ascend310P3", *extra)
        assert result.exit_code == 2 and message in result.stderr, (extra, result.output)
    assert not (tmp_path / "net_aipp.cfg").exists()


def test_the_suggestion_keeps_the_users_flags(tmp_path):
    model = write_model(tmp_path)
    (tmp_path / "aipp.cfg").write_text(GOOD_AIPP, encoding="utf-8")
    script = tmp_path / "convert.sh"
    script.write_text(f"atc --model={model} --framework=5 --output=net --soc_version=Ascend310P3 "
                      "--input_shape=image:1,3,224,224 --insert_op_conf=aipp.cfg --out_nodes=conv_image:0 "
                      "--log=error --input_fp16_nodes=w_image\n", encoding="utf-8")
    result = run("atc-cmd", model, "--lint-file", str(script), "--format", "json")
    doc = json.loads(result.stdout)
    assert [f["name"] for f in doc["findings"]] == ["input-fp16-nodes-invalid"]
    argv = doc["suggested"]["argv"]
    # the AIPP file is found beside the script, kept as written; the wrong flag is left out with a note
    assert "--insert_op_conf=aipp.cfg" in argv and "--out_nodes=conv_image:0" in argv and "--log=error" in argv
    assert not any(a.startswith("--input_fp16_nodes") for a in argv)
    assert any("--input_fp16_nodes left out" in n for n in doc["suggested"]["notes"])
