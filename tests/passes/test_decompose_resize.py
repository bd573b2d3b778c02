from __future__ import annotations

import itertools

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from atccheck.passes._interpolation import AxisResize, axis_matrix
from atccheck.passes.decompose_resize import DecomposeResize
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, named, run_pass

ort.set_default_logger_severity(4)


def resize_model(shape_in, shape_out, opset=19, scales=None, roi=None, **attrs):
    if roi is None and opset < 13:
        roi = []  # roi is not optional before opset 13
    inputs = ["x", "roi" if roi is not None else "", "scales" if scales is not None else "",
              "" if scales is not None else "sizes"]
    while inputs[-1] == "":
        inputs.pop()
    inits = [init("sizes", np.array(shape_out, np.int64))] if scales is None else \
        [init("scales", np.array(scales, np.float32))]
    if scales is None and opset < 13:  # scales is not optional before opset 13 either
        inputs[2] = "no_scales"
        inits.append(init("no_scales", np.zeros(0, np.float32)))
    if roi is not None:
        inits.append(init("roi", np.array(roi, np.float32)))
    nodes = [helper.make_node("Resize", inputs, ["y"], name="resize", **attrs)]
    return make_model(nodes, [tensor_input("x", list(shape_in))], [tensor_input("y", list(shape_out))], inits,
                      opset=opset)


def run(model, feeds):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]


CASES = [
    # mode, coordinate mode, extra attributes, input size, output size
    ("linear", "align_corners", {}, 7, 16),
    ("linear", "half_pixel", {}, 8, 3),
    ("linear", "pytorch_half_pixel", {}, 5, 10),
    ("linear", "asymmetric", {}, 6, 9),
    ("linear", "half_pixel", {"antialias": 1}, 12, 5),
    ("linear", "half_pixel", {"antialias": 1, "exclude_outside": 1}, 12, 5),
    ("cubic", "half_pixel", {}, 5, 13),
    ("cubic", "align_corners", {"cubic_coeff_a": -0.5}, 6, 11),
    ("cubic", "half_pixel", {"exclude_outside": 1}, 9, 4),
    ("cubic", "pytorch_half_pixel", {"antialias": 1}, 16, 6),
    ("nearest", "asymmetric", {"nearest_mode": "floor"}, 5, 10),
    ("nearest", "half_pixel", {"nearest_mode": "round_prefer_floor"}, 9, 4),
    ("nearest", "align_corners", {"nearest_mode": "ceil"}, 4, 9),
    ("nearest", "tf_half_pixel_for_nn", {"nearest_mode": "round_prefer_floor"}, 6, 9),
]


@pytest.mark.parametrize("mode, coordinates, extra, n_in, n_out", CASES)
def test_a_resize_becomes_matmul_with_onnxruntimes_outputs(mode, coordinates, extra, n_in, n_out):
    opset = 11 if coordinates == "tf_half_pixel_for_nn" else 18
    attrs = {"mode": mode, "coordinate_transformation_mode": coordinates, **extra}
    model = resize_model([1, 3, n_in, n_in + 1], [1, 3, n_out, n_out + 2], opset=opset, **attrs)
    result = run_pass(DecomposeResize, model)
    assert result.modified, result.notes
    assert_valid(result.model)
    assert {n.op_type for n in result.model.graph.node} == {"MatMul"}
    feeds = {"x": np.random.default_rng(3).standard_normal((1, 3, n_in, n_in + 1)).astype(np.float32)}
    np.testing.assert_allclose(run(result.model, feeds), run(model, feeds), rtol=1e-5, atol=1e-5)
    assert any(f"{n_out}x{n_in}" in note and "KiB" in note for note in result.notes)


def test_every_mode_matches_onnxs_reference_evaluator():
    """The matrices against onnx's own Resize (numpy reference) on every combination of linear/cubic, coordinate
    mode, exclude_outside and antialias that opset 19 defines, upscaling, downscaling and same size (scales whose products are exact, since the reference
    takes align_corners' output length as input length times scale); nearest against
    onnxruntime, which computes coordinates in float32 as the pass does (the reference evaluator computes some in
    float64, so a coordinate that falls on x.5 in one precision can round the other way in the other)."""
    rng = np.random.default_rng(0)
    compared = 0
    for mode, coordinates, nearest, exclude, antialias, (n_in, n_out) in itertools.product(
            ["nearest", "linear", "cubic"],
            ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
             "tf_crop_and_resize"],
            ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"], [0, 1], [0, 1],
            [(4, 12), (8, 4), (6, 6), (4, 10), (8, 6), (16, 6)]):  # scales exact in float32
        if mode == "nearest" and (exclude or antialias or coordinates == "tf_crop_and_resize"):
            continue  # onnxruntime refuses exclude_outside there, and crops nearest otherwise than the definition
        if mode != "nearest" and nearest != "round_prefer_floor":
            continue  # nearest_mode is read by nearest only
        if mode == "linear" and exclude and not antialias:
            continue  # the definition allows it; kept to what onnxruntime also runs
        roi = [0.0, 0.2, 1.0, 0.9] if coordinates == "tf_crop_and_resize" else None
        model = resize_model([1, n_in], [1, n_out], scales=[1.0, n_out / n_in], roi=roi, mode=mode,
                             coordinate_transformation_mode=coordinates, nearest_mode=nearest, exclude_outside=exclude,
                             antialias=antialias, extrapolation_value=0.0)
        x = rng.standard_normal((1, n_in)).astype(np.float32)
        expected = (run(model, {"x": x}) if mode == "nearest" else ReferenceEvaluator(model).run(None, {"x": x})[0])[0]
        spec = AxisResize(n_in, len(expected), float(np.float32(n_out / n_in)), mode, coordinates, nearest, -0.75,
                          bool(exclude), bool(antialias),
                          (float(np.float32(0.2)), float(np.float32(0.9))) if roi else (0.0, 1.0))
        np.testing.assert_allclose(axis_matrix(spec).matrix @ x[0], expected, atol=1e-5,
                                   err_msg=f"{mode} {coordinates} {nearest} {exclude} {antialias} {n_in}->{n_out}")
        compared += 1
    assert compared > 150


def test_the_findings_that_call_for_it_are_gone():
    model = resize_model([1, 3, 8, 8], [1, 3, 16, 16], opset=13, mode="cubic",
                         coordinate_transformation_mode="align_corners")
    assert named(model, "attr-out-of-range") and named(model, "aicpu-fallback")
    result = run_pass(DecomposeResize, model)
    assert result.modified
    assert not named(result.model, "attr-out-of-range") and not named(result.model, "aicpu-fallback")
    assert not [n for n in result.model.graph.initializer if n.name in ("sizes",)]


def test_tf_crop_and_resize_takes_the_extrapolation_value_outside_the_input():
    model = resize_model([1, 1, 6, 6], [1, 1, 5, 7], opset=13, roi=[0, 0, -0.2, 0.1, 1, 1, 1.3, 0.8],
                         mode="linear", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=5.0)
    result = run_pass(DecomposeResize, model)
    assert result.modified
    x = np.random.default_rng(1).standard_normal((1, 1, 6, 6)).astype(np.float32)
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    assert (expected == 5.0).any()
    np.testing.assert_allclose(run(result.model, {"x": x}), expected, atol=1e-5)


def test_an_axis_other_than_the_last_two_is_left_with_a_note():
    model = resize_model([1, 4, 6, 6], [1, 8, 6, 6], opset=13, mode="linear")
    result = run_pass(DecomposeResize, model)
    assert not result.modified
    assert any("axis 1" in note for note in result.notes)


def test_an_absurd_matrix_is_refused_with_its_size_and_the_reason():
    model = resize_model([1, 1, 4, 4096], [1, 1, 4, 8192], opset=13, mode="cubic")
    result = run_pass(DecomposeResize, model)
    assert not result.modified
    assert any("8192x4096" in note and "4,194,304" in note for note in result.notes)


def test_a_half_pixel_finding_alone_is_left_to_use_pytorch_half_pixel():
    model = resize_model([1, 1, 2, 4, 4], [1, 1, 4, 8, 8], opset=13, mode="nearest",
                         coordinate_transformation_mode="half_pixel")
    findings = named(model, "attr-out-of-range")
    assert findings and all(f.fix.pass_name == "use-pytorch-half-pixel" for f in findings)
    assert not [f for f in findings if f.name in ("aicpu-fallback", "attr-ignored")]
    assert not run_pass(DecomposeResize, model).modified
