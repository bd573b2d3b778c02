from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.pad_zero_then_fill import PadZeroThenFill
from builders import init, make_model, tensor_input
from fix_harness import assert_exact_repair, run_pass


def pad(value, pads, out_shape, opset=13, axes=None, shape=(1, 2, 4, 4)):
    inits = [init("pads", np.array(pads, np.int64)), init("v", np.array(value, np.float32))]
    names = ["x", "pads", "v"]
    if axes is not None:
        inits.append(init("axes", np.array(axes, np.int64)))
        names.append("axes")
    node = helper.make_node("Pad", names, ["y"], name="pad", mode="constant")
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)
    return make_model([node], [tensor_input("x", list(shape))], [out], inits, opset=opset)


@pytest.mark.parametrize("value, pads, out_shape, opset, axes", [
    (-np.inf, [0, 0, 1, 1, 0, 0, 1, 1], [1, 2, 6, 6], 13, None),
    (1.0, [0, 0, 2, 0, 0, 0, 0, 3], [1, 2, 6, 7], 13, None),
    (0.5, [0, 1, -1, 0, 0, 0, -1, 2], [1, 3, 2, 6], 13, None),  # negative pads crop
    (-1.0, [1, 2, 1, 2], [1, 2, 6, 8], 18, [2, 3]),  # the axes input
], ids=["minus-inf", "one-sided", "crop", "axes"])
def test_the_same_tensor_from_a_zero_pad_and_a_where(value, pads, out_shape, opset, axes):
    assert_exact_repair(PadZeroThenFill, pad(value, pads, out_shape, opset, axes), "pad-value-not-zero")


def test_attribute_pads_before_opset_11_are_left_with_a_note():
    node = helper.make_node("Pad", ["x"], ["y"], name="pad", mode="constant", pads=[0, 0, 1, 1, 0, 0, 1, 1], value=1.0)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])
    model = make_model([node], [tensor_input("x", [1, 2, 4, 4])], [out], [], opset=10)
    result = run_pass(PadZeroThenFill, model)
    assert not result.modified and any("opset 10" in n for n in result.notes)


def test_a_pad_of_text_is_left_with_a_note():
    """A STRING tensor padded with a number (the fuzzer changed an input's type): the zero the
    rewrite needs cannot be text, so the node is left, said in one line, and nothing raises."""
    model = pad(1.0, [0, 0, 1, 1, 0, 0, 1, 1], [1, 2, 6, 6])
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.STRING
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    result = run_pass(PadZeroThenFill, model)
    assert not result.modified
    assert [n for n in result.notes if "text (STRING)" in n and "\n" not in n]
