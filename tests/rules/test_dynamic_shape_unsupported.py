from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from builders import heads_model, init, make_model, tensor_input

INT64 = TensorProto.INT64


def unknown(name, elem_type=TensorProto.FLOAT):
    """A graph output declared without a shape."""
    return helper.make_tensor_value_info(name, elem_type, None)


def findings(report, name="dynamic-shape-unsupported"):
    return [f for f in report.findings if f.name == name]


def nonzero_model(shape=(1, 100)):
    """NonZero on a static input, then a downstream Transpose (which must not be reported)."""
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"], name="nonzero"),
        helper.make_node("Transpose", ["nz"], ["y"], name="after", perm=[1, 0]),
    ]
    return make_model(nodes, [tensor_input("x", list(shape))], [tensor_input("y", [None, 2], INT64)])


@pytest.mark.parametrize(
    ("soc", "severity", "atc_error"),
    [("Ascend310", "error", "EZ3002"), ("Ascend310B1", "error", "EZ3002"), ("Ascend310P3", "warning", None),
     ("Ascend910B3", "warning", None)],
)
def test_data_dependent_origin_severity_follows_the_chip(soc, severity, atc_error):
    found = findings(check(nonzero_model(), soc=soc))
    assert [f.location.node for f in found] == ["nonzero"]  # the origin only, not the Transpose after it
    assert found[0].severity.value == severity
    assert found[0].atc_error == atc_error
    assert found[0].fix.pass_name == "manual"
    assert found[0].data["foldable"] is False


def test_reshape_fed_with_run_time_values():
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    model = make_model(nodes, [tensor_input("x", [2, 6]), tensor_input("shape", [2], INT64)], [unknown("y")])
    found = findings(check(model, soc="Ascend310"))
    assert [f.location.node for f in found] == ["reshape"]
    assert found[0].data["value_inputs"] == ["shape"]
    assert "gear options cannot" in found[0].message


def test_topk_with_constant_k_is_static():
    k = init("k", np.array([3], np.int64))
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")]
    model = make_model(nodes, [tensor_input("x", [1, 10])], [tensor_input("v", [1, 3]), tensor_input("i", [1, 3], INT64)], [k])
    assert findings(check(model, soc="Ascend310")) == []


def test_topk_with_run_time_k_is_an_origin():
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")]
    model = make_model(
        nodes, [tensor_input("x", [1, 10]), tensor_input("k", [1], INT64)],
        [unknown("v"), unknown("i", INT64)],
    )
    assert [f.location.node for f in findings(check(model, soc="Ascend310"))] == ["topk"]


def test_dims_dynamic_only_because_inputs_were_not_given_are_not_reported():
    # Reshape whose shape comes from Shape(x): constant once x is static; Range from Size(x) alike.
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Reshape", ["y", "s"], ["r"], name="reshape"),
        helper.make_node("Size", ["x"], ["n"], name="size"),
        helper.make_node("Range", ["zero", "n", "one"], ["range"], name="range"),
    ]
    inits = [init("zero", np.array(0, np.int64)), init("one", np.array(1, np.int64))]
    model = make_model(
        nodes, [tensor_input("x", ["a", "b"]), tensor_input("y", [6])],
        [unknown("r"), unknown("range", INT64)], inits,
    )
    report = check(model, soc="Ascend310")
    assert findings(report) == []
    assert len(findings(report, "dynamic-input-shape")) == 1


def test_user_minus_one_gives_one_model_level_finding():
    nodes = [helper.make_node("Relu", ["x"], ["h"], name="relu"), helper.make_node("Relu", ["h"], ["y"], name="relu2")]
    model = make_model(nodes, [tensor_input("x", ["n", 3, 8, 8])], [tensor_input("y", ["n", 3, 8, 8])])
    found = findings(check(model, soc="Ascend310", input_shapes="x:-1,3,8,8"))
    assert len(found) == 1
    assert found[0].location.node is None
    assert found[0].data["inputs"] == {"x": [0]}
    assert found[0].data["input_shape"] == "x:-1,3,8,8"
    assert found[0].severity.value == "error" and found[0].atc_error == "EZ3002"
    on_910 = findings(check(model, soc="Ascend910B3", input_shapes="x:-1,3,8,8"))
    assert [f.severity.value for f in on_910] == ["warning"]
    assert findings(check(model, soc="Ascend310", input_shapes="x:2,3,8,8")) == []


def test_user_minus_one_on_two_inputs_is_listed_in_atc_syntax():
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    model = make_model(nodes, [tensor_input("a", ["n", 4]), tensor_input("b", ["n", 4])], [tensor_input("y", ["n", 4])])
    found = findings(check(model, soc="Ascend310P3", input_shapes="a:-1,4;b:-1,4"))
    assert len(found) == 1
    assert found[0].data["input_shape"] == "a:-1,4;b:-1,4"
    assert found[0].data["inputs"] == {"a": [0], "b": [0]}


def test_foldable_value_the_fold_analysis_cannot_compute_is_info_with_simplify():
    # Reshape's shape is Concat(ArgMax(Constant), Constant): computable before run time, but neither ONNX
    # inference nor atccheck's fold analysis (shape arithmetic only) evaluates ArgMax.
    c = helper.make_node("Constant", [], ["c"], name="c",
                         value=helper.make_tensor("v", TensorProto.INT64, [1, 4], [0, 0, 0, 3]))
    nodes = [
        c,
        helper.make_node("ArgMax", ["c"], ["c64"], name="argmax", axis=1, keepdims=0),
        helper.make_node("Concat", ["c64", "rest"], ["shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"),
    ]
    model = make_model(nodes, [tensor_input("x", [2, 6])], [unknown("y")],
                       [init("rest", np.array([-1], np.int64))])
    report = check(model, soc="Ascend310")
    found = findings(report)
    assert [f.location.node for f in found] == ["reshape"]
    assert found[0].severity.value == "info"
    assert found[0].fix.pass_name == "simplify" and found[0].fix.safe is True


def test_shape_computation_that_folds_at_the_given_shapes_says_nothing():
    # Shape->Gather->Div->Unsqueeze->Concat->Reshape: ONNX data propagation stops at Div; ATC's constant
    # folding (atc_options.json --oo_constant_folding, default true) computes it, and so does atccheck.
    report = check(heads_model(), soc="Ascend310", cann="6.0", input_shapes="x:1,16,64")
    assert findings(report) == []
    assert report.context.is_static("y")


def test_if_on_a_run_time_condition_in_a_real_model(shared_models):
    report = check(shared_models / "silero_vad_op18_ifless.onnx", soc="Ascend310",
                   input_shapes="input:1,512;state:2,1,128;sr:")
    errors = [f for f in findings(report) if f.severity.value == "error"]
    assert [f.location.op_type for f in errors] == ["If"]
    assert errors[0].location.graph == "main"


def test_static_model_is_clean(shared_models):
    report = check(shared_models / "mtcnn_onet.onnx", soc="Ascend310", input_shapes="input_3:1,48,48,3")
    assert findings(report) == []
