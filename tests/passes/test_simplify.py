from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.passes.simplify import Simplify
from builders import init, make_model, resize_with_computed_sizes, tensor_input
from fix_harness import assert_valid, max_error, named, run_pass


def test_computed_resize_sizes_become_a_constant_and_the_finding_goes():
    model = resize_with_computed_sizes()
    assert [f.location.node for f in named(model, "non-constant-input")] == ["resize"]
    result = run_pass(Simplify, model)
    assert result.modified
    assert [n.op_type for n in result.model.graph.node] == ["Resize"]
    assert any("removed" in n and "Shape x1" in n for n in result.notes)
    assert named(result.model, "non-constant-input") == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(Simplify, result.model).modified  # idempotent


def test_onnxsim_bookkeeping_is_not_kept_and_metadata_is():
    model = resize_with_computed_sizes()
    helper.set_model_props(model, {"author": "me"})
    result = run_pass(Simplify, model)
    assert {p.key: p.value for p in result.model.metadata_props} == {"author": "me"}


def test_an_output_without_shape_is_given_the_inferred_one():
    model = resize_with_computed_sizes(shaped_output=False)
    result = run_pass(Simplify, model)
    out = result.model.graph.output[0].type.tensor_type
    assert [d.dim_value for d in out.shape.dim] == [1, 3, 16, 16]
    assert_valid(result.model)


def test_batch_norm_folding_stays_within_tolerance():
    rng = np.random.default_rng(1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y"], name="bn")]
    inits = [init("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32))]
    inits += [init(n, (rng.random(8) + 0.5).astype(np.float32)) for n in ("s", "b", "m", "v")]
    model = make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 8, 8, 8])], inits)
    result = run_pass(Simplify, model)
    assert [n.op_type for n in result.model.graph.node] == ["Conv"]
    assert max_error(model, result.model, atol=Simplify.tolerance, rtol=Simplify.rtol).ok


def test_the_file_route_for_models_beyond_two_gigabytes_gives_the_same_result():
    model = resize_with_computed_sizes()
    result = run_pass(Simplify, model, options={"simplify_file_route_bytes": 0})
    assert [n.op_type for n in result.model.graph.node] == ["Resize"]
    assert all(t.data_location != onnx.TensorProto.EXTERNAL for t in result.model.graph.initializer)
    assert max_error(model, result.model).max_abs == 0.0


@pytest.mark.parametrize("route", ["serialized", "through files", "outputs without shape"])
def test_the_model_handed_in_is_left_as_it_was(route):
    # the pipeline hands simplify the current model itself, not a copy (copy_input = False)
    model = resize_with_computed_sizes(shaped_output=route != "outputs without shape")
    helper.set_model_props(model, {"author": "me"})
    before = model.SerializeToString(deterministic=True)
    options = {"simplify_file_route_bytes": 0} if route == "through files" else {}
    result = run_pass(Simplify, model, options=options)
    assert result.modified and result.model is not model
    assert model.SerializeToString(deterministic=True) == before


def test_nothing_to_fold_is_unchanged():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])
    assert not run_pass(Simplify, model).modified
