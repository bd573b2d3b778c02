from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.fold_resize_scales import FoldResizeScales
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def resize(x_shape, out_hw=(16, 16)):
    """Resize with sizes = Concat(Shape(x)[0:2], hw): computable from x's (static) shape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Slice", ["shape", "zero", "two"], ["nc"], name="slice"),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0, name="concat"),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", name="resize"),
    ]
    inits = [init("zero", np.array([0], np.int64)), init("two", np.array([2], np.int64)),
             init("hw", np.array(out_hw, np.int64))]
    out = [x_shape[0], x_shape[1], *out_hw]
    return make_model(nodes, [tensor_input("x", x_shape)], [tensor_input("y", out)], inits)


def test_sizes_from_a_static_shape_become_a_constant_and_the_finding_goes():
    model = resize([1, 3, 8, 8])
    assert named(model, "non-constant-input")
    result = run_pass(FoldResizeScales, model)
    assert result.modified
    assert [n.op_type for n in result.model.graph.node] == ["Resize"]  # the shape arithmetic is gone
    assert any("[1, 3, 16, 16]" in n for n in result.notes)
    assert named(result.model, "non-constant-input") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(FoldResizeScales, result.model).modified  # idempotent


def test_sizes_from_a_dynamic_shape_are_left_and_said_so():
    model = resize(["n", 3, 8, 8])
    result = run_pass(FoldResizeScales, model)
    assert not result.modified
    assert any("not static" in n for n in result.notes)
