"""Finding the files a command names, reading them as ATC does, and the parsed graph's names."""

from __future__ import annotations

import os

import pytest
from onnx import TensorProto, helper

from atccheck.atc.command_files import (
    FileBase,
    graph_names,
    parse_fp16_nodes,
    parse_out_nodes,
    read_command_file,
    read_option_file,
    resolve_command_path,
)
from atccheck.tables import tables


def test_relative_paths_try_the_current_then_the_script_directory(tmp_path):
    here, script = tmp_path / "here", tmp_path / "script"
    here.mkdir()
    script.mkdir()
    (script / "a.cfg").write_text("x", encoding="utf-8")
    found = resolve_command_path("a.cfg", FileBase(str(here), str(script)))
    assert found.path == str(script / "a.cfg") and found.tried == (str(here / "a.cfg"), str(script / "a.cfg"))
    (here / "a.cfg").write_text("y", encoding="utf-8")
    assert resolve_command_path("a.cfg", FileBase(str(here), str(script))).path == str(here / "a.cfg")
    assert resolve_command_path("a.cfg", FileBase(str(tmp_path))).path is None
    assert resolve_command_path(str(script / "a.cfg"), FileBase("/nonexistent")).path == str(script / "a.cfg")


def test_expansions_resolve_from_the_environment(tmp_path, monkeypatch):
    (tmp_path / "a.cfg").write_text("x", encoding="utf-8")
    monkeypatch.setenv("ATCCHECK_TEST_DIR", str(tmp_path))
    assert resolve_command_path("${ATCCHECK_TEST_DIR}/a.cfg", FileBase("/"), expand=True).path == str(tmp_path / "a.cfg")
    monkeypatch.delenv("ATCCHECK_TEST_DIR")
    assert resolve_command_path("$ATCCHECK_TEST_DIR/a.cfg", FileBase("/"), expand=True).unknown


def test_read_refuses_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    assert read_command_file(str(fifo)).text is None
    (tmp_path / "g").write_bytes(b"a\xffb")
    assert read_command_file(str(tmp_path / "g")).text == "a\ufffdb"


def test_customize_lines_beyond_the_reader_stop_it():
    text = "conv::InputDtype:float16\n" + "x::InputDtype:" + ",".join(["float16"] * 200) + "\n"
    read = read_option_file("--customize_dtypes", text)
    assert [e.value for e in read.entries] == ["conv"] and read.problems[0].severity == "warning"


def test_op_precision_sections():
    read = read_option_file("--op_precision_mode", "Conv2D=high_precision\n[ByNodeName]\nconv1=keep_fp16\n"
                                                   "[Other]\nx=high_precision\n# c\n")
    assert [(e.kind, e.value) for e in read.entries] == [("type", "Conv2D"), ("name", "conv1"), ("name", "x")]


def test_out_nodes_and_fp16_nodes_split_as_ge_does():
    assert [(e.name, e.index) for e in parse_out_nodes("a:0;b: 1").entries] == [("a", 0), ("b", 1)]
    assert parse_out_nodes("a;b").entries[1].index is None and not parse_out_nodes("a;b").problems
    assert parse_out_nodes(f"a:{2**31}").problems[0].atc_error == "E10013"
    assert parse_fp16_nodes("a;b;") == ["a", "b", ""] and parse_fp16_nodes("a; b") == ["a", " b"]


@pytest.mark.parametrize("profile, const", [("6.0", "w_0"), ("9.0", "w_Initializer_0")])
def test_graph_names_follow_the_parser(profile, const):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 1, 1], [0.0] * 12)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Relu", ["c"], ["r"], name="act"),
             helper.make_node("Sigmoid", ["r"], ["y"])]
    graph = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    names = graph_names(model, tables().profiles[profile])
    assert set(names.nodes) == {"Conv_0", "act", "Sigmoid_1"}
    assert names.data == ("x",) and names.consts == {const}
    assert "Conv2D" in names.ascend["Conv"] and names.tensors == {"c", "r", "y"}
