"""The atc command generator: golden commands for the sample models, ATC's refusals, quoting."""

from __future__ import annotations

import shlex

import numpy as np
import onnx
import pytest
from hypothesis import example, given, settings, strategies as st
from onnx import helper

from atccheck.api import check
from atccheck.atc.command import AtcRuleError, build_command, command_for_report, quote_value, shell_line
from atccheck.errors import UsageError
from atccheck.tables import tables
from builders import init, make_model, single_op_model, tensor_input
from conftest import SAMPLE_MODELS


def sample(name: str) -> onnx.ModelProto:
    path = SAMPLE_MODELS / f"{name}.onnx"
    if not path.is_file():
        pytest.skip(f"missing resource: {path} (sample models built by models/make_models.py)")
    return onnx.load(str(path), load_external_data=False)


def code_of(excinfo) -> str | None:
    return excinfo.value.atc_error


# One gear fewer than ATC's minimum, one more than Ascend310P3's maximum (the chip every refusal uses).
TOO_FEW_GEARS = list(range(1, tables().limit("gear_count_min")))
TOO_MANY_GEARS = list(range(1, tables().socs["Ascend310P3"].gear_max + 2))


# --------------------------------------------------------------------------- golden commands


def test_static_convnet():
    cmd = build_command(sample("convnet_clean"), "models/convnet_clean.onnx", "Ascend310P3")
    assert cmd.line == (
        "atc --framework=5 --model=models/convnet_clean.onnx --output=models/convnet_clean "
        "--soc_version=Ascend310P3 --input_format=NCHW --input_shape=\"image:1,3,64,64\""
    )
    assert cmd.notes == ()


def test_static_model_states_its_input_shape():
    """--input_shape is written for a static model too: it records the shape the .om is built for."""
    node = onnx.helper.make_node("Add", ["a", "s"], ["y"])
    model = make_model([node], [tensor_input("a", [2, 3]), tensor_input("s", [])], [tensor_input("y", [2, 3])])
    cmd = build_command(model, "m.onnx", "Ascend310")
    assert cmd.option("--input_shape") == "a:2,3;s:"  # a scalar is 'name:' (atc_cli.md rule 10)


def test_dynamic_batch_convnet():
    cmd = build_command(sample("convnet_dynamic_batch"), "models/convnet_dynamic_batch.onnx", "ascend310p3",
                        dynamic_batch=[1, 2, 4, 8])
    assert cmd.argv == (
        "atc", "--framework=5", "--model=models/convnet_dynamic_batch.onnx",
        "--output=models/convnet_dynamic_batch", "--soc_version=Ascend310P3", "--input_format=NCHW",
        "--input_shape=image:-1,3,64,64", "--dynamic_batch_size=1,2,4,8",
    )
    assert cmd.line.endswith('--input_shape="image:-1,3,64,64" --dynamic_batch_size="1,2,4,8"')
    assert any("case-sensitive" in n for n in cmd.notes)


def test_dynamic_batch_on_ascend310_is_allowed():
    """Gears are static builds: chips without dynamic shape accept them."""
    cmd = build_command(sample("convnet_dynamic_batch"), "m.onnx", "Ascend310", dynamic_batch="1,8")
    assert cmd.option("--dynamic_batch_size") == "1,8"


def test_multi_input_nlp_static():
    cmd = build_command(sample("bert_tiny_two_inputs"), "models/bert_tiny_two_inputs.onnx", "Ascend310",
                        input_shapes="input_ids:1,128;attention_mask:1,128")
    assert cmd.line == (
        "atc --framework=5 --model=models/bert_tiny_two_inputs.onnx --output=models/bert_tiny_two_inputs "
        '--soc_version=Ascend310 --input_format=ND --input_shape="input_ids:1,128;attention_mask:1,128"'
    )


def test_multi_input_nlp_dynamic_dims_uses_nd_and_graph_order():
    cmd = build_command(sample("bert_tiny_two_inputs"), "b.onnx", "Ascend310P3",
                        dynamic_dims="1,32,1,32;4,128,4,128")
    assert cmd.option("--input_format") == "ND"
    assert cmd.option("--input_shape") == "input_ids:-1,-1;attention_mask:-1,-1"
    assert cmd.option("--dynamic_dims") == "1,32,1,32;4,128,4,128"


def test_multi_input_nlp_mapping_shapes_keep_graph_order():
    cmd = build_command(sample("bert_tiny_two_inputs"), "b.onnx", "Ascend910B3",
                        input_shapes={"attention_mask": [2, 64], "input_ids": [2, 64]})
    assert cmd.option("--input_shape") == "input_ids:2,64;attention_mask:2,64"


def test_dynamic_nlp_on_a_dynamic_shape_chip_keeps_minus_one_and_says_so():
    cmd = build_command(sample("bert_tiny_two_inputs"), "b.onnx", "Ascend310P3")
    assert cmd.option("--input_shape") == "input_ids:-1,-1;attention_mask:-1,-1"
    assert any("dynamic-shape model" in n for n in cmd.notes)


def test_video_5d_uses_ncdhw():
    cmd = build_command(sample("video_conv3d"), "models/video_conv3d.onnx", "Ascend910B3")
    assert cmd.line == (
        "atc --framework=5 --model=models/video_conv3d.onnx --output=models/video_conv3d "
        "--soc_version=Ascend910B3 --input_format=NCDHW --input_shape=\"clip:1,3,8,32,32\""
    )


def test_dynamic_image_size():
    model = single_op_model("Relu", [[1, 3, "h", "w"]], [1, 3, "h", "w"])
    cmd = build_command(model, "r.onnx", "Ascend310B4", dynamic_image_size="224,224;448,448")
    assert cmd.option("--input_shape") == "x0:1,3,-1,-1"
    assert cmd.option("--dynamic_image_size") == "224,224;448,448"
    assert cmd.option("--input_format") == "NCHW"


def test_initializers_are_not_inputs_and_scalars_are_name_colon():
    scalar = tensor_input("scale", [])
    node = helper.make_node("Mul", ["x", "scale"], ["m"])
    node2 = helper.make_node("Add", ["m", "w"], ["y"])
    model = make_model([node, node2], [tensor_input("x", ["n", 4]), scalar, tensor_input("w", [4])],
                       [tensor_input("y", ["n", 4])], [init("w", np.ones(4, np.float32))])
    cmd = build_command(model, "s.onnx", "Ascend310P3", dynamic_dims="1;2")
    assert cmd.option("--input_shape") == "x:-1,4;scale:"
    assert cmd.option("--input_format") == "ND"
    with pytest.raises(AtcRuleError) as excinfo:  # a scalar has no batch axis
        build_command(model, "s.onnx", "Ascend310P3", dynamic_batch=[1, 2])
    assert code_of(excinfo) == "E10012"


# --------------------------------------------------------------------------- refusals, each with its ATC code


@pytest.mark.parametrize(
    ("model_name", "kwargs", "code"),
    [
        ("convnet_dynamic_batch", dict(dynamic_batch=[1, 2], dynamic_dims="1;2"), "E10009"),
        ("convnet_dynamic_batch", dict(dynamic_batch=TOO_FEW_GEARS), "E10035"),
        ("convnet_dynamic_batch", dict(dynamic_batch=TOO_MANY_GEARS), "E10036"),
        ("convnet_dynamic_batch", dict(dynamic_batch="1,2,2,4"), "E10039"),
        ("convnet_dynamic_batch", dict(dynamic_batch="0,2"), "E10038"),
        ("convnet_dynamic_batch", dict(dynamic_batch="1,-2"), "E10038"),
        ("convnet_dynamic_batch", dict(dynamic_batch="1,2", input_shapes="image:-1,3,32~64,64"), "E10040"),
        ("convnet_clean", dict(dynamic_batch=[1, 2]), "E10031"),
        ("bert_tiny_two_inputs", dict(dynamic_batch=[1, 2]), "E10018"),
        ("convnet_dynamic_batch", dict(dynamic_image_size="64,64;128,128"), "E10019"),
        ("convnet_clean", dict(dynamic_image_size="64,64;128,128"), "E10019"),
        ("convnet_dynamic_batch", dict(dynamic_image_size="64,64,3;128,128,3",
                                       input_shapes="image:1,3,-1,-1"), "E10020"),
        ("bert_tiny_two_inputs", dict(dynamic_dims="1,32;4,64"), "E10046"),
        ("convnet_dynamic_batch", dict(dynamic_dims="1,2;4,8"), "E10003"),
        ("bert_tiny_two_inputs", dict(dynamic_dims="1,32,1,32;4,64"), "E10037"),
        ("convnet_dynamic_batch", dict(dynamic_dims="1;x"), "E10003"),
        ("convnet_clean", dict(dynamic_dims="1;2"), "E10001"),
        ("convnet_dynamic_batch", dict(input_shapes="Image:1,3,64,64"), "E10016"),
        ("convnet_dynamic_batch", dict(input_shapes="image:1,3,64"), "E10049"),
        ("convnet_dynamic_batch", dict(input_shapes="image:1,3,64.5,64"), "E10002"),
        ("convnet_dynamic_batch", dict(input_shapes="image:0,3,64,64"), "E10011"),
    ],
)
def test_refuses_what_atc_rejects(model_name, kwargs, code):
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(sample(model_name), "m.onnx", "Ascend310P3", **kwargs)
    assert code_of(excinfo) == code
    assert f"(ATC: {code})" in str(excinfo.value)
    assert isinstance(excinfo.value, UsageError)  # the CLI turns it into exit 2


def test_initializer_named_in_input_shape_is_refused():
    model = single_op_model("Add", [[1, 4]], [1, 4], initializers=[init("bias", np.ones((1, 4), np.float32))])
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(model, "m.onnx", "Ascend310P3", input_shapes="bias:1,4")
    assert code_of(excinfo) == "E10016" and "initializer" in str(excinfo.value)


@pytest.mark.parametrize("soc", ["Ascend310", "Ascend310B1", "Ascend310B4"])
def test_no_dynamic_shape_on_chips_without_it(soc):
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(sample("convnet_dynamic_batch"), "m.onnx", soc)
    assert code_of(excinfo) == "EZ3002" and soc in str(excinfo.value)
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(sample("convnet_dynamic_batch"), "m.onnx", soc, input_shapes="image:1~8,3,64,64")
    assert code_of(excinfo) == "EZ3002"


def test_range_accepted_on_a_dynamic_shape_chip_of_a_release_with_ranges():
    cmd = build_command(sample("convnet_dynamic_batch"), "m.onnx", "Ascend910B3", input_shapes="image:1~8,3,64,64")
    assert cmd.option("--input_shape") == "image:1~8,3,64,64"


def test_old_release_needs_gears_for_minus_one():
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(sample("convnet_dynamic_batch"), "m.onnx", "Ascend310P3", cann="6.0")
    assert code_of(excinfo) == "E10011"


def test_gear_max_follows_the_chip_table():
    from atccheck.tables import tables

    limit = tables().socs["Ascend310P3"].gear_max
    cmd = build_command(sample("convnet_dynamic_batch"), "m.onnx", "Ascend310P3",
                        dynamic_batch=list(range(1, limit + 1)))
    assert len(cmd.option("--dynamic_batch_size").split(",")) == limit


def test_unknown_soc_and_cann_are_usage_errors():
    with pytest.raises(UsageError, match="did you mean"):
        build_command(sample("convnet_clean"), "m.onnx", "Ascend310P4")
    with pytest.raises(UsageError):
        build_command(sample("convnet_clean"), "m.onnx", "Ascend310P3", cann="4.0")


def test_input_without_shape_is_refused():
    model = single_op_model("Relu", [[1, 4]], [1, 4])
    model.graph.input[0].type.tensor_type.ClearField("shape")
    with pytest.raises(UsageError, match="scalar"):
        build_command(model, "m.onnx", "Ascend310P3")
    cmd = build_command(model, "m.onnx", "Ascend310P3", input_shapes="x0:1,4")
    assert cmd.option("--input_shape") == "x0:1,4"


# --------------------------------------------------------------------------- precision


@pytest.mark.parametrize(
    ("mode", "soc", "expected"),
    [
        (None, "Ascend310P3", None),
        ("force_fp16", "Ascend310P3", None),
        ("fp16", "Ascend910B3", None),
        ("force_fp32", "Ascend310P3", "--precision_mode=force_fp32"),
        ("must_keep_origin_dtype", "Ascend310", "--precision_mode=must_keep_origin_dtype"),
        ("cube_fp16in_fp32out", "Ascend310P3", "--precision_mode=cube_fp16in_fp32out"),
        ("origin", "Ascend310P3", "--precision_mode_v2=origin"),
        ("mixed_bfloat16", "Ascend910B3", "--precision_mode_v2=mixed_bfloat16"),
        ("allow_fp32_to_bf16", "Ascend310B4", "--precision_mode=allow_fp32_to_bf16"),
    ],
)
def test_precision_flags(mode, soc, expected):
    cmd = build_command(sample("convnet_clean"), "m.onnx", soc, precision_mode=mode)
    precision = [w for w in cmd.argv if w.startswith("--precision_mode")]
    assert precision == ([expected] if expected else [])


@pytest.mark.parametrize(
    ("mode", "soc", "cann"),
    [
        ("mixed_bfloat16", "Ascend310P3", "8.0"),
        ("allow_mix_precision_bf16", "Ascend910A", "8.0"),
        ("mixed_hif8", "Ascend910B3", "8.0"),
        ("origin", "Ascend310P3", "6.0"),
        ("fastest", "Ascend310P3", "8.0"),
    ],
)
def test_precision_refusals(mode, soc, cann):
    with pytest.raises(UsageError):
        build_command(sample("convnet_clean"), "m.onnx", soc, precision_mode=mode, cann=cann)


# --------------------------------------------------------------------------- output and files


def test_output_is_a_base_name(tmp_path):
    model = sample("convnet_clean")
    assert build_command(model, "m.onnx", "Ascend310P3", output="out/net.om").option("--output") == "out/net"
    cmd = build_command(model, "dir/m.onnx", "Ascend310P3", output="build/")
    assert cmd.option("--output") == "build/m"
    assert any("E10022" in n for n in cmd.notes)
    cmd = build_command(model, "dir/m.onnx", "Ascend310P3", output=str(tmp_path))
    assert cmd.option("--output") == str(tmp_path / "m")
    with pytest.raises(AtcRuleError) as excinfo:
        build_command(model, "m.onnx", "Ascend310P3", output="x" * tables().limit("atc_output_path_max"))
    assert code_of(excinfo) == "E10021"


def test_external_data_note(tmp_path):
    def matmul():
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
        weights = init("w", np.ones((64, 64), np.float32))
        return make_model([node], [tensor_input("x", [1, 64])], [tensor_input("y", [1, 64])], [weights])

    model = matmul()
    path = tmp_path / "ext.onnx"
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location="ext.data",
              size_threshold=0)
    loaded = onnx.load(str(path), load_external_data=False)
    cmd = build_command(loaded, str(path), "Ascend310P3")
    assert any("ext.data" in n and "folder" in n for n in cmd.notes)
    plain = build_command(matmul(), "p.onnx", "Ascend310P3")
    assert not any("external" in n for n in plain.notes)


def test_command_for_report():
    report = check(sample("convnet_dynamic_batch"), "Ascend310P3", input_shapes="image:2,3,64,64")
    cmd = command_for_report(report)
    assert cmd is not None and cmd.option("--input_shape") == "image:2,3,64,64"
    assert cmd.option("--soc_version") == "Ascend310P3"
    assert command_for_report(check(sample("convnet_dynamic_batch"), "Ascend310")) is None


def test_to_dict():
    cmd = build_command(sample("convnet_clean"), "m.onnx", "Ascend310P3", precision_mode="origin")
    doc = cmd.to_dict()
    assert doc["argv"][0] == "atc" and doc["line"] == cmd.line and doc["notes"] == []


# --------------------------------------------------------------------------- quoting


def test_names_with_spaces_and_colons_round_trip():
    model = single_op_model("Relu", [["n", 4]], ["n", 4])
    model.graph.input[0].name = "input ids:0"
    model.graph.node[0].input[0] = "input ids:0"
    cmd = build_command(model, "my models/a b.onnx", "Ascend310P3", dynamic_batch="1,2")
    assert shlex.split(cmd.line) == list(cmd.argv)
    assert '--input_shape="input ids:0:-1,4"' in cmd.line
    assert '--model="my models/a b.onnx"' in cmd.line


def test_semicolon_in_an_input_name_is_refused():
    model = single_op_model("Relu", [["n", 4]], ["n", 4])
    model.graph.input[0].name = "a;b"
    model.graph.node[0].input[0] = "a;b"
    with pytest.raises(UsageError, match="';'"):
        build_command(model, "m.onnx", "Ascend310P3", dynamic_batch="1,2")


def test_dollar_and_quotes_are_single_quoted():
    line = shell_line(["atc", "--model=$HOME/m.onnx", '--output=a"b', "--output=it's"])
    assert shlex.split(line) == ["atc", "--model=$HOME/m.onnx", '--output=a"b', "--output=it's"]
    assert "'$HOME/m.onnx'" in line


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30))
@example("1\n")  # '$' matched before a final newline: the value went out bare and the shell lost the newline
@example("a,b")
@example("")
def test_any_value_round_trips_through_the_shell(value):
    assert shlex.split(f"--input_shape={quote_value(value)}") == [f"--input_shape={value}"]


def test_dynamic_dims_keep_their_meaning_when_inputs_are_given_out_of_graph_order():
    """--dynamic_dims values fill the -1s in --input_shape order (option_utils.cc); the command
    lists inputs in graph order, so the values of each gear move with their input."""
    nodes = [onnx.helper.make_node("Relu", ["a"], ["ya"]), onnx.helper.make_node("Relu", ["b"], ["yb"])]
    model = make_model(nodes, [tensor_input("a", ["n", 4]), tensor_input("b", ["m"])],
                       [tensor_input("ya", ["n", 4]), tensor_input("yb", ["m"])])
    cmd = build_command(model, "m.onnx", "Ascend310", input_shapes="b:-1;a:-1,4", dynamic_dims="2,1;8,4")
    assert cmd.option("--input_shape") == "a:-1,4;b:-1"
    assert cmd.option("--dynamic_dims") == "1,2;4,8"
    assert any("reordered" in n for n in cmd.notes)
    same = build_command(model, "m.onnx", "Ascend310", input_shapes="a:-1,4;b:-1", dynamic_dims="1,2;4,8")
    assert same.option("--dynamic_dims") == "1,2;4,8" and not any("reordered" in n for n in same.notes)
