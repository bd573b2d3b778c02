from __future__ import annotations

from atccheck.passes.fold_resize_scales import FoldResizeScales
from builders import resize_with_computed_sizes
from fix_harness import assert_valid, max_error, named, run_pass


def test_sizes_from_a_static_shape_become_a_constant_and_the_finding_goes():
    model = resize_with_computed_sizes([1, 3, 8, 8])
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
    model = resize_with_computed_sizes(["n", 3, 8, 8])
    result = run_pass(FoldResizeScales, model)
    assert not result.modified
    assert any("not static" in n for n in result.notes)
