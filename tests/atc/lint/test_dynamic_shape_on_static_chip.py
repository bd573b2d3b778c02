"""AC520 dynamic-shape-on-static-chip: only for chips without dynamic-shape compilation; the hint fits the -1 axes."""

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


def findings(soc: str, shape: str, cann: str = "8.0", name: str = "dynamic-shape-on-static-chip"):
    result = lint_command(command(soc, shape), token_model(), model_path="m.onnx", cann=cann)
    return [f for f in result.findings if f.name == name]


def test_fires_on_a_chip_without_dynamic_shape():
    (f,) = findings("Ascend310B4", "tokens:-1,-1")
    assert f.code == "AC520" and f.atc_error == "EZ3002"


def test_silent_on_a_chip_that_compiles_dynamic_shapes_in_every_release():
    for cann in ("5.0", "6.0", "8.0", "9.0"):
        assert findings("Ascend310P3", "tokens:-1,-1", cann=cann) == []


def test_batch_and_sequence_both_minus_one_suggest_dynamic_dims():
    (f,) = findings("Ascend310B4", "tokens:-1,-1")
    assert "--dynamic_dims" in f.hint and "--dynamic_batch_size" not in f.hint


def test_only_the_batch_axis_minus_one_suggests_dynamic_batch_size():
    (f,) = findings("Ascend310B4", "tokens:-1,128")
    assert "--dynamic_batch_size" in f.hint and "--dynamic_dims" not in f.hint
