"""Running one fix pass the way the pipeline does, and judging its result, for the pass tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import onnx

from atccheck.api import check
from atccheck.fixing.inputs import make_inputs
from atccheck.fixing.runtime import ModelSource, check_graph, run_model
from atccheck.numerics import compare
from atccheck.passes.base import FixPass, PassContext, PassResult
from atccheck.target import resolve_target


def report(model: onnx.ModelProto, soc: str = "Ascend310P3", cann: str = "8.0"):
    return check(model, soc=soc, cann=cann)


def named(model: onnx.ModelProto, rule: str, soc: str = "Ascend310P3", cann: str = "8.0") -> list:
    return [f for f in report(model, soc, cann).findings if f.name == rule]


def run_pass(
    pass_cls: type[FixPass],
    model: onnx.ModelProto,
    soc: str = "Ascend310P3",
    cann: str = "8.0",
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    unsafe: bool = False,
    options: Mapping | None = None,
) -> PassResult:
    """Run the pass as the pipeline does: on a copy unless the pass declares it needs none, with the
    findings and context the pipeline would hand it."""
    rep = report(model, soc, cann)
    copy = model
    if pass_cls.copy_input:
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
    ctx = PassContext(
        resolve_target(soc, cann),
        {k: tuple(v) for k, v in (input_shapes or {}).items()},
        tuple(rep.findings),
        unsafe,
        dict(options or {}),
        context=rep.context,
    )
    return pass_cls().run(copy, ctx)


def static_dims(model: onnx.ModelProto, shapes: Mapping[str, Sequence[int]] | None = None) -> dict:
    dims = {}
    init = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in init:
            continue
        if shapes and vi.name in shapes:
            dims[vi.name] = tuple(shapes[vi.name])
        else:
            dims[vi.name] = tuple(d.dim_value if d.HasField("dim_value") else None
                                  for d in vi.type.tensor_type.shape.dim)
    return dims


def max_error(old: onnx.ModelProto, new: onnx.ModelProto, shapes: Mapping[str, Sequence[int]] | None = None,
              atol: float = 0.0, rtol: float = 0.0):
    """Comparison of the two models' onnxruntime outputs on the same seeded inputs."""
    inputs = make_inputs(old, static_dims(old, shapes))
    return compare(run_model(ModelSource(old), inputs), run_model(ModelSource(new), inputs), atol, rtol)


def assert_valid(model: onnx.ModelProto) -> None:
    error = check_graph(model)
    assert error is None, error
    onnx.checker.check_model(model, full_check=True)


def assert_exact_repair(pass_cls: type[FixPass], model: onnx.ModelProto, rule: str) -> PassResult:
    """The pass removes every finding of ``rule``, leaves a valid model with the very same outputs,
    and finds nothing more to do on its own result; returns that result."""
    assert named(model, rule), f"the model shows no {rule} finding to repair"
    result = run_pass(pass_cls, model)
    assert result.modified
    assert named(result.model, rule) == []
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run_pass(pass_cls, result.model).modified  # idempotent
    return result
