from __future__ import annotations

import pickle
from pathlib import Path

import onnx
import pytest

import atccheck.batch as batch
from atccheck.batch import UncheckedModel, check_models, discover, summary_table
from atccheck.target import resolve_target
from builders import single_op_model


def clean_model() -> onnx.ModelProto:
    return single_op_model("Relu", [[1, 3]], [1, 3], opset=13)


def failing_model() -> onnx.ModelProto:
    return single_op_model("FindMax", [[4, 4]], [4], opset=11)  # a custom op in the default domain


@pytest.fixture
def three_models(tmp_path) -> Path:
    """models/ with a clean model, a failing one (in a subfolder) and a corrupt file."""
    root = tmp_path / "models"
    (root / "sub").mkdir(parents=True)
    onnx.save(clean_model(), root / "clean.onnx")
    onnx.save(failing_model(), root / "sub" / "custom.onnx")
    (root / "corrupt.onnx").write_bytes(b"\x08\x07 this is not a protobuf \xff\xff\xff")
    return root


@pytest.fixture
def targets():
    return [resolve_target("Ascend310", "6.0"), resolve_target("Ascend910B3", "6.0")]


def test_discover_walks_folders_and_keeps_files(tmp_path, three_models):
    (three_models / ".cache").mkdir()
    onnx.save(clean_model(), three_models / ".cache" / "hidden.onnx")
    (three_models / "notes.txt").write_text("x")
    empty = tmp_path / "empty"
    empty.mkdir()
    models, unchecked = discover([str(three_models), str(three_models / "clean.onnx"), str(empty), "missing.onnx"])
    assert [Path(m).relative_to(tmp_path).as_posix() if Path(m).is_absolute() else m for m in models] == [
        "models/clean.onnx", "models/corrupt.onnx", "models/sub/custom.onnx", "missing.onnx"]
    assert unchecked == [UncheckedModel(str(empty), "folder holds no .onnx file")]


@pytest.mark.parametrize("jobs", [1, 2])
def test_three_models_one_corrupt(three_models, targets, jobs):
    models, _ = discover([str(three_models)])
    seen = []
    result = check_models(models, targets, jobs=jobs, on_done=lambda model, outcome: seen.append(model))
    assert sorted(seen) == sorted(models)
    assert [(Path(r.model).name, r.target.soc.name) for r in result.reports] == [
        ("clean.onnx", "Ascend310"), ("clean.onnx", "Ascend910B3"),
        ("custom.onnx", "Ascend310"), ("custom.onnx", "Ascend910B3"),
    ]
    assert [r.fails() for r in result.reports] == [False, False, True, True]
    (bad,) = result.unchecked
    assert Path(bad.path).name == "corrupt.onnx" and "not an ONNX model" in bad.problem
    custom = result.reports[2]
    assert [f.name for f in custom.findings] == ["unsupported-op"]
    assert custom.findings[0].data["standard_onnx_op"] is False  # survived the trip between processes


def test_parallel_and_in_process_reports_agree(three_models, targets):
    models, _ = discover([str(three_models)])
    one = check_models(models, targets, jobs=1)
    two = check_models(models, targets, jobs=2)
    assert [r.to_dict() for r in one.reports] == [r.to_dict() for r in two.reports]
    assert one.unchecked == two.unchecked
    assert all(r.context is None for r in two.reports)


def test_matrix_loads_each_model_once(three_models, targets, monkeypatch):
    import atccheck.engine as engine

    calls = []
    real = engine.prepare
    monkeypatch.setattr(engine, "prepare", lambda model, shapes=None: calls.append(model) or real(model, shapes))
    models, _ = discover([str(three_models / "sub")])
    result = check_models(models, targets, keep_context=True)
    assert calls == models and len(result.reports) == 2
    assert all(r.context is not None for r in result.reports)


def test_shapes_that_do_not_fit_a_model_make_it_unchecked(three_models, targets):
    models = [str(three_models / "clean.onnx"), str(three_models / "sub" / "custom.onnx")]
    shapes = {models[0]: "nope:1,3"}
    result = check_models(models, targets, shapes_for=shapes.get)
    assert [Path(u.path).name for u in result.unchecked] == ["clean.onnx"]
    assert "nope" in result.unchecked[0].problem
    assert {Path(r.model).name for r in result.reports} == {"custom.onnx"}


def test_a_bug_in_one_model_does_not_stop_the_others(three_models, targets, monkeypatch):
    import atccheck.engine as engine

    real = engine.prepare

    def flaky(model, shapes=None):
        if model.endswith("clean.onnx"):
            raise RuntimeError("boom")
        return real(model, shapes)

    monkeypatch.setattr(engine, "prepare", flaky)
    models, _ = discover([str(three_models)])
    result = check_models(models, targets)
    problems = {Path(u.path).name: u.problem for u in result.unchecked}
    assert problems["clean.onnx"] == "internal error: RuntimeError: boom"
    assert {Path(r.model).name for r in result.reports} == {"custom.onnx"}


def test_findings_cross_process_boundaries(three_models, targets):
    model = str(three_models / "sub" / "custom.onnx")
    (report,) = batch.check_one(model, targets[:1])
    (sent,) = batch._worker(model, tuple(targets[:1]), None, (), (), None)  # what a worker process returns
    back = pickle.loads(pickle.dumps(sent))
    assert back.findings == report.findings and back.to_dict() == report.to_dict()


def test_summary_table(three_models, targets):
    models, _ = discover([str(three_models)])
    result = check_models(models, targets)
    table = summary_table(result.reports, result.unchecked)
    lines = table.splitlines()
    assert lines[0].split()[:5] == ["model", "soc", "errors", "warnings", "info"]
    assert len(lines) == 1 + 4 + 1 + 1
    assert lines[3].endswith("FAIL") and "custom.onnx" in lines[3]
    assert "NOT CHECKED: not an ONNX model" in lines[5]
    assert lines[-1] == "2 models x 2 chips checked: 2 of 4 fail, 1 could not be checked"


def test_a_model_that_kills_its_worker_process_is_reported_alone(three_models, targets, monkeypatch):
    import crashing_worker

    onnx.save(clean_model(), three_models / "crash.onnx")
    monkeypatch.setattr(batch, "_worker", crashing_worker.worker)
    models, _ = discover([str(three_models)])
    result = check_models(models, targets, jobs=2)
    problems = {Path(u.path).name: u.problem for u in result.unchecked}
    assert problems.keys() == {"crash.onnx", "corrupt.onnx"}
    assert problems["crash.onnx"].startswith("the checking process died")
    assert [Path(r.model).name for r in result.reports] == ["clean.onnx"] * 2 + ["custom.onnx"] * 2


def test_folders_skip_the_models_fix_wrote_but_a_named_one_is_checked(tmp_path, three_models):
    fixed = three_models / "clean.atc.onnx"
    fixed.write_bytes((three_models / "clean.onnx").read_bytes())
    models, _ = discover([str(three_models)])
    assert str(fixed) not in models and str(three_models / "clean.onnx") in models
    models, _ = discover([str(three_models), str(fixed)])
    assert str(fixed) in models


@pytest.mark.parametrize("cpus,jobs,workers", [(2, 16, 2), (2, 2, 2), (4, 0, 4), (1, 3, 1), (8, 3, 3)])
def test_workers_never_outnumber_the_usable_cpus(monkeypatch, cpus, jobs, workers):
    monkeypatch.setattr(batch, "usable_cpus", lambda: cpus)
    assert batch.worker_count(jobs) == workers


def test_usable_cpus_follow_the_affinity_mask(monkeypatch):
    import os

    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("missing resource: os.sched_getaffinity (Linux)")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5})
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert batch.usable_cpus() == 3


def test_check_caps_jobs_at_the_cpus_and_says_so(three_models, monkeypatch):
    from click.testing import CliRunner

    from atccheck.cli.main import main

    monkeypatch.setattr(batch, "usable_cpus", lambda: 2)
    asked = []
    real = batch._check_parallel

    def parallel(models, targets, shapes_for, select, ignore, options, jobs, *rest):
        asked.append(jobs)
        return real(models, targets, shapes_for, select, ignore, options, jobs, *rest)

    monkeypatch.setattr(batch, "_check_parallel", parallel)
    result = CliRunner().invoke(main, ["check", str(three_models), "--soc", "Ascend310P3", "-j", "16"])
    assert asked == [2]
    notes = [line for line in result.stderr.splitlines() if "note:" in line]
    assert notes == ["atccheck: note: -j 16 is more than the 2 CPU(s) this process can use; checking with 2 worker(s)"]
