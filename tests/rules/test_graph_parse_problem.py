"""graph-parse-problem: the ONNX parser's graph-level checks (op_tables/parser_checks.json), one model per check."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.errors import InputError
from builders import init, make_model, tensor_input

NAME = "graph-parse-problem"
PROFILES = ["5.0", "6.0", "8.0", "9.0"]


def found(model, cann="9.0", soc="Ascend310P3"):
    return [f for f in check(model, soc=soc, cann=cann).findings if f.name == NAME]


def relu(**kwargs):
    return make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_input("x", [1, 4])],
                      [tensor_input("y", [1, 4])], **kwargs)


@pytest.mark.parametrize("cann", PROFILES)
def test_clean_model_has_nothing(cann):
    assert found(relu(), cann) == []


@pytest.mark.parametrize("cann", PROFILES)
def test_root_graph_without_input(cann):
    node = helper.make_node("Add", ["a", "b"], ["y"])
    model = make_model([node], [], [tensor_input("y", [2])], [init("a", np.ones(2, np.float32)),
                                                              init("b", np.ones(2, np.float32))])
    [f] = found(model, cann)
    assert f.severity.value == "error" and f.atc_error == "E16001" and "no input node" in f.message
    assert f.data["check"] == "root-graph-without-input"


@pytest.mark.parametrize("cann", PROFILES)
def test_graph_without_output(cann):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor_input("x", [1, 4])], [])
    [f] = found(model, cann)
    assert f.atc_error == "E16001" and "no output node" in f.message and f.location.graph == "main"


def test_if_branch_without_output():
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [], [])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [tensor_input("e", [1, 4])])
    nodes = [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)]
    model = make_model(nodes, [tensor_input("x", [1, 4]), tensor_input("c", [], TensorProto.BOOL)],
                       [tensor_input("y", [1, 4])])
    [f] = found(model)
    assert f.atc_error == "E16001" and "then_branch" in f.location.graph


def test_output_nothing_defines_is_refused_on_loading():
    model = relu()
    model.graph.output[0].name = "z"
    with pytest.raises(InputError, match="not produced"):
        check(model, soc="Ascend310", cann="9.0")


@pytest.mark.parametrize(("cann", "severity"), [("5.0", "error"), ("6.0", "error"), ("8.0", None), ("9.0", None)])
def test_bfloat16_initializer_before_the_2023_parser(cann, severity):
    from onnx import numpy_helper

    weight = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    weight.data_type = TensorProto.BFLOAT16
    weight.raw_data = np.zeros(4, np.uint16).tobytes()
    nodes = [helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT), helper.make_node("Add", ["x", "wf"], ["y"])]
    model = make_model(nodes, [tensor_input("x", [4])], [tensor_input("y", [4])], [weight])
    got = [(f.severity.value, f.atc_error) for f in found(model, cann)]
    assert got == ([(severity, "E19999")] if severity else [])


@pytest.mark.parametrize(("cann", "severity"), [("6.0", "error"), ("8.0", "info"), ("9.0", None)])
def test_float8_input(cann, severity):
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)]
    model = make_model(nodes, [tensor_input("x", [4], TensorProto.FLOAT8E4M3FN)], [tensor_input("y", [4])], opset=19)
    got = [f.severity.value for f in found(model, cann)]
    assert got == ([severity] if severity else [])


@pytest.mark.parametrize("cann", PROFILES)
def test_float8_fnuz_constant_is_mapped_by_no_parser(cann):
    value = helper.make_tensor("v", TensorProto.FLOAT8E5M2FNUZ, [2], [1.0, 2.0])
    nodes = [helper.make_node("Constant", [], ["c"], name="const", value=value),
             helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT), helper.make_node("Add", ["x", "cf"], ["y"])]
    model = make_model(nodes, [tensor_input("x", [2])], [tensor_input("y", [2])], opset=19)
    [f] = found(model, cann)
    assert f.severity.value == "error" and "float8e5m2fnuz" in f.message and "Constant 'const'" in f.message


@pytest.mark.parametrize("cann", PROFILES)
def test_constant_in_value_ints_is_not_read(cann):
    nodes = [helper.make_node("Constant", [], ["shape"], name="target", value_ints=[2, 2]),
             helper.make_node("Reshape", ["x", "shape"], ["y"])]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [2, 2])])
    [f] = found(model, cann)
    assert f.severity.value == "warning" and f.location.node == "target" and "value_ints" in f.message


@pytest.mark.parametrize("cann", PROFILES)
def test_input_backed_by_an_initializer_becomes_a_constant(cann):
    nodes = [helper.make_node("Add", ["x", "bias"], ["y"])]
    model = make_model(nodes, [tensor_input("x", [4]), tensor_input("bias", [4])], [tensor_input("y", [4])],
                       [init("bias", np.ones(4, np.float32))])
    [f] = found(model, cann)
    assert f.severity.value == "info" and f.data["inputs"] == ["bias"] and "other 1" in f.message


def test_accepted_conditions_say_nothing():
    model = relu()
    model.graph.output.append(model.graph.output[0])  # a repeated output
    model.graph.node[0].name = ""  # an unnamed node
    assert found(model) == []


def test_sequence_input_reads_as_data_type_zero():
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)
    nodes = [helper.make_node("SequenceLength", ["s"], ["n"])]
    model = make_model(nodes, [seq], [tensor_input("n", [], TensorProto.INT64)])
    [f] = found(model, "9.0")
    assert f.atc_error == "E19999" and "input 's' of sequence type" in f.message and "data type 0" in f.message
