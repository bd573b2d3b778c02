from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.errors import UsageError
from atccheck.fixing.inputs import make_inputs
from atccheck.fixing.proof import same_computation
from atccheck.passes.make_inputs_static import MakeInputsStatic, plan_static_shapes
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def conv_model(batch="batch", h=8, w=8):
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    weights = init("w", np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32))
    return make_model(nodes, [tensor_input("x", [batch, 3, h, w])], [tensor_input("y", [batch, 4, h, w])], [weights])


def dims(model, name):
    for vi in list(model.graph.input) + list(model.graph.output):
        if vi.name == name:
            return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]
    raise KeyError(name)


def test_dynamic_batch_becomes_one_and_the_finding_goes():
    model = conv_model()
    assert named(model, "dynamic-input-shape")
    result = run_pass(MakeInputsStatic, model)
    assert result.modified
    assert dims(result.model, "x") == [1, 3, 8, 8]
    assert dims(result.model, "y") == [1, 4, 8, 8]  # the shared symbol is fixed in the output too
    assert named(result.model, "dynamic-input-shape") == []
    assert_valid(result.model)
    assert max_error(model, result.model, {"x": (1, 3, 8, 8)}).max_abs == 0.0
    assert not run_pass(MakeInputsStatic, result.model).modified  # idempotent


def test_the_change_is_proved_without_running():
    model = conv_model()
    fixed = run_pass(MakeInputsStatic, model).model
    feeds = make_inputs(model, plan_static_shapes(model).dims).sets
    assert same_computation(model, fixed, feeds)
    assert not same_computation(model, fixed, [{"x": np.zeros((2, 3, 8, 8), np.float32)}])


def test_user_shapes_win_and_minus_one_keeps_a_dim_dynamic():
    model = conv_model(h="H", w="W")
    result = run_pass(MakeInputsStatic, model, input_shapes={"x": (2, 3, 16, -1)})
    assert dims(result.model, "x") == [2, 3, 16, "W"]
    assert any("kept dynamic" in n for n in result.notes)
    assert_valid(result.model)


def test_other_symbolic_dims_are_left_and_said_so():
    model = conv_model(h="H", w="W")
    result = run_pass(MakeInputsStatic, model)
    assert dims(result.model, "x") == [1, 3, "H", "W"]
    assert sum("left dynamic" in n for n in result.notes) == 2
    plan = plan_static_shapes(model)
    assert [(r.input, r.axis) for r in plan.left] == [("x", 2), ("x", 3)]
    assert any("gears" in w for w in plan.warnings())
    assert len(named(result.model, "dynamic-input-shape")) == 1  # the finding stays: H and W are unknown


def test_a_symbol_shared_by_two_inputs_gets_one_size():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    model = make_model(nodes, [tensor_input("a", ["n", 4]), tensor_input("b", ["n", 4])], [tensor_input("y", ["n", 4])])
    result = run_pass(MakeInputsStatic, model, input_shapes={"a": (3, 4)})
    assert dims(result.model, "a") == [3, 4] and dims(result.model, "b") == [3, 4]
    assert_valid(result.model)


def test_a_placeholder_reused_for_unrelated_dims_is_not_one_size():
    # Paddle writes '?' for every unknown dim: batch 1 must not make H and W 1 too.
    model = conv_model(batch="?", h="?", w="?")
    result = run_pass(MakeInputsStatic, model)
    assert dims(result.model, "x") == [1, 3, "?", "?"]
    fixed = run_pass(MakeInputsStatic, model, input_shapes={"x": (1, 3, 48, 192)}).model
    assert dims(fixed, "x") == [1, 3, 48, 192]


def test_negative_dims_in_outputs_no_longer_contradict_inference():
    model = conv_model()
    for dim in model.graph.output[0].type.tensor_type.shape.dim[:1]:
        dim.dim_value = -1
    result = run_pass(MakeInputsStatic, model)
    assert result.model.graph.output[0].type.tensor_type.shape.dim[0].dim_value in (0, 1)
    assert_valid(result.model)


def test_a_size_that_contradicts_a_static_dim_is_a_usage_error():
    with pytest.raises(UsageError, match="fixes it at 3"):
        plan_static_shapes(conv_model(), {"x": (1, 4, 8, 8)})
    with pytest.raises(UsageError, match="E10049"):
        plan_static_shapes(conv_model(), {"x": (1, 3, 8)})
    with pytest.raises(UsageError, match="E10016"):
        plan_static_shapes(conv_model(), {"nope": (1,)})


def test_a_static_model_is_left_alone():
    model = conv_model(batch=1)
    result = run_pass(MakeInputsStatic, model)
    assert not result.modified
