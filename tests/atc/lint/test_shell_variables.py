"""Variables a script sets itself are read as the shell expands them; words ATC never sees are still judged."""

from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.atc.lint import lint_command
from atccheck.atc.shell import resolve_variables, split_commands
from builders import init, make_model, tensor_input


def names(result, line=None):
    return [f.name for f in result.findings if line is None or f.data.get("line") == line]


SCRIPT = """#!/bin/sh
SOC=Ascend310P3
export OUT=build/net
MODEL="models/net.onnx"
atc --framework=5 --model=$MODEL --output=${OUT} --soc_version=$SOC --input_format=NCHW
"""


def test_a_variable_set_above_resolves():
    result = lint_command(SCRIPT)
    assert names(result) == []
    (cmd,) = result.commands
    assert cmd.value("--soc_version") == "Ascend310P3" and cmd.value("--output") == "build/net"
    assert cmd.value("--model") == "models/net.onnx"


def test_a_resolved_value_is_judged_like_a_written_one():
    result = lint_command(SCRIPT.replace("SOC=Ascend310P3", "SOC=ascend310p3"))
    assert "invalid-soc-version" in names(result)


def test_unknown_values_stay_unresolved():
    for setting in ("SOC=$1", "read SOC", "unset SOC", "SOC=Ascend310P3 true"):
        text = SCRIPT.replace("SOC=Ascend310P3", "SOC=Ascend310P3\n" + setting if setting != "SOC=Ascend310P3 true"
                              else setting)
        assert "unresolved-placeholder" in names(lint_command(text)), setting


def test_only_simple_expansions_of_known_names_change():
    commands = resolve_variables(split_commands('A=x\necho "$A-${A}" ${A:-y} $B'))
    words = commands[1].words
    assert words[1].text == "x-x" and words[1].expansions == []
    assert words[2].expansions == ["${A:-y}"] and words[3].expansions == ["$B"]


def test_words_lost_to_an_unquoted_semicolon_are_still_judged():
    """ATC never sees what follows the ';', but the user meant it: once quoted, ATC reads it."""
    node = helper.make_node("Conv", ["image", "w"], ["y"], kernel_shape=[3, 3])
    w = init("w", np.zeros((2, 3, 3, 3), np.float32))
    model = make_model([node], [tensor_input("image", [1, 3, 8, 8])], [tensor_input("y", [1, 2, 6, 6])], [w])
    text = ("atc --framework=5 --model=m.onnx --soc_version=Ascend310P3 --output=out "
            "--input_shape=image:1,3,8,8;mask:1 --log=loud --input_format=NHWC")
    found = names(lint_command(text, model, model_path="m.onnx"))
    assert found[0] == "unquoted-shell-separator"
    assert {"invalid-flag-value", "nhwc-for-onnx", "input-name-not-in-model"} <= set(found)
