"""An input's shape in the written model is exactly what make-inputs-static reports, whatever a later pass or onnxsim
infers about it."""

from __future__ import annotations

import re

import onnx
from onnx import helper

from atccheck.fixing.pipeline import fix
from builders import make_model, tensor_input


def dynamo_style_text_model() -> onnx.ModelProto:
    """Token ids and a mask with symbols of their own (the dynamo exporter's s97/s52...), the mask reshaped by the ids'
    batch and combined with them, and an Expand over a computed shape, so that simplify runs."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["s"]), helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
        helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]), helper.make_node("Concat", ["b1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["mask", "shape"], ["m2"]), helper.make_node("Cast", ["m2"], ["mf"], to=1),
        helper.make_node("Cast", ["ids"], ["idf"], to=1), helper.make_node("Add", ["idf", "mf"], ["a"]),
        helper.make_node("Shape", ["a"], ["sa"]), helper.make_node("Expand", ["one", "sa"], ["e"]),
        helper.make_node("Mul", ["a", "e"], ["y"]),
    ]
    inits = [helper.make_tensor("one", 1, [], [1.0]), helper.make_tensor("zero", 7, [], [0]),
             helper.make_tensor("ax0", 7, [1], [0]), helper.make_tensor("minus1", 7, [1], [-1])]
    inputs = [tensor_input("ids", ["s97", "s98"], 7), tensor_input("mask", ["s52", "s20"], 7)]
    return make_model(nodes, inputs, [helper.make_tensor_value_info("y", 1, None)], inits, opset=17)


def dims(value: onnx.ValueInfoProto) -> list:
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in value.type.tensor_type.shape.dim]


def test_the_written_inputs_are_what_make_inputs_static_reports():
    outcome = fix(dynamo_style_text_model(), soc="Ascend310P3", input_shapes="ids:1,32", write=False)
    assert "simplify" in {p.name for p in outcome.applied}
    (step,) = [p for p in outcome.passes if p.name == "make-inputs-static"]
    reported = {}
    for note in step.notes:
        found = re.match(r"input '(\w+)': \[.*\] -> \[(.*)\]", note)
        if found:
            reported[found[1]] = [int(d) if d.isdigit() else d for d in found[2].split(",")]
    assert reported == {"ids": [1, 32], "mask": [1, "s20"]}
    assert {i.name: dims(i) for i in outcome.model.graph.input} == reported
    assert outcome.input_shapes == reported
