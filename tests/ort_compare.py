"""Run a model and its rewrite with onnxruntime on the same seeded inputs and compare the outputs."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper


def random_inputs(
    model: onnx.ModelProto, seed: int = 0, shapes: Mapping[str, tuple[int, ...]] | None = None
) -> dict[str, np.ndarray]:
    """Seeded values for every real graph input (float: N(0,1), int: 0..3, bool: coin flips)."""
    rng = np.random.default_rng(seed)
    shapes = dict(shapes or {})
    initializers = {t.name for t in model.graph.initializer}
    feeds: dict[str, np.ndarray] = {}
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        tensor_type = vi.type.tensor_type
        if vi.name in shapes:
            dims = list(shapes[vi.name])
        else:
            dims = []
            for d in tensor_type.shape.dim:
                if not d.HasField("dim_value"):
                    raise ValueError(f"input {vi.name} has a symbolic dim; pass its shape")
                dims.append(d.dim_value)
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        if np.issubdtype(dtype, np.floating):
            feeds[vi.name] = rng.standard_normal(dims).astype(dtype)
        elif dtype == np.bool_:
            feeds[vi.name] = np.asarray(rng.random(dims) < 0.5)
        else:
            feeds[vi.name] = rng.integers(0, 4, size=dims).astype(dtype)
    return feeds


def run(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Outputs by name, with onnxruntime's graph optimizations off (the graph as written is run)."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds))))


def outputs_pair(
    old: onnx.ModelProto,
    new: onnx.ModelProto,
    seed: int = 0,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, reference, rewrite) for every output, on the same seeded inputs."""
    feeds = random_inputs(old, seed, shapes)
    expected = run(old, feeds)
    actual = run(new, feeds)
    assert set(expected) == set(actual), f"outputs differ: {sorted(expected)} vs {sorted(actual)}"
    pairs = []
    for name, ref in expected.items():
        got = actual[name]
        assert got.shape == ref.shape, f"{name}: shape {got.shape} vs {ref.shape}"
        assert got.dtype == ref.dtype, f"{name}: dtype {got.dtype} vs {ref.dtype}"
        pairs.append((name, ref, got))
    return pairs


# A float16 output cannot match closer than its own rounding: allow this many float16 ulps
# of each element's magnitude (onnxruntime computes fused float16 ops in float32).
FLOAT16_ULPS = 4


def assert_same_outputs(
    old: onnx.ModelProto,
    new: onnx.ModelProto,
    tolerance: float,
    seeds: tuple[int, ...] = (0, 1),
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    rtol: float = 0.0,
) -> float:
    """Every output element within ``tolerance + rtol * |old|`` (the pipeline's rule) on seeded inputs."""
    worst = 0.0
    for seed in seeds:
        for name, ref, got in outputs_pair(old, new, seed, shapes):
            if not ref.size:
                continue
            a, b = ref.astype(np.float64), got.astype(np.float64)
            diff = np.abs(a - b)
            allowed = tolerance + rtol * np.abs(a)
            if ref.dtype == np.float16:
                allowed = np.maximum(allowed, FLOAT16_ULPS * float(np.finfo(np.float16).eps) * np.maximum(1.0, np.abs(a)))
            bad = diff > allowed
            assert not bad.any(), (f"{name}: error {diff[bad].max():.3g} beyond tolerance {tolerance:g} + rtol "
                                   f"{rtol:g} (seed {seed})")
            worst = max(worst, float(diff.max()))
    return worst


# --------------------------------------------------------------------------- running a pass


def pass_context(soc: str = "Ascend310P3", cann: str = "8.0", input_shapes=None, findings=(), unsafe: bool = False):
    from atccheck.passes.base import PassContext
    from atccheck.target import resolve_target

    return PassContext(
        target=resolve_target(soc, cann), input_shapes=dict(input_shapes or {}), findings=list(findings), unsafe=unsafe
    )


def apply(pass_cls, model: onnx.ModelProto, ctx):
    """Run a pass on a copy of the model, as the pipeline does."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    return pass_cls().run(copy, ctx)


def assert_rewrite(pass_cls, model: onnx.ModelProto, ctx, shapes=None, seeds: tuple[int, ...] = (0, 1)):
    """The pass contract on one model: it rewrites, the result is valid ONNX, outputs agree
    within the pass tolerance, and a second run changes nothing."""
    result = apply(pass_cls, model, ctx)
    assert result.modified, result.notes
    assert result.notes, "a pass that rewrote something says what"
    onnx.checker.check_model(result.model, full_check=True)
    assert_same_outputs(model, result.model, pass_cls.tolerance, seeds, shapes, pass_cls.rtol)
    again = apply(pass_cls, result.model, ctx)
    assert not again.modified, again.notes
    return result.model


def op_types(model: onnx.ModelProto) -> list[str]:
    """Op types of every node in every graph."""
    found = []

    def walk(graph):
        for node in graph.node:
            found.append(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)

    walk(model.graph)
    return found


def rule_findings(model: onnx.ModelProto, names, soc: str = "Ascend310P3", cann: str = "8.0") -> list[tuple[str, str]]:
    """(rule name, op type) of the findings of these rules that `check` reports for the target."""
    from atccheck.api import check

    wanted = {names} if isinstance(names, str) else set(names)
    return sorted((f.name, f.location.op_type or "") for f in check(model, soc, cann).findings if f.name in wanted)


def opset_domains(model: onnx.ModelProto) -> list[str]:
    return [entry.domain for entry in model.opset_import]


def ort_optimized(model: onnx.ModelProto, level: str = "extended") -> onnx.ModelProto:
    """The model as onnxruntime's graph optimizer saves it at this level ("basic", "extended",
    "all"): how models with com.microsoft fused ops reach users."""
    import os
    import tempfile

    levels = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
              "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
              "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
    options = ort.SessionOptions()
    options.graph_optimization_level = levels[level]
    options.log_severity_level = 3
    with tempfile.TemporaryDirectory() as tmp:
        options.optimized_model_filepath = os.path.join(tmp, "optimized.onnx")
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return onnx.load(options.optimized_model_filepath)
