"""AC543 gear-shape-mismatch: each gear of a linted command is propagated through the model's graph."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.atc.lint import lint_command
from builders import init, make_model, tensor_input

NAME = "gear-shape-mismatch"


def reshape_model(target=(1, 64)) -> onnx.ModelProto:
    node = helper.make_node("Reshape", ["x", "target"], ["y"], name="flatten_fixed")
    return make_model([node], [tensor_input("x", ["N", 16])], [helper.make_tensor_value_info("y", 1, None)],
                      [init("target", np.array(target, np.int64))])


def concat_model() -> onnx.ModelProto:
    node = helper.make_node("Concat", ["x", "pad"], ["y"], name="join", axis=1)
    return make_model([node], [tensor_input("x", ["N", 16])], [helper.make_tensor_value_info("y", 1, None)],
                      [init("pad", np.zeros((1, 16), np.float32))])


def findings(model, gears: str, option="--dynamic_batch_size", shape="x:-1,16", cann="8.0"):
    text = (f'atc --model=m.onnx --framework=5 --output=net --soc_version=Ascend310P3 --input_shape="{shape}" '
            f'{option}="{gears}"')
    return [f for f in lint_command(text, model, model_path="m.onnx", cann=cann).findings if f.name == NAME]


def test_every_gear_that_breaks_a_hard_coded_reshape_is_named_with_the_node():
    found = findings(reshape_model(), "1,2,4")
    assert [f.data["gear"] for f in found] == ["1", "2"]
    assert all(f.code == "AC543" and f.severity.value == "error" and f.data["node"] == "flatten_fixed" for f in found)
    assert "gear 2: Reshape 'flatten_fixed'" in found[1].message and "x:2,16" in found[1].message


@pytest.mark.parametrize(("cann", "code"), [("6.0", "E19999"), ("8.0", None)])
def test_the_code_is_the_2022_op_proto_fact_or_none(cann, code):
    (f,) = findings(reshape_model(), "2,4", cann=cann)
    assert f.atc_error == code


def test_a_concat_that_no_longer_lines_up():
    found = findings(concat_model(), "1,2,4")
    assert [f.data["gear"] for f in found] == ["2", "4"] and found[0].data["op_type"] == "Concat"


def test_dynamic_dims_gears_follow_the_written_order():
    found = findings(reshape_model(), "4;2", option="--dynamic_dims")
    assert [f.data["gear"] for f in found] == ["2"]


def test_gears_that_fit_and_gear_rule_breaches_say_nothing_here():
    assert findings(reshape_model((-1, 4, 4)), "1,2,4,8") == []
    assert findings(reshape_model(), "1,2", shape="x:1,16") == []  # no -1: gear-rule's business (E10031)


def test_without_a_model_there_is_nothing_to_propagate():
    text = 'atc --model=m.onnx --framework=5 --output=n --soc_version=Ascend310P3 --input_shape="x:-1,16" ' \
           '--dynamic_batch_size="1,2"'
    assert [f for f in lint_command(text, None, model_path="m.onnx").findings if f.name == NAME] == []
