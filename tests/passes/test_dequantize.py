from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.numerics import compare_cosine
from atccheck.passes.dequantize import HANDLED, Dequantize
from builders import init, make_model, tensor_input
from fix_harness import run_pass


def float_net() -> onnx.ModelProto:
    """Conv-Relu-MaxPool-Conv-Sigmoid-Add-pool-MatMul: what the quantizer has a rule for."""
    rng = np.random.default_rng(11)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Sigmoid", ["c2"], ["s2"], name="sig"),
        helper.make_node("Add", ["s2", "p1"], ["a2"], name="add"),
        helper.make_node("GlobalAveragePool", ["a2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flat"),
        helper.make_node("MatMul", ["f", "wm"], ["m"], name="mm"),
        helper.make_node("Add", ["m", "bm"], ["y"], name="bias"),
    ]
    inits = [init("w1", rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3),
             init("b1", rng.standard_normal(8).astype(np.float32) * 0.1),
             init("w2", rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * 0.2),
             init("b2", rng.standard_normal(8).astype(np.float32) * 0.1),
             init("wm", rng.standard_normal((8, 10)).astype(np.float32)),
             init("bm", rng.standard_normal(10).astype(np.float32))]
    return make_model(nodes, [tensor_input("x", [1, 3, 16, 16])], [tensor_input("y", [1, 10])], inits, opset=13)


def quantized(tmp_path: Path, how: str) -> Path:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    source, target = tmp_path / "float.onnx", tmp_path / f"{how}.onnx"
    onnx.save(float_net(), str(source))

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.items = iter([{"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.items, None)

    if how == "dynamic":
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    else:
        quantize_static(str(source), str(target), Reader(),
                        quant_format=QuantFormat.QDQ if how == "qdq" else QuantFormat.QOperator)
    return target


def ops(model: onnx.ModelProto) -> Counter:
    return Counter(n.op_type for n in model.graph.node)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def run(model_or_path, feeds):
    payload = str(model_or_path) if isinstance(model_or_path, Path) else model_or_path.SerializeToString()
    return ort.InferenceSession(payload, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


@pytest.mark.parametrize("how", ["qdq", "qoperator", "dynamic"])
def test_models_from_onnxruntimes_quantizer_come_back_as_float(tmp_path, how):
    path = quantized(tmp_path, how)
    model = onnx.load(str(path))
    assert set(ops(model)) & HANDLED
    result = run_pass(Dequantize, model, unsafe=True)
    assert result.modified
    assert not set(ops(result.model)) & HANDLED and not any(n.domain for n in result.model.graph.node)
    assert any("AMCT" in note for note in result.notes)
    onnx.checker.check_model(result.model, full_check=True)
    assert not [f for f in check(result.model, "Ascend310P3").findings
                if f.location.op_type in HANDLED or f.name == "custom-domain-op"]
    feeds = {"x": np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)}
    assert cosine(run(path, feeds), run(result.model, feeds)) > 0.99
    # the float model it approximates, with the weights it was quantized to
    assert cosine(run(float_net(), feeds), run(result.model, feeds)) > 0.99


def test_a_relu_the_quantizer_folded_into_the_output_range_comes_back(tmp_path):
    model = onnx.load(str(quantized(tmp_path, "qoperator")))
    assert "Relu" not in ops(model)  # the uint8 output range starting at 0 does its work
    result = run_pass(Dequantize, model, unsafe=True).model
    assert ops(result)["Relu"] >= 1
    feeds = {"x": np.random.default_rng(2).standard_normal((1, 3, 16, 16)).astype(np.float32)}
    quant = onnx.load(str(tmp_path / "qoperator.onnx"))
    assert cosine(run(quant, feeds), run(result, feeds)) > 0.99


def test_fix_needs_the_unsafe_flag_and_says_to_rebuild_with_amct(tmp_path):
    path = quantized(tmp_path, "qdq")
    safe = fix(path, soc="Ascend310P3", write=False)
    assert [p.status for p in safe.passes if p.name == "dequantize"] == [PassStatus.SKIPPED]
    assert safe.fails()
    outcome = fix(path, soc="Ascend310P3", write=False, unsafe_fixes=True)
    step = [p for p in outcome.passes if p.name == "dequantize"][0]
    assert step.status is PassStatus.APPLIED and step.verification == "tested"
    assert any("AMCT" in n for n in step.notes)
    assert not outcome.fails() and outcome.verification.status == "verified"


def test_dequantize_of_an_int8_graph_input_is_exact_float_arithmetic():
    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["f"], name="dq", axis=1),
             helper.make_node("Relu", ["f"], ["y"], name="relu")]
    model = make_model(nodes, [tensor_input("q", [2, 3, 4], TensorProto.INT8)], [tensor_input("y", [2, 3, 4])],
                       [init("s", np.array([0.5, 0.25, 2.0], np.float32)), init("z", np.array([1, -3, 0], np.int8))],
                       opset=13)
    result = run_pass(Dequantize, model, unsafe=True)
    assert "DequantizeLinear" not in ops(result.model) and {"Cast", "Sub", "Mul"} <= set(ops(result.model))
    q = np.random.default_rng(0).integers(-128, 128, (2, 3, 4)).astype(np.int8)
    np.testing.assert_array_equal(run(model, {"q": q}), run(result.model, {"q": q}))


def test_softmax_where_and_reduce_mean_written_by_hand():
    ms = "com.microsoft"
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("QLinearSoftmax", ["q", "s", "z", "s_out", "z0"], ["qs"], name="softmax", axis=-1,
                              opset=13, domain=ms),
             helper.make_node("Greater", ["x", "zero"], ["c"], name="positive"),
             helper.make_node("QLinearWhere", ["c", "qs", "s_out", "z0", "q", "s", "z", "s", "z"], ["qw"],
                              name="where", domain=ms),
             helper.make_node("DequantizeLinear", ["qw", "s", "z"], ["y"], name="dq")]
    inits = [init("s", np.array(0.02, np.float32)), init("z", np.array(128, np.uint8)),
             init("s_out", np.array(1 / 255, np.float32)), init("z0", np.array(0, np.uint8)),
             init("zero", np.array(0, np.float32))]
    model = make_model(nodes, [tensor_input("x", [2, 8])], [tensor_input("y", [2, 8])], inits, opset=13,
                       extra_opsets={ms: 1})
    result = run_pass(Dequantize, model, unsafe=True)
    assert {"Softmax", "Where"} <= set(ops(result.model)) and not set(ops(result.model)) & HANDLED
    feeds = {"x": np.random.default_rng(3).uniform(-2, 2, (2, 8)).astype(np.float32)}
    assert cosine(run(model, feeds), run(result.model, feeds)) > 0.99


@pytest.mark.parametrize("opset", [13, 18])
def test_reduce_mean_takes_its_axes_the_way_the_opset_wants(opset):
    # onnxruntime's CPU provider has no QLinearReduceMean kernel: the float result is checked alone
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("QLinearReduceMean", ["q", "s", "z", "s", "z"], ["qm"], name="mean", axes=[1],
                              keepdims=1, domain="com.microsoft"),
             helper.make_node("DequantizeLinear", ["qm", "s", "z"], ["y"], name="dq")]
    model = make_model(nodes, [tensor_input("x", [2, 8])], [tensor_input("y", [2, 1])],
                       [init("s", np.array(0.02, np.float32)), init("z", np.array(128, np.uint8))], opset=opset,
                       extra_opsets={"com.microsoft": 1})
    result = run_pass(Dequantize, model, unsafe=True)
    assert ops(result.model)["ReduceMean"] == 1 and not set(ops(result.model)) & HANDLED
    x = np.random.default_rng(4).uniform(-2, 2, (2, 8)).astype(np.float32)
    np.testing.assert_allclose(run(result.model, {"x": x}), x.mean(axis=1, keepdims=True), rtol=1e-6, atol=1e-6)


def test_what_it_does_not_handle_is_left_with_a_note():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("QLinearConvTranspose", ["q", "s", "z", "w", "s", "z", "s", "z"], ["qc"], name="deconv",
                              kernel_shape=[1, 1], domain="com.microsoft"),
             helper.make_node("DequantizeLinear", ["qc", "s", "z"], ["y"], name="dq")]
    model = make_model(nodes, [tensor_input("x", [1, 1, 4, 4])], [tensor_input("y", [1, 1, 4, 4])],
                       [init("s", np.array(0.1, np.float32)), init("z", np.array(128, np.uint8)),
                        init("w", np.full((1, 1, 1, 1), 130, np.uint8))], opset=13, extra_opsets={"com.microsoft": 1})
    result = run_pass(Dequantize, model, unsafe=True)
    assert "QLinearConvTranspose" in ops(result.model)
    assert any("left as is" in n and "QLinearConvTranspose" in n for n in result.notes)


def test_the_dequantize_step_is_judged_by_cosine_similarity():
    ref = [{"y": np.linspace(-1, 1, 50, dtype=np.float32)}]
    near = [{"y": ref[0]["y"] + np.float32(0.02)}]
    far = [{"y": -ref[0]["y"]}]
    assert compare_cosine(ref, near, 0.99).ok
    bad = compare_cosine(ref, far, 0.99)
    assert not bad.ok and "cosine similarity" in bad.reason
    ints = [{"k": np.array([1, 2], np.int64)}]
    assert not compare_cosine(ints, [{"k": np.array([1, 3], np.int64)}], 0.99).ok


def test_a_real_dynamically_quantized_lstm_model(tmp_path, shared_models):
    source = shared_models / "text2tashkeel_rawi_int8.onnx"
    outcome = fix(source, soc="Ascend310P3", input_shapes="input:1,64", unsafe_fixes=True,
                  output=tmp_path / "rawi.onnx")
    assert not outcome.fails() and outcome.verification.status == "verified"
    written = onnx.load(str(tmp_path / "rawi.onnx"))
    counts = ops(written)
    assert counts["LSTM"] == 2 and not set(counts) & HANDLED
    assert [i.domain for i in written.opset_import] == [""]
    rng = np.random.default_rng(0)
    feeds = {"input": rng.integers(0, 302, (1, 64)).astype(np.int64)}
    assert cosine(run(source, feeds), run(tmp_path / "rawi.onnx", feeds)) > 0.99


def test_qattention_becomes_the_float_attention():
    rng = np.random.default_rng(6)
    ms = "com.microsoft"
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="quant_x"),
             helper.make_node("QAttention", ["xq", "w", "b", "xs", "ws", "", "xz", "wz"], ["y"], name="attn",
                              num_heads=2, domain=ms)]
    inits = [init("w", rng.integers(-127, 128, (8, 24)).astype(np.int8)), init("b", rng.standard_normal(24).astype(np.float32)),
             init("ws", np.array(0.01, np.float32)), init("wz", np.array(0, np.int8))]
    model = make_model(nodes, [tensor_input("x", [1, 4, 8])], [tensor_input("y", [1, 4, 8])], inits, opset=13,
                       extra_opsets={ms: 1})
    result = run_pass(Dequantize, model, unsafe=True)
    assert [(n.domain, n.op_type) for n in result.model.graph.node] == [(ms, "Attention")]
    feeds = {"x": rng.standard_normal((1, 4, 8)).astype(np.float32)}
    assert cosine(run(model, feeds), run(result.model, feeds)) > 0.99


def test_a_rolled_back_dequantize_says_why_and_the_json_report_stays_valid(tmp_path, monkeypatch):
    import json

    from atccheck.numerics import Cosine
    from atccheck.passes import dequantize as module

    monkeypatch.setattr(module.Dequantize, "comparison", Cosine(1.0 + 1e-9))  # no float model can meet it
    outcome = fix(quantized(tmp_path, "qdq"), soc="Ascend310P3", write=False, unsafe_fixes=True)
    step = [p for p in outcome.passes if p.name == "dequantize"][0]
    assert step.status is PassStatus.REVERTED and "cosine similarity" in step.reason
    text = json.dumps(outcome.to_dict(), allow_nan=False)
    assert '"tolerance": "inf"' in text
    from atccheck.emit.fix_text import render as render_text

    assert "tolerance inf" not in render_text(outcome)
