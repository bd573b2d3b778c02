"""AC509 invalid-soc-version: an error ATC fails on, so the text never calls it silent."""

from __future__ import annotations

import onnx
from click.testing import CliRunner
from onnx import TensorProto, helper

from atccheck.atc.lint import lint_command
from atccheck.cli.main import main
from atccheck.rule_docs import atc_reaction


def token_model() -> onnx.ModelProto:
    """One input with batch and sequence symbolic, as a text model exports it."""
    x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq"])
    graph = helper.make_graph([helper.make_node("Relu", ["tokens"], ["out"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


COMMAND = 'atc --model=m.onnx --framework=5 --output=net --soc_version=ascend310p3 --input_shape="tokens:1,128"'


def test_wrong_case_is_an_error_without_a_catalogued_code():
    (f,) = [f for f in lint_command(COMMAND, token_model(), model_path="m.onnx").findings
            if f.name == "invalid-soc-version"]
    assert f.severity.value == "error" and f.atc_error is None
    assert "Ascend310P3" in f.message


def test_reaction_of_an_error_without_code_is_a_failure_not_silence():
    assert atc_reaction(None, "error") == "fails (error code not catalogued)"
    assert atc_reaction(None, "warning") == "no error (silent)"
    assert atc_reaction("E10054", "error") == "E10054"


def test_lint_text_says_atc_fails(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(token_model(), str(path))
    result = CliRunner().invoke(main, ["atc-cmd", str(path), "--lint", COMMAND])
    assert result.exit_code == 1, result.output
    assert "ATC: fails (error code not catalogued)" in result.stdout
    assert "silent" not in result.stdout
