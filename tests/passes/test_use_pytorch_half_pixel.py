from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.api import check
from atccheck.passes.use_pytorch_half_pixel import UsePytorchHalfPixel
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, pass_context

PASS = UsePytorchHalfPixel


def resize_model(out, mode="linear", coordinates="half_pixel", shape=(1, 2, 3, 4, 5)):
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode=mode,
                            coordinate_transformation_mode=coordinates)
    return make_model([node], [tensor_input("x", list(shape))], [tensor_input("y", list(out))],
                      [init("sizes", np.array(out, np.int64))], opset=13)


def findings(model):
    return [f for f in check(model, soc="Ascend910B3", cann="9.0").findings if f.name == "attr-out-of-range"]


def test_half_pixel_on_a_5d_resize_is_renamed_and_the_finding_cleared():
    model = resize_model([1, 2, 6, 8, 10])
    [finding] = findings(model)
    assert finding.fix.pass_name == PASS.name
    new = assert_rewrite(PASS, model, pass_context("Ascend910B3", "9.0", findings=[finding]))
    assert findings(new) == []


def test_an_axis_resized_to_one_is_left_with_a_note():
    model = resize_model([1, 2, 1, 8, 10])
    [finding] = findings(model)
    result = apply(PASS, model, pass_context("Ascend910B3", "9.0", findings=[finding]))
    assert not result.modified and "length 1" in result.notes[0]


def test_modes_without_an_equivalent_say_manual():
    [finding] = findings(resize_model([1, 2, 6, 8, 10], coordinates="asymmetric"))
    assert finding.fix.pass_name == "manual"
