from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from atccheck.passes.reverse_last_axis import ReverseLastAxis
from fix_harness import assert_exact_repair, max_error, named, run_pass
from passes.test_unstride_last_axis_slice import END, sliced

MIN = -(2**63)


@pytest.mark.parametrize("starts, ends, axes, steps, shape", [
    ([-1], [MIN], [3], [-1], (1, 3, 8, 8)),  # torch.flip(x, [-1]) (legacy exporter)
    ([-1], [-END], [-1], [-1], (2, 5)),  # the dynamo exporter's bounds
    ([6], [1], [2], [-2], (1, 4, 9)),  # every other column, backwards
    ([0, -1], [2, MIN], [1, 2], [1, -1], (1, 4, 6)),  # another axis sliced in the same node
], ids=["flip", "flip-dynamo-bounds", "step-minus-2", "with-another-axis"])
def test_a_reversed_last_axis_becomes_a_gather_of_the_same_elements(starts, ends, axes, steps, shape):
    model = sliced(starts, ends, axes, steps, shape)
    result = assert_exact_repair(ReverseLastAxis, model, "slice-step-on-last-axis")
    assert "Gather" in {n.op_type for n in result.model.graph.node}


@settings(max_examples=40, deadline=None)
@given(width=st.integers(1, 9), start=st.integers(-12, 12), end=st.integers(-12, 12), step=st.integers(-4, -1))
def test_any_bounds_and_negative_step_give_the_same_elements(width, start, end, step):
    model = sliced([start], [end], [1], [step], (2, width))
    if not named(model, "slice-step-on-last-axis"):
        return
    result = run_pass(ReverseLastAxis, model)
    assert result.modified
    compared = max_error(model, result.model)
    assert compared.ok and compared.max_abs == 0.0


def test_a_last_axis_of_unknown_size_is_left_with_a_note():
    model = sliced([-1], [MIN], [1], [-1], (2, "w"))
    result = run_pass(ReverseLastAxis, model)
    assert not result.modified
    assert any("not static" in note for note in result.notes)
