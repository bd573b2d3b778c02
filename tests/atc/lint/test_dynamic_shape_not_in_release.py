"""AC528 dynamic-shape-not-in-release: a release limit, named as such, on a chip that compiles dynamic shapes."""

from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from atccheck.atc.lint import lint_command


def token_model() -> onnx.ModelProto:
    """One input with batch and sequence symbolic, as a text model exports it."""
    x = helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", "seq"])
    graph = helper.make_graph([helper.make_node("Relu", ["tokens"], ["out"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def command(soc: str, shape: str) -> str:
    return f'atc --model=m.onnx --framework=5 --output=net --soc_version={soc} --input_shape="{shape}"'


def lint(shape: str, cann: str, soc: str = "Ascend310P3"):
    return lint_command(command(soc, shape), token_model(), model_path="m.onnx", cann=cann).findings


def test_minus_one_without_gears_on_6_0_is_a_release_finding_not_a_chip_one():
    found = lint("tokens:-1,-1", "6.0")
    names = [f.name for f in found]
    assert "dynamic-shape-not-in-release" in names
    assert "dynamic-shape-on-static-chip" not in names  # Ascend310P3 compiles dynamic shapes
    (f,) = [f for f in found if f.name == "dynamic-shape-not-in-release"]
    assert f.code == "AC528" and f.atc_error == "E10011"
    assert "--dynamic_dims" in f.message and "--dynamic_dims" in f.hint
    assert "--dynamic_batch_size" not in f.message + f.hint


def test_a_range_on_6_0_names_e10002():
    (f,) = [f for f in lint("tokens:1~8,128", "6.0") if f.name == "dynamic-shape-not-in-release"]
    assert f.atc_error == "E10002"


def test_silent_from_8_0_on():
    assert not [f for f in lint("tokens:-1,-1", "8.0") if f.name == "dynamic-shape-not-in-release"]


def test_a_static_chip_on_an_old_release_gets_both_findings():
    names = [f.name for f in lint("tokens:-1,-1", "6.0", soc="Ascend310B4")]
    assert "dynamic-shape-not-in-release" in names and "dynamic-shape-on-static-chip" in names


def test_a_range_on_the_batch_axis_alone_suggests_dynamic_batch_size():
    (f,) = [f for f in lint("tokens:1~8,128", "6.0") if f.name == "dynamic-shape-not-in-release"]
    assert "--dynamic_batch_size" in f.hint and "--dynamic_dims" not in f.hint


def test_the_release_finding_cites_the_release_fact():
    (f,) = [f for f in lint("tokens:-1,-1", "6.0") if f.name == "dynamic-shape-not-in-release"]
    assert "CANN <= 6.x" in f.source and "Ascend310" not in f.source
