"""ATC's pre-check report (atc --mode=3, check_result.json): keys, types, order, causes, synthetic nodes."""

from __future__ import annotations

import json
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.atc.precheck import EXTRA_KEY, precheck_document, render_precheck, run_precheck
from atccheck.emit import FORMATS, render
from atccheck.errors import UsageError
from builders import init, make_model, tensor_input
from conftest import SAMPLE_MODELS

ATC_KEYS = ["fail", "name", "op", "pass", "result", "total"]


def conv_model(**kwargs) -> onnx.ModelProto:
    """x -> Conv(w, b) -> Relu -> y, with optional unnamed and duplicate names."""
    conv = helper.make_node("Conv", ["x", "w", "b"], ["c"], name=kwargs.get("conv_name", "conv"))
    relu = helper.make_node("Relu", ["c"], ["y"], name=kwargs.get("relu_name", "relu"))
    weights = [init("w", np.ones((2, 3, 1, 1), np.float32)), init("b", np.zeros(2, np.float32))]
    return make_model([conv, relu], [tensor_input("x", [1, 3, 4, 4])], [tensor_input("y", [1, 2, 4, 4])], weights,
                      opset=kwargs.get("opset", 13))


def doc_of(model, soc="Ascend310P3", cann="8.0"):
    return json.loads(render("atc-precheck", [check(model, soc, cann=cann)]))


def test_format_is_registered():
    assert "atc-precheck" in FORMATS


def test_keys_types_and_order():
    text = render("atc-precheck", [check(conv_model(), "Ascend310P3")])
    doc = json.loads(text)
    keys = list(doc)
    assert keys[:6] == ATC_KEYS and keys[6:] == [EXTRA_KEY]
    assert isinstance(doc["fail"], int) and isinstance(doc["pass"], int) and isinstance(doc["total"], int)
    assert doc["name"] == "" and doc["result"] == "success"
    assert doc["total"] == len(doc["op"]) == doc["pass"] + doc["fail"]
    for op in doc["op"]:
        assert list(op) == ["name", "result", "type"]  # no cause key without causes
        assert all(isinstance(op[k], str) for k in op)


def test_nlohmann_dump_style():
    """2-space indent, ': ' and ',' separators, sorted keys, no trailing newline (dump(2))."""
    text = render("atc-precheck", [check(conv_model(), "Ascend310P3")])
    assert text.startswith('{\n  "fail": 0,\n  "name": "",\n  "op": [\n    {\n      "name": "conv",')
    assert not text.endswith("\n")
    assert all(re.match(r"^( {2})*\S", line) for line in text.splitlines())
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)


def test_synthetic_nodes_follow_the_graph_nodes():
    doc = doc_of(conv_model())
    ops = [(op["name"], op["type"]) for op in doc["op"]]
    assert ops == [
        ("conv", "ai.onnx::13::Conv"),
        ("relu", "ai.onnx::13::Relu"),
        ("x", "Input"),
        ("b_0", "Constant"),  # initializers in name order: b before w
        ("w_1", "Constant"),
    ]


def test_initializer_naming_of_the_9x_parser():
    doc = doc_of(conv_model(), cann="9.0")
    assert [op["name"] for op in doc["op"][-2:]] == ["b_Initializer_0", "w_Initializer_1"]


def test_initializer_listed_as_input_is_not_an_input_node():
    model = conv_model()
    model.graph.input.append(tensor_input("w", [2, 3, 1, 1]))
    doc = doc_of(model)
    assert [op["name"] for op in doc["op"] if op["type"] == "Input"] == ["x"]


def test_unnamed_nodes_count_from_zero_over_unnamed_nodes_only():
    model = conv_model(conv_name="", relu_name="")
    extra = helper.make_node("Identity", ["y"], ["z"], name="named")
    last = helper.make_node("Relu", ["z"], ["out"])
    model.graph.node.extend([extra, last])
    model.graph.output[0].name = "out"
    names = [op["name"] for op in doc_of(model)["op"][:4]]
    assert names == ["Conv_0", "Relu_1", "named", "Relu_2"]


def test_cause_1_for_an_unregistered_type():
    model = conv_model()
    gelu = helper.make_node("Gelu", ["y"], ["g"], name="gelu")
    model.graph.node.append(gelu)
    model.graph.output[0].name = "g"
    doc = doc_of(model)
    op = next(o for o in doc["op"] if o["name"] == "gelu")
    assert op == {"cause": [{"code": 1, "message": "The type is not supported."}], "name": "gelu",
                  "result": "failed", "type": "ai.onnx::13::Gelu"}
    assert list(op["cause"][0]) == ["code", "message"]
    assert doc["result"] == "failed" and doc["fail"] == 1 and doc["pass"] == doc["total"] - 1


def test_cause_1_for_every_node_when_the_opset_is_beyond_the_release():
    doc = doc_of(conv_model(opset=17), cann="6.0")
    graph_ops = [o for o in doc["op"] if o["type"].startswith("ai.onnx")]
    assert graph_ops and all(o["cause"] == [{"code": 1, "message": "The type is not supported."}] for o in graph_ops)
    assert all("cause" not in o for o in doc["op"] if o["type"] in ("Input", "Constant"))


def test_cause_9_for_repeated_names_on_both_nodes_in_atc_order():
    model = conv_model(conv_name="same", relu_name="same")
    model.graph.node[1].op_type = "Gelu"
    doc = doc_of(model)
    first, second = doc["op"][0], doc["op"][1]
    assert [c["code"] for c in first["cause"]] == [9]
    assert [c["code"] for c in second["cause"]] == [9, 1]  # the name is checked before the type
    assert first["cause"][0]["message"] == "The name is repeated in the graph."


def test_input_named_like_a_node_repeats_too():
    model = conv_model(conv_name="x")
    doc = doc_of(model)
    assert [o["name"] for o in doc["op"] if o.get("cause")] == ["x", "x"]


def test_external_data_becomes_file_constant(tmp_path):
    model = conv_model()
    path = tmp_path / "ext.onnx"
    onnx.save(model, str(path), save_as_external_data=True, location="ext.bin", size_threshold=0)
    doc = json.loads(render("atc-precheck", [check(str(path), "Ascend310P3")]))
    assert [o["type"] for o in doc["op"][-2:]] == ["FileConstant", "FileConstant"]
    (path.parent / "ext.bin").unlink()  # the report never needs the weights
    again = json.loads(render("atc-precheck", [check(str(path), "Ascend310P3")]))
    assert again["op"] == doc["op"]


def test_constant_node_with_external_value_is_file_constant():
    model = conv_model()
    const = helper.make_node("Constant", [], ["k"], name="k",
                             value=helper.make_tensor("k", TensorProto.FLOAT, [1], [1.0]))
    const.attribute[0].t.data_location = TensorProto.EXTERNAL
    const.attribute[0].t.ClearField("float_data")
    entry = const.attribute[0].t.external_data.add()
    entry.key, entry.value = "location", "k.bin"
    model.graph.node.insert(0, const)
    ctx = check(model, "Ascend310P3").context
    assert run_precheck(ctx).ops[0].type == "FileConstant"


def test_multiple_opset_imports_stop_at_the_first_standard_node():
    model = conv_model()
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    doc = doc_of(model)
    assert doc["total"] == 0 and "op" not in doc and doc["result"] == "success"
    extra = doc[EXTRA_KEY]
    assert extra["stopped"]["atc_error"] == "E16005" and extra["stopped"]["node"] == "conv"
    assert extra["atc_exit"] == "failed"


def test_domain_without_opset_import_stops_with_e19999_after_recording_earlier_nodes():
    model = conv_model()
    model.graph.node.append(helper.make_node("Foo", ["y"], ["f"], name="foo", domain="com.example"))
    model.graph.output[0].name = "f"
    doc = doc_of(model)
    assert [o["name"] for o in doc["op"]] == ["conv", "relu"]
    assert doc[EXTRA_KEY]["stopped"]["atc_error"] == "E19999"


def test_custom_domain_with_import_is_cause_1(tmp_path):
    path = SAMPLE_MODELS / "custom_op.onnx"
    if not path.is_file():
        pytest.skip(f"missing resource: {path}")
    model = onnx.load(str(path), load_external_data=False)
    del model.opset_import[:]
    model.opset_import.extend([helper.make_opsetid("com.example", 1)])
    ctx = check(model, "Ascend310P3").context
    custom = [op for op in run_precheck(ctx).ops if op.type.startswith("com.example")]
    assert custom and all(op.causes == [1] for op in custom)


def test_graph_without_inputs_writes_an_empty_report():
    node = helper.make_node("Constant", [], ["y"], name="c", value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
    model = make_model([node], [], [tensor_input("y", [1])])
    doc = doc_of(model)
    assert doc == {**{k: v for k, v in doc.items() if k == EXTRA_KEY},
                   "fail": 0, "name": "", "pass": 0, "result": "success", "total": 0}
    assert doc[EXTRA_KEY]["stopped"]["atc_error"] == "E16001"


def test_extra_key_schema():
    report = check(conv_model(), "Ascend910B3", precision_mode="origin")
    extra = precheck_document(report)[EXTRA_KEY]
    assert extra["schema"] == "atccheck.atc_precheck/1"
    assert extra["target"] == {"soc": "Ascend910B3", "cann": "8.0", "precision_mode": "origin"}
    assert set(extra) == {"schema", "tool", "model", "target", "atc_exit", "stopped", "notes", "summary", "findings"}
    assert extra["summary"]["total"] == len(extra["findings"]) == len(report.findings)


def test_one_report_per_file():
    report = check(conv_model(), "Ascend310P3")
    with pytest.raises(UsageError, match="one file per target"):
        render_precheck([report, report])


def test_sample_models_render(shared_models):
    for path in sorted(shared_models.glob("*.onnx")):
        doc = json.loads(render("atc-precheck", [check(str(path), "Ascend310P3")]))
        assert doc["total"] == len(doc.get("op", [])) and list(doc)[:5] == ["fail", "name", "op", "pass", "result"]
