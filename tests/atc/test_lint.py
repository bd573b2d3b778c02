"""The atc command linter: one test per defect class, each with the ATC error it would cause.

The defective commands are the kinds published conversion guides contain (glued flags, a space
after '=', '${chip_name}', 'Ascendxxx', NHWC for ONNX, ',' between --input_shape entries).
"""

from __future__ import annotations

import onnx
import pytest

from atccheck.atc.lint import lint_command
from atccheck.catalogue import command_rules
from atccheck.errors import UsageError
from atccheck.tables import tables
from builders import single_op_model
from conftest import SAMPLE_MODELS

# One gear fewer than ATC's minimum (E10035).
TOO_FEW_GEARS = ",".join(str(b) for b in range(1, tables().limit("gear_count_min")))

GOOD = ('atc --model=models/convnet_dynamic_batch.onnx --framework=5 --output=out/net '
        '--soc_version=Ascend310P3 --input_format=NCHW --input_shape="image:1,3,64,64"')


def sample(name: str) -> onnx.ModelProto:
    path = SAMPLE_MODELS / f"{name}.onnx"
    if not path.is_file():
        pytest.skip(f"missing resource: {path} (sample models built by models/make_models.py)")
    return onnx.load(str(path), load_external_data=False)


def lint(text: str, model_name: str = "convnet_dynamic_batch", **kwargs):
    model = sample(model_name) if model_name else None
    return lint_command(text, model, model_path=f"models/{model_name}.onnx" if model_name else None, **kwargs)


def only(result, name):
    found = [f for f in result.findings if f.name == name]
    assert found, f"no {name} in {[f.name for f in result.findings]}"
    return found


def test_a_good_command_is_clean():
    result = lint(GOOD)
    assert result.findings == ()
    assert not result.has_errors()
    cmd = result.commands[0]
    assert cmd.value("--soc_version") == "Ascend310P3" and cmd.value("--input_shape") == "image:1,3,64,64"


def test_every_defect_class_has_a_unique_code():
    assert len({c.code for c in command_rules()}) == len(command_rules())
    assert len({c.name for c in command_rules()}) == len(command_rules())
    assert all(c.code.startswith("AC5") for c in command_rules())


def test_unknown_flag():
    (f,) = only(lint(GOOD + " --input_shapes=image:1,3,64,64"), "unknown-atc-flag")
    assert f.atc_error == "ERROR: unknown command line flag" and f.location.node == "--input_shapes"
    assert "--input_shape" in f.hint  # closest real flag
    (f,) = only(lint(GOOD + " --out=x"), "unknown-atc-flag")  # ambiguous prefix
    assert "ambiguous" in f.message


def test_single_dash_long_flag_is_promoted_but_reported():
    (f,) = only(lint(GOOD.replace("--framework=5", "-framework=5")), "single-dash-flag")
    assert f.severity.value == "info" and f.atc_error is None
    result = lint(GOOD + " -o=x")
    (f,) = only(result, "single-dash-flag")
    assert f.severity.value == "error" and "unknown command line flag" in f.atc_error


def test_unicode_dash_from_a_document():
    (f,) = only(lint(GOOD.replace("--framework=5", "\u2013framework=5")), "unicode-dash-flag")
    assert f.atc_error == "ERROR: Non-option parameter" and "U+2013" in f.message
    assert not [x for x in lint(GOOD.replace("--framework=5", "\u2014framework=5")).findings
                if x.name == "missing-required-flag"]  # one mistake, one finding


def test_glued_flags():
    text = GOOD.replace('--input_shape="image:1,3,64,64"', '--input_shape="image:1,3,64,64"--output=out2')
    result = lint(text)
    (f,) = only(result, "glued-flags")
    assert f.atc_error == "E10054" and f.data["glued"] == "--output"
    assert not [x for x in result.findings if x.name == "input-shape-syntax"]


def test_space_after_equals():
    result = lint(GOOD.replace("--model=models/", "--model= models/"))
    (f,) = only(result, "space-after-equals")
    assert f.location.node == "--model" and "Non-option parameter" in f.message
    assert not [x for x in result.findings if x.name in ("stray-word", "missing-required-flag")]


def test_stray_word_from_an_unquoted_space():
    result = lint(GOOD.replace('--input_shape="image:1,3,64,64"', "--input_shape=image:1, 3,64,64"))
    found = only(result, "stray-word")
    assert found[0].atc_error == "ERROR: Non-option parameter" and "--input_shape" in found[0].hint


def test_missing_value_and_swallowed_flag():
    (f,) = only(lint(GOOD + " --log"), "missing-flag-value")
    assert "missing its argument" in f.message
    result = lint(GOOD.replace("--output=out/net", "--output"))
    (f,) = only(result, "missing-flag-value")
    assert f.data["swallowed"] == "--soc_version" and f.atc_error == "E10054"


def test_same_flag_twice_with_different_values():
    (f,) = only(lint(GOOD + " --soc_version=Ascend910B3"), "duplicate-atc-flag")
    assert f.severity.value == "warning" and f.data["values"] == ["Ascend310P3", "Ascend910B3"]
    assert not [x for x in lint(GOOD + " --framework=5").findings if x.name == "duplicate-atc-flag"]


@pytest.mark.parametrize(
    ("literal", "expect"),
    [
        ("Ascend", "names no chip"),
        ("Ascendxxx", "placeholder"),
        ("AscendA310", "no platform config"),
        ("ascend310p3", "case-sensitive: write Ascend310P3"),
        ("Ascend910_93", "short names used inside code"),
        ("Ascend950", "short names used inside code"),  # not only the first name of the table entry
        ("Ascend710", "pre-rename name of Ascend310P"),
        ("Ascend310P", "Ascend310P1"),
    ],
)
def test_invalid_soc_version(literal, expect):
    (f,) = only(lint(GOOD.replace("Ascend310P3", literal)), "invalid-soc-version")
    assert f.severity.value == "error" and expect in f.message


def test_valid_soc_without_facts_is_info():
    (f,) = only(lint(GOOD.replace("Ascend310P3", "Ascend950PR_9579")), "invalid-soc-version")
    assert f.severity.value == "info"


def test_unresolved_placeholders():
    (f,) = only(lint(GOOD.replace("Ascend310P3", "Ascend${chip_name}")), "unresolved-placeholder")
    assert f.atc_error == "E10054" and "${chip_name}" in f.message
    assert not [x for x in lint(GOOD.replace("Ascend310P3", "${SOC}")).findings if x.name == "invalid-soc-version"]
    (f,) = only(lint(GOOD.replace("out/net", '"<output_name>"')), "unresolved-placeholder")
    assert f.severity.value == "error"


def test_unquoted_semicolon_cuts_the_command():
    model = sample("bert_tiny_two_inputs")
    text = ("atc --model=b.onnx --framework=5 --soc_version=Ascend310 "
            "--input_shape=input_ids:1,128;attention_mask:1,128 --output=bert")
    result = lint_command(text, model, model_path="b.onnx")
    (f,) = only(result, "unquoted-shell-separator")
    assert f.atc_error == "E10054" and f.data["lost_flags"] == ["--output"]
    # the value as meant is checked, so no extra name or shape findings
    assert [x.name for x in result.findings] == ["unquoted-shell-separator"]
    early = lint_command(text.replace(" --output=bert", "").replace("--framework=5", "--framework=5 --output=bert"),
                         model, model_path="b.onnx")
    (f,) = only(early, "unquoted-shell-separator")
    assert f.atc_error is None and f.data["lost_flags"] == [] and "E10001" in f.message


def test_missing_required_flags():
    result = lint("atc --model=models/convnet_dynamic_batch.onnx --input_shape=image:1,3,64,64")
    codes = {f.location.node: f.atc_error for f in only(result, "missing-required-flag")}
    assert codes == {"--framework": "E10007", "--output": "E10054", "--soc_version": "E10054"}
    mode3 = lint("atc --mode=3 --model=m.onnx --framework=5 --soc_version=Ascend310P3 --input_shape=image:1,3,64,64")
    assert not [f for f in mode3.findings if f.name == "missing-required-flag"]


def test_the_flags_each_mode_needs_come_from_the_dependency_rules():
    """--mode 7 builds an OM2 model (no --framework needed); --mode 1 dumps one and needs --om and --json."""
    mode7 = lint("atc --mode=7 --model=m.onnx --input_shape=image:1,3,64,64")
    codes = {f.location.node: f.atc_error for f in only(mode7, "missing-required-flag")}
    assert codes == {"--output": "E10054", "--soc_version": "E10054"}
    mode1 = lint("atc --mode=1 --framework=5")
    codes = {f.location.node: f.atc_error for f in only(mode1, "missing-required-flag")}
    assert codes == {"--om": "E10004", "--json": "E10004"}


def test_invalid_enum_values_name_their_codes():
    result = lint(GOOD + " --log=verbose --external_weight=3 --allow_hf32=yes")
    codes = {f.location.node: f.atc_error for f in only(result, "invalid-flag-value")}
    assert codes == {"--log": "E10010", "--external_weight": "E10006", "--allow_hf32": "E10005"}


def test_nhwc_for_onnx():
    (f,) = only(lint(GOOD.replace("NCHW", "NHWC")), "nhwc-for-onnx")
    assert f.atc_error == "E10001" and "NCHW, ND or NCDHW" in f.message


def test_input_names_not_in_model():
    (f,) = only(lint(GOOD.replace("image:", "input:")), "input-name-not-in-model")
    assert f.atc_error == "E10016" and "image" in f.message
    (f,) = only(lint(GOOD.replace("image:", "Image:")), "input-name-not-in-model")
    assert "case-sensitive" in f.message


def test_rank_mismatch():
    (f,) = only(lint(GOOD.replace("image:1,3,64,64", "image:1,3,64")), "input-rank-mismatch")
    assert f.atc_error == "E10049"


def test_missing_input_shape_for_dynamic_inputs():
    text = GOOD.replace(' --input_shape="image:1,3,64,64"', "")
    (f,) = only(lint(text), "missing-input-shape")
    assert f.atc_error == "E10001" and f.data["input"] == "image"
    assert not lint(text.replace("convnet_dynamic_batch", "convnet_clean"), "convnet_clean").findings


def test_input_shape_syntax_and_comma_separated_entries():
    model = sample("bert_tiny_two_inputs")
    text = ('atc --model=b.onnx --framework=5 --output=b --soc_version=Ascend310 '
            '--input_shape="input_ids:1,128,attention_mask:1,128"')
    result = lint_command(text, model, model_path="b.onnx")
    (f,) = result.findings  # ATC splits the name at the last ':', so the name is wrong, nothing else
    assert f.name == "input-name-not-in-model" and f.atc_error == "E10016" and "instead of ';'" in f.message
    (f,) = only(lint(GOOD.replace("image:1,3,64,64", "image:1,3,64.0,64")), "input-shape-syntax")
    assert f.atc_error == "E10002"
    (f,) = only(lint(GOOD.replace("image:1,3,64,64", "image:1,3,0,64")), "input-shape-syntax")
    assert f.atc_error == "E10011"


@pytest.mark.parametrize(
    ("extra", "shape", "code"),
    [
        ('--dynamic_batch_size="1,2" --dynamic_dims="1;2"', "image:-1,3,64,64", "E10009"),
        (f'--dynamic_batch_size="{TOO_FEW_GEARS}"', "image:-1,3,64,64", "E10035"),
        ('--dynamic_batch_size="1,2,2"', "image:-1,3,64,64", "E10039"),
        ('--dynamic_batch_size="1,2"', "image:1,3,-1,64", "E10018"),
        ('--dynamic_batch_size="1,2"', "image:1,3,64,64", "E10031"),
        ('--dynamic_image_size="64,64;128,128"', "image:-1,3,64,64", "E10019"),
        ('--dynamic_image_size="64;128"', "image:1,3,-1,-1", "E10020"),
        ('--dynamic_dims="1,2;3,4"', "image:-1,3,64,64", "E10003"),
        ('--dynamic_batch_size="1,2"', "image:1~4,3,64,64", "E10040"),
        ('--dynamic_batch_size="1,a"', "image:-1,3,64,64", "E10003"),
    ],
)
def test_gear_rules(extra, shape, code):
    text = GOOD.replace("image:1,3,64,64", shape) + " " + extra
    found = only(lint(text), "gear-rule")
    assert code in [f.atc_error for f in found]


def test_gear_option_without_input_shape():
    text = GOOD.replace(' --input_shape="image:1,3,64,64"', ' --dynamic_batch_size="1,2"')
    assert "E10004" in [f.atc_error for f in only(lint(text), "gear-rule")]


def test_dynamic_shape_on_static_chips():
    (f,) = only(lint(GOOD.replace("Ascend310P3", "Ascend310B4").replace("image:1", "image:-1")),
                "dynamic-shape-on-static-chip")
    assert f.atc_error == "EZ3002"
    assert not [x for x in lint(GOOD.replace("image:1", "image:-1")).findings
                if x.name == "dynamic-shape-on-static-chip"]  # Ascend310P3 compiles dynamic shape


def test_precision_conflicts():
    (f,) = only(lint(GOOD + " --precision_mode=force_fp32 --precision_mode_v2=origin"), "precision-mode-conflict")
    assert f.atc_error == "E10056"
    (f,) = only(lint(GOOD + " --precision_mode_v2=mixed_bfloat16"), "precision-mode-conflict")
    assert "bf16" in f.message
    (f,) = only(lint(GOOD + " --precision_mode_v2=origin", cann="6.0"), "flag-not-in-release")
    assert "unknown command line flag" in f.atc_error


def test_flags_not_for_onnx():
    result = lint(GOOD + " --weight=w.caffemodel --auto_tune_mode=RL")
    found = {f.location.node: f for f in only(result, "flag-not-for-onnx")}
    assert found["--weight"].severity.value == "warning"
    assert found["--auto_tune_mode"].atc_error == "E10060"


def test_wrong_framework():
    (f,) = only(lint(GOOD.replace("--framework=5", "--framework=3")), "wrong-framework")
    assert f.atc_error == "E13005"
    (f,) = only(lint(GOOD.replace("--framework=5", "--framework=onnx")), "wrong-framework")
    assert f.atc_error == "E10007"


def test_output_not_a_base_name():
    (f,) = only(lint(GOOD.replace("out/net", "out/")), "output-not-a-base-name")
    assert f.atc_error == "E10022"
    (f,) = only(lint(GOOD.replace("out/net", "out/net.om")), "output-not-a-base-name")
    assert f.severity.value == "warning"


def test_abbreviated_flag():
    (f,) = only(lint(GOOD.replace("--soc_version=", "--soc=")), "abbreviated-flag")
    assert f.location.node == "--soc_version"


def test_dashes_inside_names_are_accepted():
    assert lint(GOOD.replace("--input_shape", "--input-shape").replace("--soc_version", "--soc-version")).findings == ()


def test_model_path_mismatch():
    (f,) = only(lint(GOOD.replace("convnet_dynamic_batch.onnx", "other.onnx")), "model-path-mismatch")
    assert f.severity.value == "info"


def test_script_with_several_commands_and_continuations():
    script = (
        "#!/bin/bash\n"
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
        "export chip=Ascend310P3  # comment\n"
        "atc --model=models/convnet_dynamic_batch.onnx \\\n"
        "    --framework=5 --output=a --soc_version=Ascend310P3 \\\n"
        "    --input_shape='image:1,3,64,64'\n"
        "\n"
        "/usr/local/Ascend/bin/atc --model=models/convnet_dynamic_batch.onnx --framework=5 --output=b "
        "--soc_version=ascend310p3 --input_shape=image:1,3,64,64\n"
    )
    result = lint(script)
    assert len(result.commands) == 2
    (f,) = result.findings
    assert f.name == "invalid-soc-version" and f.data["line"] == 8


def test_no_atc_command_and_broken_shell_are_usage_errors():
    with pytest.raises(UsageError, match="no atc command"):
        lint_command("python convert.py --model m.onnx")
    with pytest.raises(UsageError, match="not complete shell"):
        lint_command('atc --model="m.onnx')


def test_lint_without_a_model_skips_graph_checks():
    result = lint_command(GOOD.replace('"image:1,3,64,64"', '"nothing:1"'))
    assert result.findings == ()


def test_chip_from_the_caller_when_the_command_has_none():
    text = GOOD.replace(" --soc_version=Ascend310P3", "").replace("image:1", "image:-1")
    result = lint(text, soc="Ascend310")
    assert "EZ3002" in [f.atc_error for f in result.findings]


def test_findings_are_located_on_the_command():
    model = single_op_model("Relu", [[1, 4]], [1, 4])
    result = lint_command("atc --model=m.onnx --framework=5 --output=o --soc_version=Ascend310P3 --input_format=NHWC",
                          model)
    (f,) = result.findings
    assert f.location.graph == "atc-command" and f.location.node == "--input_format"
    assert f.to_dict()["code"] == "AC514"


def test_stray_word_hint_names_the_flag_written_just_before_it():
    command = ("atc --framework=5 --model=m.onnx --input_shape=image:1, 3,64,64 "
               "--output=out --soc_version=Ascend310P3")
    found = only(lint(command), "stray-word")
    assert "--input_shape" in found[0].hint and "--soc_version" not in found[0].hint


# --------------------------------------------------------------------------- published commands


@pytest.mark.parametrize("redirect", [
    "> atc.log 2>&1", ">atc.log 2>&1", "&> atc.log", ">> atc.log", "2>/dev/null", "2>&1 | tee atc.log",
    "1>out.txt 2> err.txt",
])
def test_shell_redirections_are_not_stray_words(redirect):
    """The shell takes redirections out of argv (POSIX shell 2.7): ATC never sees them."""
    result = lint(GOOD + " " + redirect)
    assert result.findings == (), [f.message for f in result.findings]
    assert result.commands[0].argv[-1] == '--input_shape=image:1,3,64,64'


def test_a_quoted_angle_bracket_is_still_a_stray_word():
    result = lint(GOOD + ' ">" atc.log')
    assert {f.data["word"] for f in only(result, "stray-word")} == {">", "atc.log"}


def test_auto_tune_mode_is_removed_only_where_the_facts_say_so():
    """atc_options.json --auto_tune_mode: rejected (E10060) by hicann/ge@ffdcbc9f7 main_impl.cc, the
    source the 8.0/9.0 profiles are built on; nothing records its removal in CANN 5.0/6.0."""
    text = GOOD + " --auto_tune_mode=RL"
    (f,) = only(lint(text, cann="8.0"), "flag-not-for-onnx")
    assert f.severity.value == "error" and f.atc_error == "E10060"
    for cann in ("5.0", "6.0"):
        (f,) = only(lint(text, cann=cann), "flag-not-for-onnx")
        assert f.severity.value == "info" and f.atc_error is None
        assert f"CANN {cann}" in f.message and "may still be accepted" in f.message


def test_ascend710_is_not_an_error_under_cann_50():
    """atc_options.json soc_versions.not_valid_for_atc: 'Ascend710 (pre-rename name of Ascend310P in very
    early CANN 5.0 material - unverified here)': a warning for 5.0, an invalid name for later releases."""
    text = GOOD.replace("Ascend310P3", "Ascend710")
    (f,) = only(lint(text, cann="5.0"), "invalid-soc-version")
    assert f.severity.value == "warning" and "CANN 5.0" in f.message
    (f,) = only(lint(text, cann="8.0"), "invalid-soc-version")
    assert f.severity.value == "error"


def test_a_placeholder_in_the_dims_keeps_the_input_name_check():
    """atc_cli.md rule 10: names must be graph inputs (E10016), whatever the dims hold."""
    wrong = GOOD.replace('"image:1,3,64,64"', '"input_0:${bs},3,64,64"')
    (f,) = only(lint(wrong), "input-name-not-in-model")
    assert f.atc_error == "E10016" and "input_0" in f.message
    right = lint(GOOD.replace('"image:1,3,64,64"', '"image:${bs},3,64,64"'))
    assert [f.name for f in right.findings] == ["unresolved-placeholder"]
    named_by_variable = lint(GOOD.replace('"image:1,3,64,64"', '"${name}:1,3,64,64"'))
    assert "input-name-not-in-model" not in [f.name for f in named_by_variable.findings]
