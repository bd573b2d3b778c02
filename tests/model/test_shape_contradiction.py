"""--input-shape that the graph cannot take: strict shape inference fails with it, not without it."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.api import check
from atccheck.cli.main import main
from atccheck.errors import UsageError
from atccheck.model.shapes import infer_shapes
from builders import init, make_model, tensor_input


def dense(declared: list, extra_input: bool = False) -> onnx.ModelProto:
    """x @ w with a 784x16 weight (large enough to be stripped from the inference copy)."""
    w = init("w", np.zeros((784, 16), np.float32))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")]
    inputs = [tensor_input("x", declared)]
    outputs = [tensor_input("y", [declared[0], 16])]
    if extra_input:
        nodes.append(helper.make_node("Relu", ["z"], ["r"], name="act"))
        inputs.append(tensor_input("z", ["n", 4]))
        outputs.append(tensor_input("r", ["n", 4]))
    return make_model(nodes, inputs, outputs, [w])


def test_matmul_with_the_wrong_inner_dim_is_a_usage_error_naming_input_and_node():
    with pytest.raises(UsageError) as info:
        check(dense(["n", 784]), "Ascend310", input_shapes="x:8,785")
    message = str(info.value)
    assert "x:8,785" in message and "'fc' (MatMul)" in message
    assert "\n" not in message


def test_matching_shapes_pass():
    report = check(dense(["n", 784]), "Ascend310", input_shapes="x:8,784")
    assert report.input_shapes == {"x": (8, 784)}


def test_only_the_inputs_that_reach_the_node_are_named():
    with pytest.raises(UsageError) as info:
        check(dense(["n", 784], extra_input=True), "Ascend310", input_shapes="x:8,785;z:2,4")
    assert "x:8,785" in str(info.value) and "z:" not in str(info.value)


def test_a_graph_broken_on_its_own_is_not_blamed_on_the_shapes():
    """The declared shape already contradicts the weight: the given shape is not the cause."""
    index = infer_shapes(dense(["n", 785]), {"x": (8, 785)})
    assert index.contradiction is None


def test_no_shapes_given_means_no_strict_check():
    assert infer_shapes(dense(["n", 785])).contradiction is None


def test_a_gear_the_graph_cannot_take_is_reported():
    with pytest.raises(UsageError, match="--dynamic_dims gear 785: .*'fc' \\(MatMul\\)"):
        check(dense(["n", 784]), "Ascend310", input_shapes="x:1,-1", dynamic_dims="784;785")


def test_cli_exits_2_with_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    onnx.save(dense(["n", 784]), tmp_path / "dense.onnx")
    result = CliRunner().invoke(main, ["check", "dense.onnx", "--soc", "Ascend310", "--input-shape", "x:8,785",
                                       "--no-config"])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("atccheck: error")]
    assert len(errors) == 1 and "'fc' (MatMul)" in errors[0] and "x:8,785" in errors[0]


def test_declared_output_dims_are_recomputed_not_a_contradiction():
    """An exporter's [1, 16] output does not contradict a batch of 8: ATC recomputes output shapes."""
    model = dense([1, 784])
    before = model.SerializeToString()
    report = check(model, "Ascend310", input_shapes="x:8,784")
    assert report.context.shapes.get("y").shape == (8, 16)
    assert model.SerializeToString() == before
    geared = check(model, "Ascend310", input_shapes="x:-1,784", dynamic_batch="1,8")
    assert geared.atc_command.option("--dynamic_batch_size") == "1,8"
