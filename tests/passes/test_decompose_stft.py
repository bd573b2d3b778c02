from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_stft import DecomposeStft
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeStft


def stft_model(length=64, step=16, frame=32, window="hann", onesided=1, channels=1, frame_length_input=True,
               batch=2):
    """STFT of x [batch, length, channels] (channels 0: x is [batch, length], as torch exports it)."""
    inits = [init("step", np.array(step, np.int64))]
    names = ["x", "step", "", ""]
    if window == "hann":
        inits.append(init("w", (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame) / frame)).astype(np.float32)))
        names[2] = "w"
    if frame_length_input:
        inits.append(init("n", np.array(frame, np.int64)))
        names[3] = "n"
    while names and not names[-1]:
        names.pop()
    bins = frame // 2 + 1 if onesided else frame
    frames = 1 + (length - frame) // step
    node = helper.make_node("STFT", names, ["y"], name="stft", onesided=onesided)
    return make_model([node], [tensor_input("x", [batch, length, channels] if channels else [batch, length])],
                      [tensor_input("y", [batch, frames, bins, 2])], inits, opset=17)


CASES = {
    "hann-onesided": {}, "two-sided": dict(onesided=0), "no-window": dict(window=None),
    "window-gives-length": dict(frame_length_input=False), "complex": dict(channels=2, onesided=0),
    "odd-frame": dict(frame=25, step=7, length=90), "overlap-none": dict(step=32), "gap": dict(step=40, frame=32),
    "long-frame": dict(length=1200, frame=400, step=160, batch=1), "ragged-end": dict(length=70),
    "2d-signal": dict(channels=0),
}


@pytest.mark.parametrize("kwargs", CASES.values(), ids=CASES.keys())
def test_stft_becomes_framing_and_a_matmul_with_the_dft_basis(kwargs):
    model = stft_model(**kwargs)
    assert ("unsupported-op", "STFT") in rule_findings(model, "unsupported-op")
    new = assert_rewrite(PASS, model, pass_context())
    assert "STFT" not in op_types(new) and "MatMul" in op_types(new) and "Conv" not in op_types(new)
    assert rule_findings(new, "unsupported-op") == []


@pytest.mark.parametrize("kwargs", [{}, dict(channels=2, onesided=0), dict(frame=25, step=7, length=90),
                                    dict(channels=0)], ids=["real", "complex", "odd", "2d-signal"])
def test_dynamic_length_becomes_a_strided_conv(kwargs):
    model = stft_model(**kwargs)
    model.graph.input[0].type.tensor_type.shape.dim[1].dim_param = "samples"
    length, channels = kwargs.get("length", 64), kwargs.get("channels", 1)
    new = assert_rewrite(PASS, model, pass_context(), shapes={"x": (2, length, channels) if channels else (2, length)})
    assert "Conv" in op_types(new) and "MatMul" not in op_types(new)


def test_computed_frame_step_is_left_with_a_note():
    model = stft_model()
    model.graph.input.append(tensor_input("s", [], TensorProto.INT64))
    model.graph.node[0].input[1] = "s"
    result = apply(PASS, model, pass_context())
    assert not result.modified and "frame_step" in result.notes[0]
