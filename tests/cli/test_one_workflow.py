"""check, fix and atc-cmd as one tool: the same config, the same command, the same error lines."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.cli.main import main
from builders import init, make_model, tensor_input


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def detector(path: Path) -> Path:
    """A small conv net whose input 'images' is dynamic in batch, height and width."""
    nodes = [helper.make_node("Conv", ["images", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    w = init("w", np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32))
    model = make_model(nodes, [tensor_input("images", ["n", 3, "h", "w"])], [tensor_input("y", ["n", 4, "h", "w"])],
                       [w])
    onnx.save(model, str(path))
    return path


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A project whose pyproject.toml names the chip and the model's input shapes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    detector(tmp_path / "models" / "det.onnx")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.atccheck]\nsoc = "Ascend310P3"\n[tool.atccheck.input-shapes]\n"det.onnx" = "images:1,3,320,320"\n')
    return tmp_path


def check_command_line(*args) -> str:
    result = run("check", "models/det.onnx", "--format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["atc_command"]["line"]


# --------------------------------------------------------------------------- one config


def test_atc_cmd_reads_the_config_and_prints_what_check_prints(project):
    expected = check_command_line()
    assert "--input_shape=images:1,3,320,320" in shlex.split(expected)
    result = run("atc-cmd", "models/det.onnx")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == expected


def test_atc_cmd_takes_gears_from_the_config_as_check_does(project):
    (project / "pyproject.toml").write_text(
        '[tool.atccheck]\nsoc = "Ascend310P3"\n[tool.atccheck.input-shapes]\n'
        '"det.onnx" = { input-shape = "images:-1,3,320,320", dynamic-batch = "1,4" }\n')
    result = run("atc-cmd", "models/det.onnx")
    assert result.exit_code == 0, result.output
    argv = shlex.split(result.stdout)
    assert "--dynamic_batch_size=1,4" in argv and "--input_shape=images:-1,3,320,320" in argv
    # the command line's gear option replaces the file's, as in check
    result = run("atc-cmd", "models/det.onnx", "--dynamic-batch", "2,8")
    assert "--dynamic_batch_size=2,8" in shlex.split(result.stdout)


def test_command_line_options_replace_the_config(project):
    result = run("atc-cmd", "models/det.onnx", "--soc", "Ascend910B3", "--input-shape", "images:2,3,64,64")
    assert result.exit_code == 0, result.output
    assert "--soc_version=Ascend910B3" in result.stdout and "images:2,3,64,64" in result.stdout
    assert check_command_line("--soc", "Ascend910B3", "--input-shape", "images:2,3,64,64") == result.stdout.strip()


def test_no_config_ignores_the_file(project):
    result = run("atc-cmd", "models/det.onnx", "--no-config")
    assert result.exit_code == 2 and "no chip" in result.stderr


def test_fix_reads_the_config(project):
    result = run("fix", "models/det.onnx", "--format", "json", "--no-verify")
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["target"]["soc"] == "Ascend310P3"
    written = onnx.load(str(project / "models" / "det.atc.onnx"), load_external_data=False)
    dims = [d.dim_value for d in written.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [1, 3, 320, 320]


def test_single_chip_commands_refuse_a_config_with_several_chips(project):
    (project / "pyproject.toml").write_text('[tool.atccheck]\nsoc = ["Ascend310P3", "Ascend910B3"]\n')
    for command in ("fix", "atc-cmd"):
        result = run(command, "models/det.onnx")
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.splitlines()
        assert line.startswith("atccheck: error:") and "Ascend310P3, Ascend910B3" in line and "--soc" in line
    assert run("atc-cmd", "models/det.onnx", "--soc", "Ascend910B3").exit_code == 0


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize("args, words", [
    (("check", "--bogus", "x.onnx"), "no such option '--bogus'"),
    (("check",), "missing argument"),
    (("check", "x.onnx", "--format", "nope"), "invalid value for '--format'"),
    (("fix", "--bogus", "x.onnx"), "no such option '--bogus'"),
    (("fix", "x.onnx", "--format", "nope"), "invalid value for '--format'"),
    (("atc-cmd",), "missing argument 'MODEL'"),
    (("atc-cmd", "x.onnx", "--format", "zz"), "invalid value for '--format'"),
    (("config", "--fail-on", "often"), "invalid value for '--fail-on'"),
    (("targets", "--format", "xml"), "invalid value for '--format'"),
    (("rule", "--bogus"), "no such option"),
    (("nosuch",), "no such command 'nosuch'"),
    (("--bogus",), "no such option '--bogus'"),
])
def test_usage_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("atccheck: error: ") and words in line and "--help'" in line
    assert "Usage:" not in result.output and "Try '" not in result.output


def test_bare_atccheck_still_shows_the_help():
    result = run()
    assert "Commands:" in result.output


# --------------------------------------------------------------------------- scripts that convert several models


def recognizer(path: Path) -> Path:
    """A model whose one input is called 'x' and is 2-D: not the detector's 'images'."""
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    onnx.save(make_model([node], [tensor_input("x", [1, 16])], [tensor_input("y", [1, 16])]), str(path))
    return path


SCRIPT = """#!/bin/sh
set -e
atc --framework=5 --model=models/det.onnx --output=out/det --soc_version=Ascend310P3 \\
    --input_format=NCHW --input_shape="images:1,3,320,320"
atc --framework=5 --model=models/rec.onnx --output=out/rec --soc_version=Ascend310P3 \\
    --input_format=ND --input_shape="x:1,16"
"""


@pytest.fixture
def scripted(tmp_path, monkeypatch) -> Path:
    """deploy/convert.sh converts two models named relative to its own folder; the run starts elsewhere."""
    deploy = tmp_path / "deploy"
    (deploy / "models").mkdir(parents=True)
    detector(deploy / "models" / "det.onnx")
    recognizer(deploy / "models" / "rec.onnx")
    (deploy / "convert.sh").write_text(SCRIPT, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".atccheck.toml").write_text("")
    monkeypatch.chdir(elsewhere)
    return deploy


def lint_json(*args):
    result = run("atc-cmd", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result, json.loads(result.stdout)


def test_each_command_is_checked_against_the_model_it_names(scripted):
    result, doc = lint_json(scripted / "models" / "det.onnx", "--lint-file", scripted / "convert.sh")
    codes = [f["code"] for f in doc["findings"]]
    assert "AC515" not in codes and "AC526" not in codes, doc["findings"]
    assert result.exit_code == 0 and doc["model_checks_skipped"] == []


def test_model_is_optional_with_lint_file(scripted):
    result, doc = lint_json("--lint-file", scripted / "convert.sh")
    assert result.exit_code == 0 and doc["summary"]["error"] == 0
    assert doc["suggested"]["argv"][2] == f"--model={scripted / 'models' / 'det.onnx'}"


def test_a_wrong_input_name_is_still_found_in_the_second_model(scripted):
    (scripted / "convert.sh").write_text(SCRIPT.replace('"x:1,16"', '"z:1,16"'), encoding="utf-8")
    result, doc = lint_json("--lint-file", scripted / "convert.sh")
    assert result.exit_code == 1
    assert [(f["code"], f["data"]["line"]) for f in doc["findings"] if f["severity"] == "error"] == [("AC515", 5)]


def test_commands_without_a_readable_model_skip_the_model_checks_and_say_so_once(scripted):
    (scripted / "models" / "rec.onnx").unlink()
    (scripted / "models" / "det.onnx").unlink()
    result, doc = lint_json("--lint-file", scripted / "convert.sh")
    assert result.exit_code == 0 and doc["summary"]["error"] == 0
    assert [item["line"] for item in doc["model_checks_skipped"]] == [3, 5]
    notes = [line for line in result.stderr.splitlines() if "no model read" in line]
    assert len(notes) == 1 and "lines 3, 5" in notes[0] and "no such file" in notes[0]
    assert doc["suggested"] is None


def test_a_model_path_is_looked_up_as_the_commands_other_files_are(scripted):
    """--model, like an AIPP file, is found from the current directory first, then the script's folder."""
    (Path.cwd() / "models").mkdir()
    recognizer(Path.cwd() / "models" / "det.onnx")  # a different model at the same relative path, beside the run
    result, doc = lint_json("--lint-file", scripted / "convert.sh")
    assert [(f["code"], f["data"]["line"]) for f in doc["findings"] if f["severity"] == "error"] == [("AC515", 3)]
    assert doc["suggested"]["argv"][2] == f"--model={Path.cwd() / 'models' / 'det.onnx'}"


def test_one_judgement_keeps_the_users_values_and_other_flags(scripted):
    """The suggestion writes its own flags from the user's values and appends the user's other flags;
    a flag an error finding of the command names is left out (with a note when it is not one of its own)."""
    (scripted / "aipp.cfg").write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n}\n")
    (scripted / "convert.sh").write_text(
        "atc --framework=5 --model=models/det.onnx --output=out/det --soc_version=Ascend310P3 "
        '--input_shape="images:1,3,320,320" --insert_op_conf=aipp.cfg --log=error --out_nodes="conv:0;"\n',
        encoding="utf-8")
    result, doc = lint_json("--lint-file", scripted / "convert.sh")
    argv, notes = doc["suggested"]["argv"], doc["suggested"]["notes"]
    assert "--output=out/det" in argv and '--input_shape=images:1,3,320,320' in argv
    assert "--insert_op_conf=aipp.cfg" in argv and "--log=error" in argv
    assert not any(word.startswith("--out_nodes") for word in argv)
    assert any(note.startswith("--out_nodes left out") for note in notes)


def test_model_is_still_required_without_lint_file(scripted):
    result = run("atc-cmd", "--lint", "atc --model=a.onnx --framework=5")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("atccheck: error: missing argument 'MODEL'")


# --------------------------------------------------------------------------- honest commands and outputs


def test_a_report_written_to_a_file_says_so_in_one_line(project):
    result = run("check", "models/det.onnx", "--format", "sarif", "-o", "out.sarif")
    assert result.exit_code == 0 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line == "atccheck: wrote out.sarif (sarif): 0 errors, 0 warnings, 0 info in 1 check; passes --fail-on error"
    both = run("check", "models/det.onnx", "--format", "text", "--format", "json", "-o", "-", "-o", "out.json")
    assert "wrote" not in both.stderr  # the terminal got the text report


def test_a_model_checked_in_memory_gets_a_placeholder_not_its_graph_name():
    import shlex

    from atccheck.api import check
    from atccheck.atc.command import IN_MEMORY_MODEL

    model = onnx.load_from_string(detector_bytes())
    model.graph.name = "torch_jit"
    report = check(model, "Ascend310P3", input_shapes="images:1,3,32,32")
    argv = shlex.split(report.atc_command.line)
    assert f"--model={IN_MEMORY_MODEL}" in argv and not any("torch_jit" in word for word in argv)
    assert any("in memory" in note for note in report.atc_command.notes)


def detector_bytes() -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return detector(Path(folder) / "d.onnx").read_bytes()


def test_a_channels_last_image_input_is_not_called_nchw(tmp_path):
    from atccheck.atc.command import build_command

    node = helper.make_node("Relu", ["x"], ["y"])
    model = make_model([node], [tensor_input("x", [1, 48, 48, 3])], [tensor_input("y", [1, 48, 48, 3])])
    command = build_command(model, "onet.onnx", "Ascend310P3")
    assert command.option("--input_format") == "ND"
    assert any("channels-last" in note for note in command.notes)
    nchw = make_model([node], [tensor_input("x", [1, 3, 48, 48])], [tensor_input("y", [1, 3, 48, 48])])
    assert build_command(nchw, "pnet.onnx", "Ascend310P3").option("--input_format") == "NCHW"


def test_mtcnn_onet_gets_the_input_format_that_is_true(shared_models):
    result = run("atc-cmd", shared_models / "mtcnn_onet.onnx", "--soc", "Ascend310P3", "--no-config",
                 "--input-shape", "input_3:1,48,48,3")
    assert result.exit_code == 0, result.output
    assert "--input_format=ND" in shlex.split(result.stdout) and "channels-last" in result.stderr


def test_input_shape_is_quoted_for_a_static_one_input_model_too():
    from atccheck.atc.command import build_command

    node = helper.make_node("Relu", ["x"], ["y"])
    model = make_model([node], [tensor_input("x", [1])], [tensor_input("y", [1])])
    line = build_command(model, "m.onnx", "Ascend310P3").line
    assert '--input_shape="x:1"' in line and shlex.split(line)[-1] == "--input_shape=x:1"


# --------------------------------------------------------------------------- the lint's suggestion


def suggested_argv(project_dir: Path, command: str) -> list[str]:
    result = run("atc-cmd", "models/det.onnx", "--lint", command, "--format", "json")
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)["suggested"]["argv"]


def test_the_suggestion_keeps_what_the_lint_did_not_judge_wrong(project):
    # one gear is too few (E10035): the gears go, the user's --output and shapes stay
    argv = suggested_argv(project, "atc --framework=5 --model=models/det.onnx --output=build/det "
                                   "--soc_version=Ascend310P3 --input_shape=images:-1,3,320,320 --dynamic_batch_size=4")
    assert "--output=build/det" in argv and "--input_shape=images:-1,3,320,320" in argv
    assert not any(word.startswith("--dynamic_batch_size") for word in argv)
    # an input name the model lacks (E10016): the shapes go, --output stays
    argv = suggested_argv(project, "atc --framework=5 --model=models/det.onnx --output=build/det "
                                   "--soc_version=Ascend310P3 --input_shape=image:1,3,320,320")
    assert "--output=build/det" in argv and "--input_shape=images:1,3,320,320" in argv  # the config's shapes


def test_the_report_says_what_the_printed_command_does_when_the_verdict_is_about_another(project):
    """AC201 is an error (atc without --input_shape stops at the -1); the printed command keeps -1 on a
    chip with dynamic shape: the report says that this command builds a dynamic-shape model."""
    result = run("check", "models/det.onnx", "--no-config", "--soc", "Ascend310P3")
    assert result.exit_code == 1 and "AC201" in result.stdout
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("atc command:"))
    assert "images:-1,3,-1,-1" in lines[at]
    assert lines[at + 1].startswith("  note: this command keeps -1") and "dynamic-shape model" in lines[at + 1]


# --------------------------------------------------------------------------- small ones


def test_html_counts_one_error_in_the_singular():
    from atccheck.api import check
    from atccheck.emit import render
    from builders import single_op_model

    report = check(single_op_model("FindMax", [[4, 4]], [4], opset=11), "Ascend310P3")
    assert report.counts()["error"] == 1
    html = render("html", [report])
    assert ": 1 error, " in html and "1 errors" not in html


def test_config_keeps_its_origin_column_narrow_beside_a_long_value(project):
    long_glob = "models/" + "x" * 120 + "_*.onnx"
    (project / "pyproject.toml").write_text(
        f'[tool.atccheck]\nsoc = "Ascend310P3"\n[tool.atccheck.input-shapes]\n"{long_glob}" = "images:1,3,320,320"\n')
    result = run("config")
    assert result.exit_code == 0, result.output
    cann = next(line for line in result.stdout.splitlines() if line.startswith("cann = "))
    assert len(cann) < 80 and cann.endswith("# default")


@pytest.mark.parametrize("key, value, words", [
    ("soc", '"Ascend999"', "unknown --soc 'Ascend999'"),
    ("cann", '"7.0"', "CANN 7.0"),
    ("precision-mode", '"fast"', "unknown precision mode 'fast'"),
])
def test_a_bad_value_in_the_config_names_the_file_and_the_key(project, key, value, words):
    (project / "pyproject.toml").write_text(f"[tool.atccheck]\n{key} = {value}\n")
    for command in (["check", "models/det.onnx"], ["atc-cmd", "models/det.onnx", "--soc", "Ascend310P3"],
                    ["fix", "models/det.onnx", "--soc", "Ascend310P3"]):
        if key == "soc" and command[0] != "check":
            continue  # --soc on the command line replaces the file's chip
        result = run(*command)
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"atccheck: error: {project / 'pyproject.toml'} [tool.atccheck]: '{key}': ")
        assert words in line
