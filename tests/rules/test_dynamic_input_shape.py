from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.model.input_shape import parse_input_shapes
from builders import init, make_model, single_op_model, tensor_input


def findings(report, name="dynamic-input-shape"):
    return [f for f in report.findings if f.name == name]


def relu_model(shape, name="x"):
    node = helper.make_node("Relu", [name], ["y"], name="relu")
    return make_model([node], [tensor_input(name, shape)], [tensor_input("y", shape)])


def test_fires_once_per_input_with_axes_and_dim_params():
    model = relu_model(["batch", 3, "h", "w"])
    found = findings(check(model, soc="Ascend310"))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "error" and f.atc_error == "E10001"
    assert f.data["axes"] == [0, 2, 3]
    assert f.data["dim_params"] == ["batch", "h", "w"]
    assert f.data["suggested_input_shape"] == "x:1,3,224,224"  # example sizes: batch 1, an image of 224
    assert '--input-shape "x:1,3,224,224"' in f.hint and "example sizes" in f.hint
    assert f.fix.pass_name == "make-inputs-static" and f.fix.safe is True


def test_the_suggested_shape_makes_the_finding_go_away():
    model = relu_model(["batch", 3, "h", "w"])
    suggested = findings(check(model, soc="Ascend310"))[0].data["suggested_input_shape"]
    assert parse_input_shapes(suggested) == {"x": (1, 3, 224, 224)}
    assert findings(check(model, soc="Ascend310", input_shapes=suggested)) == []


def test_unset_dims_and_negative_dim_values_count_as_dynamic():
    model = relu_model([None, 3, -1, 8])
    f = findings(check(model, soc="Ascend910B3"))[0]
    assert f.data["axes"] == [0, 2]
    assert f.data["dim_params"] == [None, None]
    assert "unset" in f.message and "-1 in the model" in f.message


@pytest.mark.parametrize(
    ("shape", "option"),
    [
        (["n", 3, 224, 224], "--dynamic_batch_size"),
        ([1, 3, "h", "w"], "--dynamic_image_size"),
        ([1, 3, "h", 224], "--dynamic_image_size"),
        (["n", "seq"], "--dynamic_dims"),
        (["n", 3, "h", "w"], "--dynamic_dims"),
    ],
)
def test_gear_alternative_matches_the_dynamic_axes(shape, option):
    f = findings(check(relu_model(shape), soc="Ascend310"))[0]
    assert f.data["gear_option"] == option
    assert option in f.hint
    if option == "--dynamic_image_size":
        assert f.data["gear_input_shape"] == "x:1,3,-1,-1"  # -1 exactly on H and W (E10019)
    if option == "--dynamic_dims":
        assert "--input_format=ND" in f.hint


def test_one_gear_mechanism_for_all_inputs_and_scalars_listed():
    nodes = [helper.make_node("Add", ["a", "b"], ["c"], name="add"), helper.make_node("Mul", ["c", "s"], ["y"], name="mul")]
    model = make_model(
        nodes,
        [tensor_input("a", ["n", 8]), tensor_input("b", ["n", "m"]), tensor_input("s", [])],
        [tensor_input("y", ["n", "m"])],
    )
    found = findings(check(model, soc="Ascend310"))
    assert [f.data["input"] for f in found] == ["a", "b"]
    assert {f.data["gear_option"] for f in found} == {"--dynamic_dims"}
    assert found[0].data["gear_input_shape"] == "a:-1,8;b:-1,-1;s:"


def test_one_input_shape_string_for_all_inputs_with_shared_symbols_agreeing():
    """A user pasting the hint fixes every input at once (not input_ids alone, then attention_mask)."""
    nodes = [helper.make_node("Add", ["ids", "mask"], ["y"], name="add")]
    model = make_model(nodes, [tensor_input("ids", ["batch", "seq"]), tensor_input("mask", ["batch", "seq"])],
                       [tensor_input("y", ["batch", "seq"])])
    found = findings(check(model, soc="Ascend310P3"))
    assert {f.data["suggested_input_shape"] for f in found} == {"ids:1,128;mask:1,128"}
    assert '--input-shape "ids:1,128;mask:1,128"' in found[1].hint
    assert findings(check(model, soc="Ascend310P3", input_shapes=found[0].data["suggested_input_shape"])) == []


def test_example_gears_are_realistic_and_valid_for_atc():
    """Gears look like real sizes (not 1,1;2,2) and pass ATC's gear rules as atccheck checks them."""
    nodes = [helper.make_node("Add", ["ids", "mask"], ["y"], name="add")]
    model = make_model(nodes, [tensor_input("ids", ["batch", "seq"]), tensor_input("mask", ["batch", "seq"])],
                       [tensor_input("y", ["batch", "seq"])])
    f = findings(check(model, soc="Ascend310"))[0]
    assert f.data["gear_values"] == "1,128,1,128;4,256,4,256;8,512,8,512"
    assert '--dynamic-dims "1,128,1,128;4,256,4,256;8,512,8,512"' in f.hint
    geared = check(model, soc="Ascend310", dynamic_dims=f.data["gear_values"])
    assert findings(geared) == [] and geared.atc_command is not None
    image = findings(check(relu_model([1, 3, "h", "w"]), soc="Ascend310"))[0]
    assert image.data["gear_values"] == "224,224;448,448"


def test_no_bare_minus_one_command_under_the_error_where_it_stops_atc():
    """Ascend310 and CANN 6.0 refuse -1 without gears: no atc command with a bare -1 is printed, and the
    message says so; on Ascend310P3 (CANN 8.0) the message names -1 as the dynamic-shape route and its cost."""
    model = relu_model(["batch", 3, 8, 8])
    for soc, cann in (("Ascend310", "8.0"), ("Ascend310P3", "6.0")):
        report = check(model, soc=soc, cann=cann)
        assert report.atc_command is None
        f = findings(report)[0]
        assert f.data["dynamic_shape_route"] is False
        assert ("EZ3002" in f.message) if soc == "Ascend310" else ("E10011" in f.message)
    report = check(model, soc="Ascend310P3", cann="8.0")
    f = findings(report)[0]
    assert report.atc_command.option("--input_shape") == "x:-1,3,8,8"
    assert f.data["dynamic_shape_route"] is True
    assert "dynamic-shape route" in f.message and "AI CPU" in f.message
    assert "dynamic-shape build, as the atc command below does" in f.hint


def test_inputs_named_in_input_shape_are_left_to_dynamic_shape_unsupported():
    model = relu_model(["batch", 3, 8, 8])
    report = check(model, soc="Ascend310", input_shapes="x:-1,3,8,8")
    assert findings(report) == []
    assert len(findings(report, "dynamic-shape-unsupported")) == 1


def test_initializer_backed_inputs_and_static_inputs_do_not_fire():
    weight = init("w", np.ones((3, 3), np.float32))
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    graph_inputs = [tensor_input("x", [2, 3]), helper.make_tensor_value_info("w", TensorProto.FLOAT, ["a", "b"])]
    model = make_model([node], graph_inputs, [tensor_input("y", [2, 3])], [weight])
    assert findings(check(model, soc="Ascend310")) == []


def test_scalar_input_is_static():
    model = single_op_model("Relu", [[]], [])
    assert findings(check(model, soc="Ascend310")) == []


def test_input_without_shape_is_read_as_rank_zero():
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    model = make_model([node], [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    found = findings(check(model, soc="Ascend310"))
    assert len(found) == 1
    assert found[0].severity.value == "warning"
    assert found[0].data["rank_read_by_atc"] == 0
    assert "rank 0" in found[0].message
    # giving its dims in --input-shape fixes it
    assert findings(check(model, soc="Ascend310", input_shapes="x:2,3")) == []


def test_real_model_with_symbolic_batch(shared_models):
    report = check(shared_models / "mtcnn_onet.onnx", soc="Ascend310")
    found = findings(report)
    assert [f.data["input"] for f in found] == ["input_3"]
    assert found[0].data["gear_option"] == "--dynamic_batch_size"
    fixed = check(shared_models / "mtcnn_onet.onnx", soc="Ascend310", input_shapes=found[0].data["suggested_input_shape"])
    assert findings(fixed) == []


def test_model_is_not_modified():
    model = relu_model(["batch", 3])
    before = model.SerializeToString()
    check(model, soc="Ascend310")
    assert model.SerializeToString() == before
    assert isinstance(model, onnx.ModelProto)
