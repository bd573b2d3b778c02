from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_stft import DecomposeStft
from atccheck.passes.decompose_window_functions import DecomposeWindowFunctions
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context

PASS = DecomposeWindowFunctions


def window_model(op, size, periodic=1, dtype=TensorProto.FLOAT):
    node = helper.make_node(op, ["n"], ["y"], name="win", periodic=periodic, output_datatype=dtype)
    return make_model([node], [], [tensor_input("y", [size], dtype)], [init("n", np.array(size, np.int64))], opset=17)


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("size", [1, 10, 400])
def test_window_becomes_a_constant(op, periodic, size):
    new = assert_rewrite(PASS, window_model(op, size, periodic), pass_context(), seeds=(0,))
    assert op_types(new) == ["Identity"]


def test_double_output():
    assert_rewrite(PASS, window_model("HannWindow", 16, dtype=TensorProto.DOUBLE), pass_context(), seeds=(0,))


def test_then_stft_can_build_its_basis():
    nodes = [helper.make_node("HannWindow", ["n"], ["w"], name="hann"),
             helper.make_node("STFT", ["x", "step", "w", "n"], ["y"], name="stft", onesided=1)]
    model = make_model(nodes, [tensor_input("x", [1, 800, 1])], [tensor_input("y", [1, 3, 201, 2])],
                       [init("n", np.array(400, np.int64)), init("step", np.array(160, np.int64))], opset=17)
    assert not apply(DecomposeStft, model, pass_context()).modified
    windowed = assert_rewrite(PASS, model, pass_context())
    assert op_types(windowed) == ["STFT"]
    assert_rewrite(DecomposeStft, windowed, pass_context())
