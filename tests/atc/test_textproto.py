"""The protobuf text-format reader AIPP files go through, against protobuf's own parser as the oracle.

The oracle is the ``google.protobuf.text_format`` module installed with onnx, given a descriptor
built from the same schema (insert_op.proto as op_tables/aipp.json holds it): for every text,
both accept it or both refuse it.
"""

from __future__ import annotations

import math

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from hypothesis import given, strategies as st

from atccheck.atc.aipp import aipp_facts
from atccheck.atc.textproto import FieldSchema, MessageSchema, parse_text, render_scalar
from atccheck.tables import tables

FACTS = aipp_facts()
FACTS_DOC = tables().docs["aipp.json"]["message_schema"]
TYPES = {"int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
         "uint32": descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
         "float": descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
         "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
         "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
         "enum": descriptor_pb2.FieldDescriptorProto.TYPE_ENUM,
         "message": descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE}


def oracle_class():
    """InsertNewOps as protobuf builds it from the schema atccheck ships."""
    doc = FACTS_DOC
    proto = descriptor_pb2.FileDescriptorProto(name="atccheck_insert_op_oracle.proto", package="oracle",
                                               syntax="proto3")
    for enum_name, values in doc["enums"].items():
        enum = proto.enum_type.add(name=enum_name)
        for name, number in sorted(values.items(), key=lambda kv: kv[1]):
            enum.value.add(name=name, number=number)
    for full_name, fields in doc["messages"].items():
        message = proto.message_type.add(name=full_name.split(".")[-1])
        for f in fields:
            label = (descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED if f["repeated"]
                     else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
            item = message.field.add(name=f["name"], number=f["number"], label=label, type=TYPES[f["kind"]])
            if f["kind"] == "enum":
                item.type_name = f".oracle.{f['enum']}"
            if f["kind"] == "message":
                item.type_name = ".oracle." + f["message"].split(".")[-1]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("oracle.InsertNewOps"))


ORACLE = oracle_class()

CASES = [
    "aipp_op { aipp_mode: static input_format: RGB888_U8 }",
    "aipp_op: { aipp_mode: dynamic max_src_image_size: 1000 }",
    "aipp_op < aipp_mode: static >",
    "aipp_op { aipp_mode: 1 }",
    "aipp_op { aipp_mode: 7 }",  # proto3 enums are open
    "aipp_op { aipp_mode: STATIC }",
    "aipp_op { aipp_mode static }",
    "aipp_op { aipp_mode: static; input_format: YUV420SP_U8, csc_switch: true }",
    "# comment\naipp_op {\n  aipp_mode: static # trailing\n}\n",
    "aipp_op { mean_chn_0: 123.675 }",
    "aipp_op { mean_chn_0: 1e2 }",
    "aipp_op { mean_chn_0: -5 }",
    "aipp_op { mean_chn_0: 0x7f }",
    "aipp_op { mean_chn_0: 0x80000000 }",
    "aipp_op { mean_chn_0: 2147483647 }",
    "aipp_op { mean_chn_0: 2147483648 }",
    "aipp_op { related_input_rank: -1 }",
    "aipp_op { related_input_rank: 4294967295 }",
    "aipp_op { min_chn_0: 0.675 }",
    "aipp_op { min_chn_0: 1 }",
    "aipp_op { min_chn_0: -inf }",
    "aipp_op { min_chn_0: nan }",
    "aipp_op { min_chn_0: 1.5f }",
    "aipp_op { var_reci_chn_0: 0.5 var_reci_chn_0: 0.25 }",
    "aipp_op { var_reci_chn_0: [0.5, 0.25] }",
    "aipp_op { var_reci_chn_0: [] }",
    "aipp_op { var_reci_chn_0: [0.5, ] }",
    "aipp_op { crop: true crop: true }",
    "aipp_op { crop: false crop: true }",
    "aipp_op { crop: t padding: f resize: 1 }",
    "aipp_op { crop: yes }",
    "aipp_op { aipp_mode: static aipp_mode: static }",
    "aipp_op { src_image_size_w: 0 src_image_size_w: 224 }",
    "aipp_op { related_input_name: \"data\" }",
    "aipp_op { related_input_name: 'da' \"ta\" }",
    "aipp_op { related_input_name: data }",
    "aipp_op { related_input_name: \"a\\nb\\x41\\101\" }",
    "aipp_op { rotation_angle: 0 }",
    "aipp_mode: static",
    "aipp_op { aipp_mode: static",
    "aipp_op { aipp_mode: static } }",
    "aipp_op { } aipp_op { }",
    "multi_shape_op { mode: batch batch_list: 1 batch_list: 2 }",
    "",
    "aipp_op { input_edge_idx: 0 input_edge_idx: 1 }",
    "aipp_op { mean_chn_0: 12 mean_chn_0: 13 }",
    "aipp_op { min_chn_0: 0x1F }",  # floats take decimal numbers only
    "aipp_op { min_chn_0: 010 }",
    "aipp_op { mean_chn_0: 4294967295 }",
]


def test_the_cases_hold_both_verdicts():
    accepted = [t for t in CASES if parse_text(t, FACTS.schema, FACTS.root).ok]
    assert 10 < len(accepted) < len(CASES) - 10


@pytest.mark.parametrize("text", CASES)
def test_accepts_what_protobuf_accepts(text):
    ours = parse_text(text, FACTS.schema, FACTS.root)
    try:
        text_format.Parse(text, ORACLE())
        theirs = None
    except (text_format.ParseError, ValueError) as exc:  # python reports some ranges as ValueError
        theirs = exc
    assert ours.ok == (theirs is None), f"ours: {ours.error}; protobuf: {theirs}"


def test_octal_enum_numbers_are_read_as_cpp_reads_them():
    """C++'s ConsumeSignedInteger takes octal for an enum; python's text_format does not (int('010', 0))."""
    result = parse_text("aipp_op { input_format: 03 }", FACTS.schema, FACTS.root)
    assert result.ok and result.message.fields[0].value.last("input_format").value == 3


def test_errors_say_where():
    result = parse_text("aipp_op {\n  aipp_mode: static\n  mean_chn_0: 123.675\n}\n", FACTS.schema, FACTS.root)
    assert result.error is not None
    assert (result.error.line, result.error.column) == (3, 15)
    assert result.error.message == "Expected integer, got: 123.675"


def test_values_and_order_are_kept():
    text = "aipp_op {\n aipp_mode: static\n var_reci_chn_0: [0.5, 2]\n min_chn_0: -inf\n input_format: 3\n}"
    result = parse_text(text, FACTS.schema, FACTS.root)
    (op,) = result.message.fields
    block = op.value
    assert [f.name for f in block.fields] == ["aipp_mode", "var_reci_chn_0", "var_reci_chn_0", "min_chn_0",
                                              "input_format"]
    assert block.last("aipp_mode").value == 1 and block.last("input_format").value == 3
    assert [f.value for f in block.all("var_reci_chn_0")] == [0.5, 2.0]
    assert math.isinf(block.last("min_chn_0").value) and block.last("min_chn_0").value < 0
    assert block.last("var_reci_chn_0").line == 3


def test_render_scalar_round_trips():
    schema = MessageSchema("t.M", {"f": FieldSchema("f", 1, "float"), "e": FieldSchema("e", 2, "enum", enum={"A": 0, "B": 1}),
                                   "b": FieldSchema("b", 3, "bool"), "s": FieldSchema("s", 4, "string")})
    text = " ".join(f"{name}: {render_scalar(schema.fields[name], value)}" for name, value in
                    (("f", 0.017124754), ("e", 1), ("b", True), ("s", 'a"b\\c')))
    result = parse_text(text, {"t.M": schema}, "t.M")
    assert result.ok, result.error
    assert [f.value for f in result.message.fields] == [0.017124754, 1, True, 'a"b\\c']


# Random texts over the schema's words and the format's symbols: the property is the oracle's verdict.
WORDS = ["aipp_op", "aipp_mode", "input_format", "mean_chn_0", "min_chn_0", "var_reci_chn_0", "crop",
         "related_input_name", "input_edge_idx", "static", "dynamic", "RGB888_U8", "true", "false", "t", "0", "1",
         "-", "7", "2.5", "1e3", "0x10", "inf", '"s"', "{", "}", "<", ">", "[", "]", ":", ",", ";", "\n", "#c\n"]


@given(st.lists(st.sampled_from(WORDS), max_size=14))
def test_random_texts_get_protobufs_verdict(words):
    text = " ".join(words)
    ours = parse_text(text, FACTS.schema, FACTS.root)
    try:
        text_format.Parse(text, ORACLE())
        theirs = None
    except (text_format.ParseError, ValueError) as exc:
        theirs = exc
    assert ours.ok == (theirs is None), f"{text!r}: ours {ours.error}; protobuf {theirs}"
