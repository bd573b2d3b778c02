from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from onnx import TensorProto, helper

from atccheck.passes.unstride_last_axis_slice import UnstrideLastAxisSlice
from builders import init, make_model, tensor_input
from fix_harness import assert_exact_repair, max_error, run_pass

END = 2**63 - 1


def sliced(starts, ends, axes, steps, shape, opset=13):
    inits = [init("starts", np.array(starts, np.int64)), init("ends", np.array(ends, np.int64)),
             init("axes", np.array(axes, np.int64)), init("steps", np.array(steps, np.int64))]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="cut")
    # the output shape numpy gives the same slice (a symbolic dim stays symbolic)
    index = [slice(None)] * len(shape)
    for b, e, a, k in zip(starts, ends, axes, steps):
        index[a] = slice(b, None if e == END else e, k)
    sizes = np.zeros([d if isinstance(d, int) else 2 for d in shape])[tuple(index)].shape
    out_shape = [n if isinstance(d, int) else d for d, n in zip(shape, sizes)]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)
    return make_model([node], [tensor_input("x", list(shape))], [out], inits, opset=opset)


@pytest.mark.parametrize("starts, ends, axes, steps, shape", [
    ([0, 0], [END, END], [2, 3], [2, 2], (1, 3, 8, 8)),  # YOLOv5 Focus
    ([1, 1], [END, END], [2, 3], [2, 2], (1, 3, 8, 8)),
    ([1], [END], [-1], [2], (2, 3, 7)),  # odd width: the cut is padded, the padding never taken
    ([-5], [-1], [1], [3], (4, 11)),  # bounds from the end
    ([2], [9], [1], [4], (4, 10)),
], ids=["focus-even", "focus-odd-start", "odd-width", "negative-bounds", "inner-range"])
def test_the_same_elements_without_a_stride_on_the_last_axis(starts, ends, axes, steps, shape):
    assert_exact_repair(UnstrideLastAxisSlice, sliced(starts, ends, axes, steps, shape), "slice-step-on-last-axis")


def test_a_dynamic_batch_is_copied_by_reshape():
    model = sliced([0, 0], [END, END], [2, 3], [2, 2], ("batch", 3, 8, 8))
    result = run_pass(UnstrideLastAxisSlice, model)
    assert result.modified
    assert max_error(model, result.model, shapes={"x": [2, 3, 8, 8]}).max_abs == 0.0


@pytest.mark.parametrize("steps, shape, why", [
    ([-1], (2, 8), "reversal"),
])
def test_what_has_no_exact_step_one_form_is_left_with_a_note(steps, shape, why):
    model = sliced([END if steps[0] < 0 else 0], [-END - 1 if steps[0] < 0 else END], [1], steps, shape)
    result = run_pass(UnstrideLastAxisSlice, model)
    assert not result.modified
    assert any(why in note for note in result.notes)


@settings(max_examples=40, deadline=None)
@given(width=st.integers(1, 12), start=st.integers(-15, 15), end=st.integers(-15, 15), step=st.integers(2, 5))
@example(width=3, start=-15, end=15, step=2)  # a start before the first element
@example(width=7, start=1, end=-1, step=3)
@example(width=1, start=0, end=15, step=5)
def test_any_bounds_and_step_give_the_same_elements(width, start, end, step):
    # ONNX bounds as exporters write them, out of range included: the repair must agree with onnxruntime
    count = len(range(*slice(start, end, step).indices(width)))
    if count == 0:  # nothing taken: the repair leaves such a Slice alone
        return
    assert_exact_repair(UnstrideLastAxisSlice, sliced([start], [end], [1], [step], (3, width)), "slice-step-on-last-axis")


@pytest.mark.parametrize("start, end", [(0, END), (1, END), (1, 6)])
def test_a_last_axis_of_unknown_size_is_gathered_by_a_range_of_columns(start, end):
    """Boxes after a data-dependent NMS: [N, W] with W unknown to shape inference."""
    from atccheck.api import check

    model = sliced([start], [end], [1], [2], ("n", "width"))
    result = run_pass(UnstrideLastAxisSlice, model)
    assert result.modified
    assert {"Range", "Gather"} <= {n.op_type for n in result.model.graph.node}
    assert not [f for f in check(result.model, "Ascend310P3").findings if f.name == "slice-step-on-last-axis"]
    for width in (7, 8, 1):
        assert max_error(model, result.model, shapes={"x": [3, width]}).max_abs == 0.0


def test_other_axes_keep_their_steps_when_the_last_axis_is_gathered():
    model = sliced([1, 0], [END, END], [0, 1], [2, 3], ("n", "width"))
    result = run_pass(UnstrideLastAxisSlice, model)
    assert result.modified
    assert max_error(model, result.model, shapes={"x": [5, 10]}).max_abs == 0.0


def test_bounds_computed_from_static_shapes_are_evaluated():
    """x[..., :W:2] with the end taken from Shape(x) at run time, as some exports write it."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Slice", ["shape", "m1", "big", "zero"], ["end"], name="last_dim"),
             helper.make_node("Slice", ["x", "zero", "end", "m1", "two"], ["y"], name="cut")]
    inits = [init("m1", np.array([-1], np.int64)), init("big", np.array([END], np.int64)),
             init("zero", np.array([0], np.int64)), init("two", np.array([2], np.int64))]
    model = make_model(nodes, [tensor_input("x", [2, 3, 8])], [tensor_input("y", [2, 3, 4])], inits, opset=13)
    assert_exact_repair(UnstrideLastAxisSlice, model, "slice-step-on-last-axis")
