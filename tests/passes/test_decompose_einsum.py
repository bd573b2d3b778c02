from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from onnx import helper

from atccheck.api import check
from atccheck.passes.decompose_einsum import DecomposeEinsum
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, run


def einsum_model(equation, shapes, out_shape, weight=None, opset=13):
    names = [f"x{i}" for i in range(len(shapes))]
    inits = []
    if weight is not None:  # the last operand as a constant, as in exported models
        names[-1] = "w"
        inits = [init("w", np.random.default_rng(1).standard_normal(weight).astype(np.float32))]
    inputs = [tensor_input(n, s) for n, s in zip(names, shapes) if n != "w"]
    node = helper.make_node("Einsum", names, ["y"], name="einsum", equation=equation)
    return make_model([node], inputs, [helper.make_tensor_value_info("y", 1, out_shape)], inits, opset=opset)


CASES = [
    ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5]),  # batch matmul
    ("bhqd,bhkd->bhqk", [[2, 3, 4, 8], [2, 3, 6, 8]], [2, 3, 4, 6]),  # attention scores, two batch dims
    ("ij,jk", [[3, 4], [4, 5]], [3, 5]),  # implicit output
    ("abc,bcd->ad", [[2, 3, 4], [3, 4, 5]], [2, 5]),  # two contracted labels: reshape
    ("ijk,jl->il", [[2, 3, 4], [3, 5]], [2, 5]),  # k summed on one side only
    ("i,j->ij", [[3], [4]], [3, 4]),  # outer product
    ("i,i->", [[5], [5]], []),  # dot product
    ("ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]], [2, 5]),  # three operands
    ("...ij,...jk->...ik", [[2, 3, 4, 5], [2, 3, 5, 6]], [2, 3, 4, 6]),  # ellipsis
    ("bnd,dh->bnh", [[2, 7, 8], [8, 4]], [2, 7, 4]),
    ("ijk->kji", [[2, 3, 4]], [4, 3, 2]),  # single-operand transpose
    ("ijk->j", [[2, 3, 4]], [3]),  # single-operand sum
    ("ba,ab->b", [[3, 4], [4, 3]], [3]),  # batch label in a different position per operand
    ("...ij,...jk->...ik", [[1, 3, 4], [2, 4, 5]], [2, 3, 5]),  # ellipsis axis broadcast
    ("...ij,...jk", [[2, 1, 3, 4], [1, 5, 4, 6]], [2, 5, 3, 6]),  # both sides broadcast, implicit output
    ("...ij,jk->...ik", [[2, 3, 3, 4], [4, 5]], [2, 3, 3, 5]),  # ellipsis on one side only
    ("b...ij,b...jk->b...ik", [[2, 1, 3, 4], [2, 3, 4, 5]], [2, 3, 3, 5]),
    ("bii->bi", [[2, 4, 4]], [2, 4]),  # diagonal
    ("ii", [[5, 5]], []),  # trace
    ("iji->j", [[3, 2, 3]], [2]),  # a trace around another axis
    ("bii,bj->bij", [[2, 3, 3], [2, 4]], [2, 3, 4]),
    ("iijj->ij", [[2, 2, 3, 3]], [2, 3]),  # two diagonals in one operand
    ("...ij,...kj->...ik", [[1, 3, 4], [2, 5, 4]], [2, 3, 5]),
]


@pytest.mark.parametrize("equation,shapes,out", CASES, ids=[c[0] for c in CASES])
def test_equations_become_matmul_arithmetic(equation, shapes, out):
    new = assert_rewrite(DecomposeEinsum, einsum_model(equation, shapes, out), pass_context("Ascend310", "5.0"))
    assert "Einsum" not in op_types(new)
    assert set(op_types(new)) <= {"MatMul", "Transpose", "Reshape", "ReduceSum", "Identity", "Gather"}


def test_no_reshape_when_each_group_has_one_label():
    new = assert_rewrite(DecomposeEinsum, einsum_model("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5]),
                         pass_context("Ascend310", "5.0"))
    assert op_types(new) == ["MatMul"]


def test_constant_operand_with_dynamic_batch():
    model = einsum_model("bsd,dh->bsh", [["b", "s", 8], [8, 6]], ["b", "s", 6], weight=[8, 6])
    new = assert_rewrite(DecomposeEinsum, model, pass_context("Ascend310", "5.0"), shapes={"x0": (3, 5, 8)})
    assert op_types(new) == ["MatMul"]


def test_rejected_equation_on_8_0_is_rewritten_and_the_rule_cleared():
    model = einsum_model("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5])
    new = assert_rewrite(DecomposeEinsum, model, pass_context("Ascend310P3", "8.0"))
    assert "Einsum" not in op_types(new)
    assert not [f for f in check(new, "Ascend310P3", "8.0").findings if f.location.op_type == "Einsum"]


def test_listed_equation_is_left_on_8_0_and_rewritten_on_5_0():
    model = einsum_model("ab,cb->ac", [[3, 4], [5, 4]], [3, 5])
    assert not apply(DecomposeEinsum, model, pass_context("Ascend310P3", "8.0")).modified
    new = assert_rewrite(DecomposeEinsum, model, pass_context("Ascend310", "5.0"))
    assert [f for f in check(new, "Ascend310", "5.0").findings if f.name == "unsupported-op"] == []
    # The 5.0.4 list does not mention Einsum, though the 2022 source registers it: a warning, not an error.
    assert [(f.location.op_type, f.severity.value) for f in check(model, "Ascend310", "5.0").findings
            if f.name in ("unsupported-op", "opset-not-registered")] == [("Einsum", "warning")]
    assert [f for f in check(new, "Ascend310", "5.0").findings if f.name == "opset-not-registered"] == []


@pytest.mark.parametrize("equation,shapes,why", [
    ("ii->i", [["n", "n"]], "diagonal"),
    ("abc,bcd->ad", [["n", 3, "k"], [3, "k", 5]], "sizes"),
    ("...ij,...jk->...ik", [[3, 3, 4], [2, 4, 5]], "broadcast"),
])
def test_what_it_cannot_do_is_left_with_a_note(equation, shapes, why):
    model = einsum_model(equation, shapes, None)
    result = apply(DecomposeEinsum, model, pass_context("Ascend310", "5.0"))
    assert not result.modified and op_types(result.model) == ["Einsum"]
    assert why in result.notes[0]


@st.composite
def equations(draw):
    pool = "abcdef"
    a = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    b = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    union = sorted(set(a) | set(b))
    out = draw(st.permutations(union).flatmap(lambda p: st.integers(0, len(p)).map(lambda n: list(p[:n]))))
    sizes = {label: draw(st.integers(1, 4)) for label in union}
    return f"{''.join(a)},{''.join(b)}->{''.join(out)}", [[sizes[x] for x in a], [sizes[x] for x in b]], [sizes[x] for x in out]


@settings(max_examples=40, deadline=None)
@given(equations())
def test_any_two_operand_equation_matches_numpy(case):
    equation, shapes, out = case
    new = apply(DecomposeEinsum, einsum_model(equation, shapes, out), pass_context("Ascend310", "5.0"))
    assert new.modified and "Einsum" not in op_types(new.model)
    rng = np.random.default_rng(0)
    feeds = {f"x{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(shapes)}
    got = run(new.model, feeds)["y"]
    assert np.allclose(got, np.einsum(equation, feeds["x0"], feeds["x1"]), atol=1e-4)
