"""Models for the precision preflight tests: each with a known float16 hazard, or none."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from builders import init, make_model, tensor_input


def layernorm_after_gain(gain: float = 1000.0, width: int = 64, named: bool = True):
    """x * gain, then LayerNorm written out as ops (as exporters before opset 17 leave it).

    With gain 1000 the squared deviations reach ~1e7: inf in float16 at the Pow."""
    rng = np.random.default_rng(1)
    names = ["gain_mul", "mean", "center", "square", "variance", "add_eps", "std", "normalize", "scale", "shift"]
    if not named:
        names = [""] * len(names)
    nodes = [
        helper.make_node("Mul", ["x", "gain"], ["g"], name=names[0]),
        helper.make_node("ReduceMean", ["g"], ["mu"], axes=[-1], name=names[1]),
        helper.make_node("Sub", ["g", "mu"], ["d"], name=names[2]),
        helper.make_node("Pow", ["d", "two"], ["sq"], name=names[3]),
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1], name=names[4]),
        helper.make_node("Add", ["var", "eps"], ["ve"], name=names[5]),
        helper.make_node("Sqrt", ["ve"], ["sd"], name=names[6]),
        helper.make_node("Div", ["d", "sd"], ["nrm"], name=names[7]),
        helper.make_node("Mul", ["nrm", "w"], ["s"], name=names[8]),
        helper.make_node("Add", ["s", "b"], ["y"], name=names[9]),
    ]
    inits = [init("gain", np.full([width], gain, np.float32)), init("two", np.array(2.0, np.float32)),
             init("eps", np.array(1e-5, np.float32)), init("w", rng.standard_normal(width).astype(np.float32)),
             init("b", np.zeros(width, np.float32))]
    return make_model(nodes, [tensor_input("x", [1, 8, width])], [tensor_input("y", [1, 8, width])], inits)


def attention_scores(weight_std: float = 7.5, seq: int = 16, dim: int = 64):
    """softmax(Q K^T / sqrt(d)) V with large activations: Q and K reach a few hundred, so the
    score MatMul passes 65504."""
    rng = np.random.default_rng(2)
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="query"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="key"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="value"),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1], name="key_t"),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("Div", ["scores", "root_d"], ["scaled"], name="scale"),
        helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1, name="softmax"),
        helper.make_node("MatMul", ["probs", "v"], ["y"], name="context"),
    ]
    inits = [init(n, (rng.standard_normal((dim, dim)) * weight_std).astype(np.float32)) for n in ("wq", "wk")]
    inits += [init("wv", (rng.standard_normal((dim, dim)) / np.sqrt(dim)).astype(np.float32)),
              init("root_d", np.array(np.sqrt(dim), np.float32))]
    return make_model(nodes, [tensor_input("x", [1, seq, dim])], [tensor_input("y", [1, seq, dim])], inits)


def long_reduce_sum(length: int = 100_000, offset: float = 1.0):
    """mean(x + offset) written as ReduceSum / N: the sum of 100,000 values near 1 is 1e5 > 65504."""
    nodes = [
        helper.make_node("Add", ["x", "offset"], ["shifted"], name="shift"),
        helper.make_node("ReduceSum", ["shifted", "axes"], ["total"], keepdims=1, name="sum"),
        helper.make_node("Div", ["total", "count"], ["y"], name="mean"),
    ]
    inits = [init("offset", np.array(offset, np.float32)), init("axes", np.array([1], np.int64)),
             init("count", np.array(float(length), np.float32))]
    return make_model(nodes, [tensor_input("x", [1, length])], [tensor_input("y", [1, 1])], inits)


def cancellation(constant: float = 10000.0):
    """(x + c) - c: float16 holds 10000 + x only to a step of 8, so nothing of x survives."""
    nodes = [
        helper.make_node("Add", ["x", "c"], ["xc"], name="add_c"),
        helper.make_node("Sub", ["xc", "c"], ["y"], name="sub_c"),
    ]
    return make_model(nodes, [tensor_input("x", [1, 256])], [tensor_input("y", [1, 256])],
                      [init("c", np.array(constant, np.float32))])


def conv_block():
    """Conv -> Mul/Add (a folded batch norm) -> Relu -> Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm,
    with He-initialised weights: float16 rounding moves its outputs by ~1e-3."""
    rng = np.random.default_rng(3)

    def he(shape):
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Mul", ["c1", "bn_scale"], ["m1"], name="bn_mul"),
        helper.make_node("Add", ["m1", "bn_shift"], ["a1"], name="bn_add"),
        helper.make_node("Relu", ["a1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1, name="fc"),
    ]
    inits = [init("w1", he((16, 3, 3, 3))), init("b1", np.zeros(16, np.float32)),
             init("bn_scale", (1 + 0.1 * rng.standard_normal((1, 16, 1, 1))).astype(np.float32)),
             init("bn_shift", (0.1 * rng.standard_normal((1, 16, 1, 1))).astype(np.float32)),
             init("w2", he((32, 16, 3, 3))), init("wf", he((10, 32))), init("bf", np.zeros(10, np.float32))]
    return make_model(nodes, [tensor_input("x", [1, 3, 32, 32])], [tensor_input("y", [1, 10])], inits)


def endless_loop():
    """x * 2 fed to a Loop with neither trip count nor condition: onnxruntime never ends it."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1, 8])])
    nodes = [helper.make_node("Mul", ["x", "two"], ["d"], name="double"),
             helper.make_node("Loop", ["", "", "d"], ["y"], name="forever", body=body)]
    return make_model(nodes, [tensor_input("x", [1, 8])], [tensor_input("y", [1, 8])],
                      [init("two", np.array(2.0, np.float32))])


def save(model, path):
    import onnx

    onnx.save(model, str(path))
    return str(path)


FLOAT = TensorProto.FLOAT
