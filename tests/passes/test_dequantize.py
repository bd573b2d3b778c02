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


def _qattention_reference(xq, x_scale, x_zero, w, w_scale, w_zero, bias, heads):
    """QAttention as its com.microsoft spec defines it, in numpy: the integer product exactly
    (int64, no saturation), scaled, plus the bias, then softmax(Q K^T / sqrt(d)) V per head."""
    acc = (xq.astype(np.int64) - int(x_zero)) @ (w.astype(np.int64) - int(w_zero))
    qkv = acc.astype(np.float64) * (float(x_scale) * float(w_scale)) + bias.astype(np.float64)
    batch, seq, hidden3 = qkv.shape
    hidden = hidden3 // 3
    size = hidden // heads

    def split(t):
        return t.reshape(batch, seq, heads, size).transpose(0, 2, 1, 3)

    q, k, v = (split(qkv[..., i * hidden:(i + 1) * hidden]) for i in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size)
    prob = np.exp(scores - scores.max(-1, keepdims=True))
    prob /= prob.sum(-1, keepdims=True)
    return (prob @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)


def _dynamic_quantize(x):
    """DynamicQuantizeLinear's uint8 quantization (ONNX spec): range widened to hold 0, round half to even."""
    low, high = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = np.float32((high - low) / 255)
    zero = np.uint8(np.clip(np.rint(-low / scale), 0, 255))
    return np.clip(np.rint(x / scale) + zero, 0, 255).astype(np.uint8), scale, zero


def test_qattention_becomes_the_float_attention():
    """Judged against QAttention's spec computed exactly in numpy, not against onnxruntime's
    kernel: onnxruntime's u8s8 GEMM on x86 CPUs without VNNI sums pairs of products with
    vpmaddubsw, which saturates at int16 (255 * 127 * 2 > 32767), so its QAttention output
    depends on the CPU (cosine 0.9856 against the float result for these weights there,
    1.0000 on a VNNI CPU)."""
    rng = np.random.default_rng(6)
    ms = "com.microsoft"
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="quant_x"),
             helper.make_node("QAttention", ["xq", "w", "b", "xs", "ws", "", "xz", "wz"], ["y"], name="attn",
                              num_heads=2, domain=ms)]
    w = rng.integers(-127, 128, (8, 24)).astype(np.int8)
    b = rng.standard_normal(24).astype(np.float32)
    w_scale, w_zero = np.float32(0.01), np.int8(3)
    inits = [init("w", w), init("b", b), init("ws", np.array(w_scale)), init("wz", np.array(w_zero))]
    model = make_model(nodes, [tensor_input("x", [1, 4, 8])], [tensor_input("y", [1, 4, 8])], inits, opset=13,
                       extra_opsets={ms: 1})
    result = run_pass(Dequantize, model, unsafe=True)
    assert [(n.domain, n.op_type) for n in result.model.graph.node] == [(ms, "Attention")]
    x = rng.standard_normal((1, 4, 8)).astype(np.float32)
    xq, x_scale, x_zero = _dynamic_quantize(x)
    reference = _qattention_reference(xq, x_scale, x_zero, w, w_scale, w_zero, b, heads=2)
    # on an input the quantization represents exactly, the float model computes the spec's value
    on_grid = ((xq.astype(np.float32) - np.float32(x_zero)) * x_scale).astype(np.float32)
    np.testing.assert_allclose(run(result.model, {"x": on_grid}), reference, rtol=1e-4, atol=1e-4)
    # elsewhere it differs by the input's rounding to that grid only
    assert cosine(reference, run(result.model, {"x": x})) > 0.999


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


def test_convinteger_on_weights_quantized_at_run_time_comes_back_as_conv(tmp_path):
    """Paddle's exports hold the weights in Constant nodes, which quantize_dynamic quantizes at run time like
    activations: ConvInteger of two DynamicQuantizeLinear outputs, the scale product a Mul of both dynamic scales."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(4)
    weights = onnx.numpy_helper.from_array(rng.standard_normal((6, 3, 3, 3)).astype(np.float32) * 0.3)
    nodes = [helper.make_node("Constant", [], ["w"], value=weights, name="weights"),
             helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    model = make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 6, 8, 8])], [], opset=13)
    source, target = tmp_path / "float.onnx", tmp_path / "dynamic.onnx"
    onnx.save(model, str(source))
    quantize_dynamic(str(source), str(target), weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv"])
    quantized_model = onnx.load(str(target))
    assert ops(quantized_model)["DynamicQuantizeLinear"] == 2 and ops(quantized_model)["ConvInteger"] == 1
    result = run_pass(Dequantize, quantized_model, unsafe=True)
    assert result.modified, result.notes
    assert not set(ops(result.model)) & HANDLED
    feeds = {"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)}
    assert cosine(run(target, feeds), run(result.model, feeds)) > 0.99


def _integer_output_model(tmp_path: Path) -> tuple[onnx.ModelProto, onnx.TensorProto]:
    """The QOperator model with its last DequantizeLinear removed: it hands its int8 result to the next model of a
    pipeline. Also the zero point of that output."""
    model = onnx.load(str(quantized(tmp_path, "qoperator")))
    graph = model.graph
    last = next(n for n in graph.node if graph.output[0].name in n.output)
    assert last.op_type == "DequantizeLinear"
    graph.node.remove(last)
    for node in graph.node:
        node.output[:] = [graph.output[0].name if o == last.input[0] else o for o in node.output]
    zero = next(t for t in graph.initializer if t.name == last.input[2])
    graph.output[0].type.tensor_type.elem_type = zero.data_type
    return model, zero


def test_an_integer_output_of_an_int8_pipeline_stays_integer_in_registered_ops(tmp_path):
    model, zero = _integer_output_model(tmp_path)
    result = run_pass(Dequantize, model, unsafe=True)
    assert result.modified
    assert not set(ops(result.model)) & HANDLED and not any(n.domain for n in result.model.graph.node)
    assert result.model.graph.output[0].type.tensor_type.elem_type == zero.data_type
    assert any("stays an integer tensor" in note for note in result.notes)
    feeds = {"x": np.random.default_rng(5).standard_normal((1, 3, 16, 16)).astype(np.float32)}
    before, after = run(model, feeds), run(result.model, feeds)
    assert after.dtype == before.dtype
    assert np.abs(before.astype(int) - after.astype(int)).max() <= 2


def test_a_changed_integer_output_is_reported_with_how_much_it_changed():
    ref = [{"q": np.array([3, 4, 5, 6], np.uint8)}]
    new = [{"q": np.array([3, 5, 5, 4], np.uint8)}]
    verdict = compare_cosine(ref, new, 0.99)
    assert not verdict.ok
    assert "2 of 4 elements differ, by at most 2" in verdict.reason


def test_fix_rolling_back_dequantize_on_an_integer_output_says_how_many_values_moved_and_by_how_much(tmp_path):
    """An int8 pipeline's member: requantizing the float result moves some values by a step, integer outputs are
    compared exactly, so the step is rolled back; the report gives the figures, in the step and in what remains."""
    import json
    import re

    from atccheck.emit import fix_renderer

    model, _ = _integer_output_model(tmp_path)
    path = tmp_path / "int8_output.onnx"
    onnx.save(model, str(path))
    outcome = fix(path, soc="Ascend310P3", write=False, unsafe_fixes=True)
    step = [p for p in outcome.passes if p.name == "dequantize"][0]
    assert step.status is PassStatus.REVERTED
    figures = re.compile(r"output 'y' \(int8\) changed: ([0-9,]+) of 10 elements differ, by at most ([0-9]+)")
    found = figures.search(step.reason)
    assert found, step.reason
    assert 1 <= int(found.group(1)) <= 10 and int(found.group(2)) >= 1
    assert figures.search(json.dumps(outcome.to_dict(), allow_nan=False))
    assert figures.search(fix_renderer("text")(outcome))


def test_a_verified_dequantize_shows_the_cosine_of_each_output_and_the_threshold(tmp_path):
    import json

    from atccheck.emit import fix_renderer

    outcome = fix(quantized(tmp_path, "qdq"), soc="Ascend310P3", write=False, unsafe_fixes=True)
    step = [p for p in outcome.passes if p.name == "dequantize"][0]
    assert step.status is PassStatus.APPLIED
    judged = step.to_dict()["judged_by"]
    assert judged["method"] == "cosine" and judged["bound"] == 0.99
    assert set(judged["cosine"]) == {"y"} and 0.99 <= judged["cosine"]["y"] <= 1.0
    v = outcome.to_dict()["verification"]
    assert v["cosine_threshold"] == 0.99 and 0.99 <= v["cosine"]["y"] <= 1.0
    report = fix_renderer("text")(outcome)
    line = next(line for line in report.splitlines() if line.strip().startswith("applied") and "dequantize" in line)
    assert f"cosine y {judged['cosine']['y']:.6f} (threshold 0.99)" in line and "tolerance" not in line
    verification = next(line for line in report.splitlines() if line.startswith("verification:"))
    assert f"cosine y {v['cosine']['y']:.6f} (threshold 0.99)" in verification
    json.dumps(outcome.to_dict(), allow_nan=False)


def _conv_integer_with_int32_bias(dynamic: bool) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """A Conv with bias, quantized into ConvInteger -> Add(int32 bias) -> Cast -> Mul(scales), with the float
    model it came from.

    Static (SparseML's exporter): QuantizeLinear with a constant scale, the bias quantized into a constant
    int32 [1, C, 1, 1], the product rescaled by the constant scale_x * scale_w. Dynamic (onnxruntime's early
    quantizer): DynamicQuantizeLinear, the bias quantized at run time by Div(bias, scale_x * scale_w), Floor,
    Cast to int32 and Reshape, the scale product computed after the ConvInteger."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
    b = rng.standard_normal(4).astype(np.float32)
    w_scale = np.float32(np.abs(w).max() / 127)
    wq = (np.round(w / w_scale) + 128).astype(np.uint8)
    inits = [init("wq", wq), init("w_zero", np.array(128, np.uint8)), init("w_scale", np.array(w_scale))]
    conv_attrs = {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}
    if dynamic:
        nodes = [
            helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "x_scale", "x_zero"], name="quant"),
            helper.make_node("ConvInteger", ["xq", "wq", "x_zero", "w_zero"], ["ci"], name="conv_quant", **conv_attrs),
            helper.make_node("Mul", ["x_scale", "w_scale"], ["scales"], name="scales_mul"),
            helper.make_node("Div", ["b", "scales"], ["b_div"], name="bias_div"),
            helper.make_node("Floor", ["b_div"], ["b_floor"], name="bias_floor"),
            helper.make_node("Cast", ["b_floor"], ["b_q"], name="bias_cast", to=TensorProto.INT32),
            helper.make_node("Reshape", ["b_q", "bias_shape"], ["b_q4"], name="bias_reshape"),
            helper.make_node("Add", ["ci", "b_q4"], ["ci_b"], name="bias_add"),
            helper.make_node("Cast", ["ci_b"], ["ci_f"], name="cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", ["ci_f", "scales"], ["c"], name="rescale"),
        ]
        inits += [init("b", b), init("bias_shape", np.array([1, -1, 1, 1], np.int64))]
    else:
        x_scale = np.float32(4.0 / 255)
        b_q = np.round(b / (x_scale * w_scale)).astype(np.int32).reshape(1, 4, 1, 1)
        nodes = [
            helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"], name="quant"),
            helper.make_node("ConvInteger", ["xq", "wq", "x_zero", "w_zero"], ["ci"], name="conv_quant", **conv_attrs),
            helper.make_node("Add", ["b_q", "ci"], ["ci_b"], name="bias_add"),
            helper.make_node("Cast", ["ci_b"], ["ci_f"], name="cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", ["ci_f", "rescale_scale"], ["c"], name="rescale"),
        ]
        inits += [init("x_scale", np.array(x_scale)), init("x_zero", np.array(128, np.uint8)), init("b_q", b_q),
                  init("rescale_scale", np.array(x_scale * w_scale, np.float32))]
    nodes.append(helper.make_node("Relu", ["c"], ["y"], name="relu"))
    io = ([tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 4, 8, 8])])
    quantized_model = make_model(nodes, *io, inits, opset=13)
    float_model = make_model([helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", **conv_attrs),
                              helper.make_node("Relu", ["c"], ["y"], name="relu")],
                             *io, [init("w", w), init("b", b)], opset=13)
    return quantized_model, float_model


@pytest.mark.parametrize("dynamic", [False, True], ids=["constant-bias", "bias-quantized-at-run-time"])
def test_convinteger_with_an_int32_bias_add_comes_back_as_conv_plus_bias(dynamic):
    quantized_model, float_model = _conv_integer_with_int32_bias(dynamic)
    onnx.checker.check_model(quantized_model, full_check=True)
    result = run_pass(Dequantize, quantized_model, unsafe=True)
    assert result.modified, result.notes
    assert not [note for note in result.notes if "left as is" in note]
    assert not set(ops(result.model)) & HANDLED and ops(result.model)["Conv"] == 1
    onnx.checker.check_model(result.model, full_check=True)
    assert not [f for f in check(result.model, "Ascend310P3").findings if f.severity.name == "ERROR"]
    feeds = {"x": np.random.default_rng(8).uniform(-2, 2, (1, 3, 8, 8)).astype(np.float32)}
    dequantized = run(result.model, feeds)
    assert cosine(run(quantized_model, feeds), dequantized) > 0.999
    # the bias is there: the float Conv with its bias, not without it
    assert cosine(run(float_model, feeds), dequantized) > 0.999
    assert np.abs(run(float_model, feeds) - dequantized).max() < 0.05


def test_matmulinteger_with_an_int32_bias_add_comes_back_as_matmul_plus_bias():
    """SparseML's MatMul export: QuantizeLinear -> MatMulInteger -> Add(int32 bias) -> Cast -> Mul(rescale)."""
    rng = np.random.default_rng(9)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x_scale, w_scale = np.float32(4.0 / 255), np.float32(np.abs(w).max() / 127)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"], name="quant"),
        helper.make_node("MatMulInteger", ["xq", "wq", "x_zero", "w_zero"], ["mi"], name="matmul_quant"),
        helper.make_node("Add", ["mi", "b_q"], ["mi_b"], name="bias_add"),
        helper.make_node("Cast", ["mi_b"], ["mi_f"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["mi_f", "rescale_scale"], ["y"], name="rescale"),
    ]
    inits = [init("x_scale", np.array(x_scale)), init("x_zero", np.array(128, np.uint8)),
             init("wq", (np.round(w / w_scale) + 128).astype(np.uint8)), init("w_zero", np.array(128, np.uint8)),
             init("b_q", np.round(b / (x_scale * w_scale)).astype(np.int32)),
             init("rescale_scale", np.array(x_scale * w_scale, np.float32))]
    model = make_model(nodes, [tensor_input("x", [2, 8])], [tensor_input("y", [2, 4])], inits, opset=13)
    result = run_pass(Dequantize, model, unsafe=True)
    assert result.modified, result.notes
    assert not set(ops(result.model)) & HANDLED and ops(result.model)["MatMul"] == 1
    x = rng.uniform(-2, 2, (2, 8)).astype(np.float32)
    dequantized = run(result.model, {"x": x})
    assert np.abs(dequantized - (x @ w + b)).max() < 0.1
    assert cosine(run(model, {"x": x}), dequantized) > 0.999
