from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.api import check
from atccheck.errors import UsageError
from atccheck.model.shape_fit import reshape_misfit
from builders import init, make_model, single_op_model, tensor_input

NAME = "shape-mismatch"


def found(model, cann="8.0", **options):
    return [f for f in check(model, soc="Ascend310P3", cann=cann, **options).findings if f.name == NAME]


def reshape_to(target, shape=("N", 16), allowzero=None):
    attrs = {} if allowzero is None else {"allowzero": allowzero}
    return single_op_model("Reshape", [shape], None, opset=14,
                           initializers=[init("target", np.array(target, np.int64))], **attrs)


def with_constant(op_type, constant_shape, **attrs):
    return single_op_model(op_type, [("N", 16)], None, initializers=[init("c", np.zeros(constant_shape, np.float32))],
                           **attrs)


def test_a_hard_coded_reshape_target_that_fits_gear_4_only_breaks_gears_1_and_2():
    model = reshape_to([1, 64])
    hits = found(model, input_shapes="x0:-1,16", dynamic_batch="1,2,4")
    assert sorted(g for f in hits for g in f.data["gears"]) == ["1", "2"]
    assert all(f.location.node == "reshape_node" and f.severity.value == "error" and f.code == "AC205" for f in hits)
    gear_2 = next(f for f in hits if f.data["gears"] == ["2"])
    assert "[1,64] holds 64 elements" in gear_2.message and "[2,16] has 32" in gear_2.message
    assert "--dynamic_batch_size gear 2" in gear_2.message and gear_2.data["gear_option"] == "--dynamic_batch_size"


@pytest.mark.parametrize(("cann", "code"), [("6.0", "E19999"), ("5.0", "E19999"), ("8.0", None), ("9.0", None)])
def test_the_atc_code_comes_from_the_2022_op_proto_and_is_unknown_after(cann, code):
    [f] = found(reshape_to([1, 64]), cann, input_shapes="x0:-1,16", dynamic_batch="2,4")
    assert f.atc_error == code and f.data["gears"] == ["2"]
    assert ("array_ops.cc" in f.source) == (code is not None)
    assert ("not known" in f.message) == (code is None)


def test_a_reshape_that_fits_every_gear_is_clean():
    assert found(reshape_to([-1, 4, 4]), input_shapes="x0:-1,16", dynamic_batch="1,2,4,8") == []
    assert found(reshape_to([0, -1]), input_shapes="x0:-1,16", dynamic_batch="1,3") == []


def test_a_minus_one_that_cannot_divide_breaks():
    [f] = found(reshape_to([-1, 5]), input_shapes="x0:-1,16", dynamic_batch="1,5")
    assert f.data["gears"] == ["1"] and f.location.node == "reshape_node"
    assert reshape_misfit((1, 16), (-1, 5)) is not None and "no multiple of 5" in reshape_misfit((1, 16), (-1, 5))


def test_a_broadcast_that_no_longer_lines_up_names_the_gear_and_the_node():
    [f] = found(with_constant("Add", (2, 16)), "6.0", input_shapes="x0:-1,16", dynamic_batch="1,2,4")
    assert f.data["gears"] == ["4"] and f.location.node == "add_node"
    assert f.atc_error == "E89999" and "util.cc" in f.source


def test_a_concat_that_no_longer_lines_up_names_the_gear_and_the_node():
    hits = found(with_constant("Concat", (1, 16), axis=1), input_shapes="x0:-1,16", dynamic_batch="1,2,4")
    assert sorted(g for f in hits for g in f.data["gears"]) == ["2", "4"]
    assert all(f.location.node == "concat_node" and f.atc_error is None for f in hits)


def test_the_broken_gear_is_not_also_called_a_data_dependent_shape():
    report = check(with_constant("Add", (2, 16)), "Ascend310P3", input_shapes="x0:-1,16", dynamic_batch="1,2,4")
    assert [f.name for f in report.findings] == [NAME]


def test_a_static_model_whose_own_shapes_break_a_reshape_is_reported():
    [f] = found(reshape_to([1, 64], shape=(2, 16)))
    assert f.location.node == "reshape_node" and "gears" not in f.data


def test_given_static_shapes_that_break_a_reshape_are_a_usage_error_naming_the_node():
    with pytest.raises(UsageError, match="x0:2,16 contradicts the graph at node 'reshape_node' \\(Reshape\\): the target"):
        check(reshape_to([1, 64]), "Ascend310P3", input_shapes="x0:2,16")


def test_static_models_and_dynamic_targets_are_left_alone():
    assert found(reshape_to([1, 64], shape=(4, 16))) == []
    shape = helper.make_node("Shape", ["x0"], ["s"], name="shape")
    reshape = helper.make_node("Reshape", ["x0", "s"], ["y"], name="reshape")
    model = make_model([shape, reshape], [tensor_input("x0", ["N", 16])], [helper.make_tensor_value_info("y", 1, None)])
    assert found(model, input_shapes="x0:-1,16", dynamic_batch="1,2,4") == []


@pytest.mark.parametrize(("shape", "target", "allowzero", "fits"), [
    ((2, 16), (32,), False, True),
    ((2, 16), (0, 16), False, True),
    ((2, 16), (0, 16), True, False),  # allowzero: 0 is a size, not a copy
    ((2, 16), (-1, 3), False, False),
    ((2, 16), (-1, -1), False, True),  # invalid ONNX on its own: not the shapes' fault
    ((0, 16), (-1, 0), False, True),
    ((3, 4), (4, 3), False, True),
    ((3, 4), (4, 4), False, False),
])
def test_reshape_misfit_follows_onnx_semantics(shape, target, allowzero, fits):
    assert (reshape_misfit(shape, target, allowzero) is None) == fits
