"""Damaged or extreme model files get one line naming the file and what is wrong, from every command."""

from __future__ import annotations

import subprocess
import sys

import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from atccheck.cli.main import main
from builders import make_model, tensor_input

COMMANDS = [["check", "--soc", "Ascend310P3"], ["fix", "--soc", "Ascend310P3"], ["atc-cmd", "--soc", "Ascend310P3"]]


def run(command: list[str], path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, [command[0], str(path), *command[1:]])
    return result.exit_code, [line for line in result.stderr.splitlines() if line.strip()]


def relu_model() -> onnx.ModelProto:
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    return make_model([node], [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])], name="graphname")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("damaged", [b"graphname", b"relu"])
def test_a_name_that_is_not_utf8(tmp_path, command, damaged):
    data = bytearray(relu_model().SerializeToString())
    data[data.find(damaged)] = 0xFF
    path = tmp_path / "m.onnx"
    path.write_bytes(bytes(data))
    code, lines = run(command, path)
    assert code == 2 and len(lines) == 1
    assert "m.onnx" in lines[0] and "not UTF-8" in lines[0] and "internal error" not in lines[0]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def deep_if_model(depth: int) -> bytes:
    """If nodes nested ``depth`` deep, spliced as bytes (protobuf itself refuses to build them)."""
    leaf = helper.make_graph([helper.make_node("Identity", ["x"], ["d"])], "leaf", [],
                             [helper.make_tensor_value_info("d", TensorProto.FLOAT, None)])
    inner = leaf.SerializeToString()
    for level in range(depth):
        then_attr = onnx.AttributeProto(name="then_branch", type=onnx.AttributeProto.GRAPH).SerializeToString()
        else_attr = onnx.AttributeProto(name="else_branch", type=onnx.AttributeProto.GRAPH)
        else_attr.g.CopyFrom(leaf)
        node = helper.make_node("If", ["flag"], ["d"], name=f"if{level}").SerializeToString()
        node += _field(5, then_attr + _field(6, inner)) + _field(5, else_attr.SerializeToString())
        inner = helper.make_graph([], f"g{level}", [], [helper.make_tensor_value_info("d", TensorProto.FLOAT, None)]
                                  ).SerializeToString() + _field(1, node)
    root = helper.make_graph([], "root", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                             [helper.make_tensor_value_info("d", TensorProto.FLOAT, None)],
                             [helper.make_tensor("flag", TensorProto.BOOL, [], [True])])
    model = helper.make_model(root, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString() + _field(7, inner)  # protobuf merges the two graph fields


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_nesting_past_protobufs_limit_is_named(tmp_path, command):
    path = tmp_path / "deep.onnx"
    path.write_bytes(deep_if_model(50))
    code, lines = run(command, path)
    assert code == 2 and len(lines) == 1
    assert "nested deeper than protobuf's parser allows" in lines[0]


def test_atc_precheck_of_an_unreadable_model_says_why(tmp_path):
    path = tmp_path / "deep.onnx"
    path.write_bytes(deep_if_model(50))
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3", "--format", "atc-precheck",
                                       "-o", str(tmp_path / "result.json")])
    assert result.exit_code == 2
    assert "nested deeper" in result.stderr and "got 0 reports" not in result.stderr
    assert not (tmp_path / "result.json").exists()


def test_a_node_name_with_a_newline_stays_on_one_line(tmp_path):
    first = helper.make_node("Relu", ["x"], ["h"], name="two\nlines")
    second = helper.make_node("Relu", ["h"], ["y"], name="two\nlines")
    model = make_model([first, second], [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310P3"])
    assert result.exit_code == 1
    assert "two\\nlines" in result.stdout
    assert not any(line.startswith("lines") for line in result.stdout.splitlines())


def layer_norm_model(dims) -> onnx.ModelProto:
    import numpy as np

    from builders import init

    node = helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], name="ln", axis=0)
    return make_model([node], [tensor_input("x", dims)], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                      [init("gamma", np.ones(8, np.float32)), init("beta", np.zeros(8, np.float32))], opset=17)


@pytest.mark.parametrize("dims,shape", [
    (["batch", 3, -7, 8], None),  # onnx's inference aborted the process on the negative dim
    (["batch", 3, 8, 8], "x:4611686018427387904,4611686018427387904,4611686018427387904,8"),  # int64 overflow
])
def test_impossible_dims_do_not_abort_the_process(tmp_path, dims, shape):
    path = tmp_path / "m.onnx"
    onnx.save(layer_norm_model(dims), str(path))
    run_alone(["check", str(path), "--soc", "Ascend310"] + (["--input-shape", shape] if shape else []), 120)


def run_alone(args: list[str], timeout: float) -> "subprocess.CompletedProcess[str]":
    """The command in a process of its own, which must end with an exit code of the contract:
    a regression here kills the process, and must not take pytest with it."""
    done = subprocess.run([sys.executable, "-c", "from atccheck.cli.main import main; main()", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode in (0, 1, 2), done.stderr[-500:]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    return done


def negative_dim_slice_model() -> onnx.ModelProto:
    import numpy as np

    from builders import init

    node = helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"], name="slice")
    consts = [init("starts", np.array([0], np.int64)), init("ends", np.array([2], np.int64)),
              init("axes", np.array([2], np.int64))]
    return make_model([node], [tensor_input("x", ["batch", 3, -7])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], consts, opset=21)


def test_fix_converting_the_opset_of_a_model_with_a_negative_dim_does_not_abort(tmp_path):
    """onnx's version converter infers shapes on the model itself, and its Slice inference aborted
    the process on the stored dim of -7 (opset 21 is beyond Ascend310B1's registrations, so
    convert-opset runs)."""
    path = tmp_path / "m.onnx"
    onnx.save(negative_dim_slice_model(), str(path))
    stored = path.read_bytes()
    done = run_alone(["fix", str(path), "--soc", "Ascend310B1", "-o", str(tmp_path / "out.onnx")], 300)
    assert "convert-opset" in done.stdout and path.read_bytes() == stored


def test_the_converter_sees_impossible_dims_as_unknown_and_the_model_keeps_them():
    from atccheck.model.shapes import impossible_dims_hidden

    model = negative_dim_slice_model()
    dims = model.graph.input[0].type.tensor_type.shape.dim
    with impossible_dims_hidden(model):
        assert [d.WhichOneof("value") for d in dims] == ["dim_param", "dim_value", None]
    assert [d.dim_value for d in dims] == [0, 3, -7] and dims[0].dim_param == "batch"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_path_with_a_newline_is_one_error_line(tmp_path, command):
    code, lines = run(command, tmp_path / "two\nlines.onnx")
    assert code == 2 and len(lines) == 1 and "two\\nlines.onnx" in lines[0]
