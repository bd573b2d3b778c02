from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from atccheck.config import COMMAND_LINE, DEFAULT, find_config, load_settings
from atccheck.errors import UsageError
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.report import Report
from atccheck.target import resolve_target


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


PYPROJECT = """\
[project]
name = "exporter"

[tool.atccheck]
soc = ["Ascend310P3", "Ascend910B3"]
cann = "9.0"
ignore = ["opset-not-registered"]
fail-on = "warning"

[tool.atccheck.per-node-ignores]
"/decoder/*" = ["AC101"]

[tool.atccheck.per-model-ignores]
"models/legacy_*.onnx" = ["attr-ignored", "AC40"]

[tool.atccheck.input-shapes]
"models/det_*.onnx" = "x:1,3,640,640"
"*_bert.onnx" = "ids:1,128"
"""


def test_file_values_override_defaults(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    settings = load_settings(cwd=tmp_path)
    assert settings.socs == ("Ascend310P3", "Ascend910B3")
    assert (settings.cann, settings.fail_on, settings.ignore) == ("9.0", "warning", ("opset-not-registered",))
    assert settings.precision_mode == "force_fp16" and settings.sources["precision_mode"] == DEFAULT
    assert settings.sources["cann"] == str(tmp_path / "pyproject.toml")


def test_command_line_overrides_the_file(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    settings = load_settings({"socs": ("Ascend310",), "fail_on": "error", "ignore": ("AC1",)}, cwd=tmp_path)
    assert settings.socs == ("Ascend310",) and settings.fail_on == "error"
    assert settings.ignore == ("AC1",)  # replaced, not merged
    assert settings.cann == "9.0"
    assert settings.sources["socs"] == COMMAND_LINE and settings.sources["cann"].endswith("pyproject.toml")


def test_discovery_walks_up_and_prefers_atccheck_toml(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    write(tmp_path / "a" / "pyproject.toml", "[project]\nname = 'no table here'\n")
    assert find_config(deep) == tmp_path / "pyproject.toml"
    write(tmp_path / "a" / ".atccheck.toml", 'soc = "Ascend310"\n')
    assert find_config(deep) == tmp_path / "a" / ".atccheck.toml"
    assert load_settings(cwd=deep).socs == ("Ascend310",)
    write(tmp_path / ".atccheck.toml", 'cann = "6.0"\n')
    assert find_config(tmp_path) == tmp_path / ".atccheck.toml"


def test_atccheck_toml_may_use_the_tool_table_but_not_both(tmp_path):
    path = write(tmp_path / ".atccheck.toml", '[tool.atccheck]\nsoc = "Ascend310"\n')
    assert load_settings(cwd=tmp_path).socs == ("Ascend310",)
    path.write_text('cann = "6.0"\n[tool.atccheck]\nsoc = "Ascend310"\n')
    with pytest.raises(UsageError, match="both at the top level"):
        load_settings(cwd=tmp_path)


def test_explicit_file_and_isolation(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    other = write(tmp_path / "ci" / "strict.toml", 'fail-on = "info"\n')
    assert load_settings(config=other, cwd=tmp_path).fail_on == "info"
    assert load_settings(isolated=True, cwd=tmp_path).socs == ()
    with pytest.raises(UsageError, match="does not exist"):
        load_settings(config=tmp_path / "nope.toml", cwd=tmp_path)


@pytest.mark.parametrize("text, message", [
    ('socs = ["Ascend310"]\n', "unknown key 'socs'; did you mean soc"),
    ("soc = 3\n", "'soc' must be a string or a list of strings"),
    ('select = "AC1"\n', "'select' must be a list of strings"),
    ('fail-on = "sometimes"\n', "'fail-on' must be one of"),
    ("device-memory = -1\n", "positive number of GiB"),
    ('ignore = ["AC999"]\n', "'AC999' matches no rule"),
    ('select = ["gear-rule"]\n', "'gear-rule' names atc command rules, which 'atccheck atc-cmd --lint' reports"),
    ('rule-docs-url = "docs/rules"\n', "must be an absolute URL"),
    ('[per-node-ignores]\n"x*" = ["nonsense-rule"]\n', "'nonsense-rule' matches no rule"),
    ('[per-model-ignores]\n"*.onnx" = ["AC9"]\n', "per-model-ignores \"[*].onnx\".*'AC9' matches no rule"),
    ('[per-model-ignores]\n"*.onnx" = 3\n', "'per-model-ignores.\"[*].onnx\"' must be a string or a list"),
    ("soc = [\n", "not valid TOML"),
])
def test_bad_files_name_the_file_and_the_key(tmp_path, text, message):
    write(tmp_path / ".atccheck.toml", text)
    with pytest.raises(UsageError, match=message) as info:
        load_settings(cwd=tmp_path)
    assert ".atccheck.toml" in str(info.value)


def test_input_shapes_by_glob(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    settings = load_settings(cwd=tmp_path)
    assert settings.shapes_for(tmp_path / "models" / "det_small.onnx") == "x:1,3,640,640"
    assert settings.shapes_for(tmp_path / "elsewhere" / "det_small.onnx") is None
    assert settings.shapes_for(tmp_path / "deep" / "er" / "tiny_bert.onnx") == "ids:1,128"
    assert settings.shapes_for(tmp_path / "x.onnx") is None
    cli = load_settings({"input_shape": "y:2"}, cwd=tmp_path)
    assert cli.shapes_for(tmp_path / "models" / "det_small.onnx") == "y:2"


def test_globs_are_relative_to_the_config_file(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    (tmp_path / "models").mkdir()
    monkeypatch.chdir(tmp_path / "models")
    settings = load_settings()
    assert settings.shapes_for("det_a.onnx") == "x:1,3,640,640"


def test_per_node_ignores_filter_after_checking(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    settings = load_settings(cwd=tmp_path)

    def finding(node, code="AC101", name="unsupported-op"):
        return Finding(code, name, Severity.ERROR, "m", Location(node=node), "h", FixSuggestion.manual(), "t")

    kept = [finding("/encoder/x"), finding(None), finding("/decoder/y", "AC201", "dynamic-input-shape")]
    report = Report("m.onnx", resolve_target("Ascend310"), [finding("/decoder/rnn/x"), *kept])
    assert settings.apply(report).findings == kept


def test_per_model_ignores_drop_those_rules_in_matching_models_only(tmp_path):
    write(tmp_path / "pyproject.toml", PYPROJECT)
    settings = load_settings(cwd=tmp_path)

    def finding(code, name):
        return Finding(code, name, Severity.WARNING, "m", Location(node="n"), "h", FixSuggestion.manual(), "t")

    found = [finding("AC303", "attr-ignored"), finding("AC401", "oversized-block"), finding("AC201", "dynamic-input-shape")]
    legacy = Report(str(tmp_path / "models" / "legacy_det.onnx"), resolve_target("Ascend310"), found)
    other = Report(str(tmp_path / "models" / "det.onnx"), resolve_target("Ascend310"), found)
    assert [f.code for f in settings.apply(legacy).findings] == ["AC201"]
    assert settings.apply(other).findings == found


def test_select_and_ignore_accept_commas_and_prefixes(tmp_path):
    settings = load_settings({"select": ("AC1,dynamic-",), "ignore": ("unsupported-op",)}, isolated=True, cwd=tmp_path)
    assert settings.select == ("AC1", "dynamic-") and settings.ignore == ("unsupported-op",)


# --------------------------------------------------------------------------- through the CLI


def test_check_takes_the_chips_from_the_file(tmp_path, monkeypatch):
    import onnx

    from builders import single_op_model

    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".atccheck.toml", 'soc = ["Ascend310", "Ascend910B3"]\ncann = "6.0"\n')
    onnx.save(single_op_model("Relu", [[1, 3]], [1, 3]), tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", "m.onnx", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(r["target"]["soc"], r["target"]["cann"]) for r in doc["reports"]] == [("Ascend310", "6.0"), ("Ascend910B3", "6.0")]
    result = CliRunner().invoke(main, ["check", "m.onnx", "--format", "json", "--soc", "Ascend310P3", "--cann", "8.0"])
    doc = json.loads(result.stdout)
    assert (doc["target"]["soc"], doc["target"]["cann"]) == ("Ascend310P3", "8.0")


def test_check_fail_on_from_the_file_and_the_command_line(tmp_path, monkeypatch):
    import onnx

    from builders import single_op_model

    monkeypatch.chdir(tmp_path)
    onnx.save(single_op_model("FindMax", [[4, 4]], [4], opset=11), tmp_path / "m.onnx")
    write(tmp_path / ".atccheck.toml", 'soc = "Ascend310"\nfail-on = "never"\n')
    assert CliRunner().invoke(main, ["check", "m.onnx"]).exit_code == 0
    assert CliRunner().invoke(main, ["check", "m.onnx", "--fail-on", "error"]).exit_code == 1
    assert CliRunner().invoke(main, ["check", "m.onnx", "--no-config", "--soc", "Ascend310"]).exit_code == 1


def test_a_folder_check_drops_a_rule_only_in_the_models_the_glob_names(tmp_path, monkeypatch):
    import onnx

    from builders import single_op_model

    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    for name in ("legacy_a.onnx", "new_b.onnx"):
        onnx.save(single_op_model("FindMax", [[4, 4]], [4], opset=11), tmp_path / "models" / name)
    write(tmp_path / ".atccheck.toml", 'soc = "Ascend310"\n[per-model-ignores]\n"models/legacy_*" = ["unsupported-op"]\n')
    result = CliRunner().invoke(main, ["check", "models", "--format", "json"])
    assert result.exit_code == 1, result.output  # new_b.onnx still has its error
    by_model = {Path(r["model"]).name: {f["name"] for f in r["findings"]} for r in json.loads(result.stdout)["reports"]}
    assert "unsupported-op" not in by_model["legacy_a.onnx"] and "unsupported-op" in by_model["new_b.onnx"]


def test_config_command_shows_values_and_origins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", PYPROJECT)
    result = CliRunner().invoke(main, ["config", "--cann", "8.0", "models/det_1.onnx", "x.onnx"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    origin = str(tmp_path / "pyproject.toml")
    assert 'soc = ["Ascend310P3", "Ascend910B3"]' in result.stdout
    assert any(line.startswith('cann = "8.0"') and line.endswith("# command line") for line in lines)
    assert any(line.startswith('fail-on = "warning"') and line.endswith(f"# {origin}") for line in lines)
    assert any(line.startswith('precision-mode = "force_fp16"') and line.endswith("# default") for line in lines)
    assert "#   models/det_1.onnx: x:1,3,640,640" in lines and "#   x.onnx: none (as in the model)" in lines
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    table = tomllib.loads("\n".join(lines[: lines.index("") if "" in lines else None]))["tool"]["atccheck"]
    assert table["per-node-ignores"] == {"/decoder/*": ["AC101"]}
    assert table["per-model-ignores"] == {"models/legacy_*.onnx": ["attr-ignored", "AC40"]}


def test_config_command_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".atccheck.toml", 'soc = "Ascend310"\n')
    result = CliRunner().invoke(main, ["config", "--format", "json", "--select", "AC1"])
    doc = json.loads(result.stdout)
    assert doc["config_file"] == str(tmp_path / ".atccheck.toml")
    assert doc["settings"]["soc"] == {"value": ["Ascend310"], "from": str(tmp_path / ".atccheck.toml")}
    assert doc["settings"]["select"] == {"value": ["AC1"], "from": "command line"}


def test_config_errors_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".atccheck.toml", "colour = 1\n")
    result = CliRunner().invoke(main, ["config"])
    assert result.exit_code == 2 and "unknown key 'colour'" in result.stderr
    result = CliRunner().invoke(main, ["config", "--no-config", "--config", "x.toml"])
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_input_shapes_entries_may_carry_a_gear_option(tmp_path, monkeypatch):
    import onnx

    from builders import single_op_model

    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".atccheck.toml", 'soc = "Ascend310"\n[input-shapes]\n'
          '"dyn*.onnx" = { input-shape = "x0:-1,3", dynamic-batch = "1,4,8" }\n"gears_only.onnx" = { dynamic-batch = "2,4" }\n')
    settings = load_settings()
    assert settings.shapes_for("dyn.onnx") == "x0:-1,3" and settings.gears_for("dyn.onnx") == ("--dynamic_batch_size", "1,4,8")
    assert settings.shapes_for("gears_only.onnx") is None
    assert settings.gears_for("gears_only.onnx") == ("--dynamic_batch_size", "2,4")
    assert settings.gears_for("other.onnx") is None
    assert load_settings({"input_shape": "x0:2,3"}).gears_for("dyn.onnx") is None  # --input-shape replaces the entry
    onnx.save(single_op_model("Relu", [["batch", 3]], ["batch", 3], opset=13), tmp_path / "dyn.onnx")
    result = CliRunner().invoke(main, ["check", "dyn.onnx"])
    assert result.exit_code == 0, result.output
    assert '--dynamic_batch_size="1,4,8"' in result.output
    shown = CliRunner().invoke(main, ["config", "dyn.onnx"])
    assert '"dynamic-batch" = "1,4,8"' in shown.output
    assert "dyn.onnx: x0:-1,3, --dynamic_batch_size=1,4,8" in shown.output


@pytest.mark.parametrize(("entry", "message"), [
    ('{ input-shape = "x:-1", dynamic-batch = "1,2", dynamic-dims = "1;2" }', "E10009"),
    ('{ dynamic-batch = "1,-2" }', "E10038"),
    ('{ input-shape = "x:-1" }', "needs a gear key"),
    ('{ dynamic-batches = "1,2" }', "unknown key"),
])
def test_bad_gear_entries_name_the_key(tmp_path, entry, message):
    write(tmp_path / ".atccheck.toml", f'[input-shapes]\n"m.onnx" = {entry}\n')
    with pytest.raises(UsageError, match=message):
        load_settings(cwd=tmp_path)
