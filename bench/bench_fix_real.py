"""How many real exported models ``atccheck fix --unsafe-fixes`` makes ATC-ready, and what stops the rest.

    python bench/bench_fix_real.py [--soc Ascend310P3] [--cann 8.0] [--only NAME|CLASS,...]
                                   [--atccheck PATH] [--markdown FILE] [--json FILE] [--rebuild]

The models (recipes in bench/real_models.py) are real architectures made on this machine without
network: transformers models built from small configs with random weights, plain PyTorch modules
(YOLOv5-style stem, spatial transformer, einsum attention, STFT front end, GroupNorm block),
exported with torch.onnx.export at opsets 11-23 (legacy and dynamo exporters); copies derived
from them the way users derive them (onnxruntime graph optimisation, onnxruntime quantization,
float64); and the real ONNX files in ../shared/models and the samples in models/. Built models
are cached in bench/out/real/ (git-ignored); ``--rebuild`` makes them again.

For every model, as a user would, with the ``--input-shape`` of its recipe:

1. ``atccheck check MODEL --soc S --cann C --format json``: models with no error here are
   counted apart (nothing to fix).
2. ``atccheck fix MODEL --soc S --cann C --unsafe-fixes --format json -o bench/out/real/fixed/...``
   (with ``--inputs SAMPLE.npz`` for models whose inputs are token ids or states, as a user would).
3. An independent look at the written model: onnxruntime loads it, runs it and the original on the
   same inputs, and the outputs are compared (max abs / rel error).

A model counts as **fixed** when fix exits 0 (no error-severity finding remains), fix's own
verification says "verified", and the written model loads and runs in onnxruntime. The script
prints the share fixed among the models check fails on, per class, and a table of what remains:
rule names of the remaining errors, reverted passes with their reasons, fix's own failures.

Optional dependencies (``pip install -e '.[bench]'`` for transformers and onnxscript, and a CPU
build of PyTorch, installed on its own because a plain ``pip install torch`` may bring a
multi-GB GPU build). Recipes whose dependency is missing are listed as skipped, with what to
install.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import real_models  # noqa: E402

OUT = HERE / "out" / "real"
INSTALL = {
    "torch": "a CPU build of PyTorch, installed on its own (pip install torch==VERSION picking the CPU wheel; a plain "
             "'pip install torch' may bring a multi-GB GPU build)",
    "transformers": "pip install -e '.[bench]'  (transformers)",
    "onnxscript": "pip install -e '.[bench]'  (onnxscript, for torch's dynamo exporter)",
    "onnxruntime": "pip install -e .  (onnxruntime is a dependency of atccheck)",
}


# ---------------------------------------------------------------- building


def missing_modules(recipe: real_models.Recipe) -> list[str]:
    return [m for m in recipe.needs if importlib.util.find_spec(m) is None]


def build(recipe: real_models.Recipe, rebuild: bool) -> tuple[Path | None, str | None]:
    """The model file of ``recipe`` (built if needed), or None and why not."""
    if recipe.source is not None:
        return (recipe.source, None) if recipe.source.exists() else (None, f"{recipe.source} is missing")
    path = OUT / f"{recipe.name}.onnx"
    if path.exists() and not rebuild:  # a cached model needs none of the exporters
        return path, None
    missing = missing_modules(recipe)
    if missing:
        return None, "needs " + "; ".join(INSTALL.get(m, m) for m in missing)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.onnx")
    try:
        recipe.build(tmp)
    except Exception as exc:  # an exporter failing is a result to report, not a crash of the bench
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return None, f"build failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''} " \
                     f"({Path(last.filename).name}:{last.lineno})"
    os.replace(tmp, path)
    return path, None


# ---------------------------------------------------------------- running atccheck


def run_json(argv: list[str], timeout: float) -> tuple[int, dict | None, str]:
    env = dict(os.environ, PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return -1, None, f"timed out after {timeout:.0f} s"
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    err = proc.stderr.strip()
    return proc.returncode, data, err


def last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def errors_of(findings: list[dict]) -> collections.Counter:
    return collections.Counter(f["name"] for f in findings if f.get("severity") == "error")


# ---------------------------------------------------------------- independent look with onnxruntime


def parse_shapes(text: str | None) -> dict[str, list[int]]:
    shapes: dict[str, list[int]] = {}
    for part in (text or "").split(";"):
        if part.strip():
            name, dims = part.rsplit(":", 1)
            shapes[name.strip()] = [int(d) for d in dims.split(",") if d.strip()]
    return shapes


def feeds_for(session, shapes: dict[str, list[int]], given: dict[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    feeds = {}
    kinds = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
             "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(bool)": np.bool_,
             "tensor(int8)": np.int8, "tensor(uint8)": np.uint8}
    for arg in session.get_inputs():
        dtype = kinds.get(arg.type, np.float32)
        if given and arg.name in given:
            feeds[arg.name] = given[arg.name].astype(dtype)
            continue
        shape = shapes.get(arg.name) or [d if isinstance(d, int) and d > 0 else 1 for d in arg.shape]
        if np.issubdtype(dtype, np.floating):
            feeds[arg.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            feeds[arg.name] = np.ones(shape, dtype)
        else:
            feeds[arg.name] = rng.integers(0, 10, shape).astype(dtype)
    return feeds


def compare(original: Path, fixed: Path, shapes: dict[str, list[int]], given) -> str:
    """One line: does onnxruntime load and run the written model, and how far are its outputs from the original's."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        new = ort.InferenceSession(str(fixed), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        return f"LOAD FAILED: {str(exc).splitlines()[0][:200]}"
    try:
        old = ort.InferenceSession(str(original), options, providers=["CPUExecutionProvider"])
        feeds = feeds_for(old, shapes, given)
        ref = old.run(None, feeds)
    except Exception as exc:
        ref = None
        why = str(exc).splitlines()[0][:120]
    try:
        new_feeds = feeds_for(new, shapes, feeds if ref is not None else given)
        out = new.run(None, new_feeds)
    except Exception as exc:
        return f"RUN FAILED: {str(exc).splitlines()[0][:200]}"
    if ref is None:
        return f"runs; original did not run ({why})"
    if len(ref) != len(out):
        return f"runs; {len(out)} outputs vs {len(ref)}"
    abs_err, rel_err = 0.0, 0.0
    for a, b in zip(ref, out):
        a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a64.shape != b64.shape:
            if a64.size != b64.size:
                return f"runs; output shape {b64.shape} vs {a64.shape}"
            b64 = b64.reshape(a64.shape)
        if a64.size:
            diff = np.abs(a64 - b64)
            finite = np.isfinite(diff)
            if not finite.all() and not (np.isnan(a64) == np.isnan(b64)).all():
                return "runs; NaN/inf differ"
            d = float(diff[finite].max()) if finite.any() else 0.0
            abs_err = max(abs_err, d)
            rel_err = max(rel_err, d / max(float(np.abs(a64[np.isfinite(a64)]).max(initial=0.0)), 1e-12))
    return f"runs; max abs {abs_err:.2g}, rel {rel_err:.2g}"


# ---------------------------------------------------------------- one model


def bench_one(recipe, path: Path, atccheck: list[str], soc: str, cann: str, timeout: float, fixed_dir: Path) -> dict:
    row: dict = {"name": recipe.name, "class": recipe.cls, "how": recipe.how, "input_shape": recipe.input_shape,
                 "model": str(path)}
    common = ["--soc", soc, "--cann", cann] + (["--input-shape", recipe.input_shape] if recipe.input_shape else [])
    rc, data, err = run_json(atccheck + ["check", str(path), *common, "--format", "json"], timeout)
    if data is None or rc == 2:
        row.update(outcome="check-failed", reason=f"check exit {rc}: {last_line(err)}")
        return row
    report = data["reports"][0] if "reports" in data else data
    row["before"] = dict(errors_of(report.get("findings", [])))
    row["before_warnings"] = dict(collections.Counter(f["name"] for f in report.get("findings", [])
                                                      if f.get("severity") == "warning"))
    row["before_plain"] = row["before"]
    if recipe.input_shape:  # what a user sees first: check without --input-shape
        _, plain, _ = run_json(atccheck + ["check", str(path), "--soc", soc, "--cann", cann, "--format", "json"],
                               timeout)
        if plain is not None:
            plain_report = plain["reports"][0] if "reports" in plain else plain
            row["before_plain"] = dict(errors_of(plain_report.get("findings", [])))
    if rc == 0 and not row["before"]:
        row.update(outcome="clean", reason="check finds no error with --input-shape"
                   + (" (without it: " + ", ".join(sorted(row["before_plain"])) + ")" if row["before_plain"] else ""))
        return row
    given = recipe.inputs() if recipe.inputs else None
    fixed_dir.mkdir(parents=True, exist_ok=True)
    output = fixed_dir / f"{recipe.name}.atc.onnx"
    for stale in fixed_dir.glob(f"{recipe.name}.atc.onnx*"):
        stale.unlink()
    argv = atccheck + ["fix", str(path), *common, "--unsafe-fixes", "--format", "json", "-o", str(output)]
    if given:
        npz = fixed_dir / f"{recipe.name}.inputs.npz"
        np.savez(npz, **given)
        argv += ["--inputs", str(npz)]
    start = time.perf_counter()
    rc, data, err = run_json(argv, timeout)
    row["fix_seconds"] = round(time.perf_counter() - start, 1)
    row["fix_rc"] = rc
    if data is None:
        row.update(outcome="fix-crashed", reason=f"fix exit {rc}: {last_line(err)}")
        return row
    row["verification"] = (data.get("verification") or {}).get("status")
    row["verification_reason"] = (data.get("verification") or {}).get("reason")
    remaining = data.get("remaining") or []
    row["after"] = dict(errors_of(remaining))
    row["after_warnings"] = dict(collections.Counter(f["name"] for f in remaining if f.get("severity") == "warning"))
    row["remaining"] = [
        {"name": f["name"], "op": f.get("op_type"), "node": f.get("node"), "fix": f.get("fix"),
         "why": (f.get("why") or "")[:400]}
        for f in remaining if f.get("severity") == "error"]
    row["passes"] = [
        {"name": p["name"], "status": p["status"], "round": p.get("round"), "reason": (p.get("reason") or "")[:400],
         "removed": p.get("findings_removed"), "verification": p.get("verification")}
        for p in data.get("passes", []) if p["status"] in ("applied", "reverted")]
    row["written"] = bool(data.get("written"))
    row["ort"] = compare(path, output, parse_shapes(recipe.input_shape), given) if row["written"] and output.exists() \
        else "not written"
    loads = row["ort"].startswith("runs")
    if rc == 0 and row["verification"] == "verified" and loads:
        row["outcome"] = "fixed"
    elif rc == 0:
        row["outcome"] = "error-free, not verified"
        row["reason"] = (f"verification {row['verification']}: {row['verification_reason']}" if row["verification"]
                         != "verified" else f"written model: {row['ort']}")
    elif rc == 1 and row["after"]:
        row["outcome"] = "errors remain"
        row["reason"] = ", ".join(f"{k} x{v}" for k, v in sorted(row["after"].items()))
    elif rc == 1:
        row["outcome"] = "fix-failed"
        why = data.get("onnxruntime_load_error") or data.get("atc_command_error") or last_line(err)
        row["reason"] = f"fix exit 1 with no error finding left (written model: {row['ort']}): {why}"
    else:
        row["outcome"] = "fix-failed"
        row["reason"] = f"fix exit {rc}: {last_line(err)}"
    return row


# ---------------------------------------------------------------- report


def summarize(rows: list[dict], skipped: list[tuple], soc: str, cann: str, label: str) -> str:
    lines = []
    failing = [r for r in rows if r["outcome"] not in ("clean", "check-failed")]
    fixed = [r for r in failing if r["outcome"] == "fixed"]
    share = len(fixed) / len(failing) if failing else 0.0
    lines.append(f"atccheck fix on real models ({label}; {soc}, CANN {cann}, --unsafe-fixes)")
    lines.append("")
    lines.append(f"models run: {len(rows)}; clean before fix: {sum(r['outcome'] == 'clean' for r in rows)}; "
                 f"check could not read: {sum(r['outcome'] == 'check-failed' for r in rows)}; "
                 f"not built: {len(skipped)}")
    lines.append(f"**fixed (error-free, verified, loads in onnxruntime): {len(fixed)} of {len(failing)} models check "
                 f"fails on with their --input-shape = {share:.0%}**")
    plain_failing = [r for r in rows if r["outcome"] != "check-failed" and r.get("before_plain")]
    plain_fixed = [r for r in plain_failing if r["outcome"] in ("fixed", "clean")]
    if plain_failing:
        lines.append(f"counting also the models check fails on only without --input-shape (fix given the shape makes "
                     f"them ready): {len(plain_fixed)} of {len(plain_failing)} = "
                     f"{len(plain_fixed) / len(plain_failing):.0%}")
    lines.append("")
    lines.append("| class | failing | fixed | share |")
    lines.append("|---|---|---|---|")
    by_class = collections.defaultdict(list)
    for r in failing:
        by_class[r["class"]].append(r)
    for cls in real_models.CLASSES:
        group = by_class.get(cls, [])
        if group:
            n = sum(r["outcome"] == "fixed" for r in group)
            lines.append(f"| {cls} | {len(group)} | {n} | {n / len(group):.0%} |")
    lines.append("")
    lines.append("| model | class | errors before | fix exit | verification | errors after | written model in onnxruntime | s |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        before = sum((r.get("before") or {}).values())
        after = ", ".join(f"{k} x{v}" for k, v in sorted((r.get("after") or {}).items())) or "-"
        if r["outcome"] in ("clean", "check-failed", "fix-crashed", "fix-failed"):
            after = f"{r['outcome']}: {r.get('reason', '')}"[:160]
        lines.append(f"| {r['name']} | {r['class']} | {before} | {r.get('fix_rc', '-')} | "
                     f"{r.get('verification') or '-'} | {after} | {r.get('ort', '-')} | {r.get('fix_seconds', '-')} |")
    lines.append("")
    lines.append("What remains, by rule (error findings left after fix, models affected):")
    lines.append("")
    lines.append("| rule | models | findings | models |")
    lines.append("|---|---|---|---|")
    rules: dict[str, list] = collections.defaultdict(list)
    for r in failing:
        for name, count in (r.get("after") or {}).items():
            rules[name].append((r["name"], count))
    for name, hits in sorted(rules.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {name} | {len(hits)} | {sum(c for _, c in hits)} | {', '.join(n for n, _ in hits)} |")
    other = [r for r in failing if r["outcome"] in ("error-free, not verified", "fix-crashed", "fix-failed")]
    if other:
        lines.append("")
        lines.append("Not fixed for another reason:")
        lines.append("")
        for r in other:
            lines.append(f"- {r['name']}: {r['outcome']}: {r.get('reason')}")
    if skipped:
        lines.append("")
        lines.append("Not built:")
        lines.append("")
        for name, why in skipped:
            lines.append(f"- {name}: {why}")
    return "\n".join(lines)


def details(rows: list[dict]) -> str:
    """Per model not fixed: recipe, remaining findings with fix's reason, reverted passes."""
    out = ["## Per model, what fix left (recipes to reproduce)", ""]
    for cls in real_models.CLASSES:
        group = [r for r in rows if r["class"] == cls and r["outcome"] not in ("fixed", "clean")]
        if not group:
            continue
        out.append(f"### {cls}: {real_models.CLASSES[cls]}")
        out.append("")
        for r in group:
            out.append(f"#### {r['name']}: {r['outcome']}")
            out.append(f"- recipe: {r['how']}; --input-shape {r['input_shape'] or '(none)'}")
            if r.get("reason"):
                out.append(f"- reason: {r['reason']}")
            if r.get("verification") and r["verification"] != "verified":
                out.append(f"- verification: {r['verification']}: {r.get('verification_reason')}")
            if r.get("ort"):
                out.append(f"- written model in onnxruntime: {r['ort']}")
            applied = [f"{p['name']}(r{p['round']})" for p in r.get("passes", []) if p["status"] == "applied"]
            if applied:
                out.append(f"- applied: {', '.join(applied)}")
            for p in r.get("passes", []):
                if p["status"] == "reverted":
                    out.append(f"- reverted {p['name']} (round {p['round']}): {p['reason']}")
            seen = set()
            for f in r.get("remaining", []):
                key = (f["name"], f["op"], f["why"])
                if key in seen:
                    continue
                seen.add(key)
                n = sum(1 for g in r["remaining"] if (g["name"], g["op"], g["why"]) == key)
                out.append(f"- remains {f['name']} on {f['op'] or 'model'} x{n} (fix: {f['fix']}): {f['why']}")
            out.append("")
    return "\n".join(out)


def compare_runs(paths: list[Path]) -> str:
    """Side by side: the outcome of every model in several --json runs (one column per run)."""
    runs = [json.loads(p.read_text()) for p in paths]
    short = {"fixed": "fixed", "clean": "clean", "errors remain": "errors", "error-free, not verified": "unverified",
             "fix-failed": "fix failed", "fix-crashed": "fix crashed", "check-failed": "check failed"}
    lines = ["| run | fixed / failing check | share |", "|---|---|---|"]
    for i, run in enumerate(runs, 1):
        failing = [r for r in run["rows"] if r["outcome"] not in ("clean", "check-failed")]
        n = sum(r["outcome"] == "fixed" for r in failing)
        lines.append(f"| {i}: {run['label']} | {n} / {len(failing)} | {n / max(len(failing), 1):.0%} |")
    lines += ["", "| model | class | " + " | ".join(str(i) for i in range(1, len(runs) + 1)) + " |",
              "|---|---|" + "---|" * len(runs)]
    names = list(dict.fromkeys(r["name"] for run in runs for r in run["rows"]))
    by_run = [{r["name"]: r for r in run["rows"]} for run in runs]
    for name in names:
        cells, cls = [], ""
        for rows in by_run:
            r = rows.get(name)
            if r is None:
                cells.append("-")
                continue
            cls = r["class"]
            cell = short.get(r["outcome"], r["outcome"])
            if r["outcome"] == "errors remain":
                cell += ": " + ", ".join(sorted(r.get("after", {})))
            cells.append(cell)
        if all(c == "clean" for c in cells):
            continue
        lines.append(f"| {name} | {cls} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("(models clean in every run are left out)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--soc", default="Ascend310P3")
    parser.add_argument("--cann", default="8.0")
    parser.add_argument("--only", default="", help="comma-separated recipe names or classes")
    parser.add_argument("--atccheck", default=None, help="atccheck executable (default: the one beside this python)")
    parser.add_argument("--label", default=None, help="what is measured, for the report header")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per atccheck command")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the report and details to FILE")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw rows to FILE")
    parser.add_argument("--rebuild", action="store_true", help="export the models again")
    parser.add_argument("--fixed-dir", type=Path, default=OUT / "fixed",
                        help="where fix writes its models (one folder per atccheck version compared)")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--reuse-clean", type=Path, default=None, metavar="JSON",
                        help="take the rows of models that were clean in this earlier --json run instead of checking "
                             "them again (saves time; say so when quoting the figures)")
    parser.add_argument("--compare", type=Path, nargs="+", metavar="JSON",
                        help="print the outcomes of earlier --json runs side by side, and run nothing")
    args = parser.parse_args(argv)
    if args.compare:
        print(compare_runs(args.compare))
        return 0

    exe = args.atccheck or shutil.which("atccheck", path=str(Path(sys.executable).parent)) or shutil.which("atccheck")
    if not exe:
        raise SystemExit("atccheck is not installed beside this python: pip install -e . (or give --atccheck PATH)")
    atccheck = [exe]
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    recipes = [r for r in real_models.recipes(OUT) if not wanted or r.name in wanted or r.cls in wanted]
    to_build = [r for r in recipes if r.source is None and (args.rebuild or not (OUT / f"{r.name}.onnx").exists())]
    missing = sorted({m for r in to_build for m in missing_modules(r)})
    if missing:
        print("optional bench dependencies missing, their recipes are skipped:", file=sys.stderr)
        for m in missing:
            print(f"  {m}: {INSTALL.get(m, 'pip install ' + m)}", file=sys.stderr)
    label = args.label or f"atccheck at {exe}"
    rows, skipped = [], []
    reused = {}
    if args.reuse_clean:
        reused = {r["name"]: r for r in json.loads(args.reuse_clean.read_text())["rows"] if r["outcome"] == "clean"}
        label += f"; rows of models clean in {args.reuse_clean.name} reused"
    for recipe in recipes:
        if recipe.name in reused:
            rows.append(dict(reused[recipe.name], reused=True))
            continue
        start = time.perf_counter()
        path, why = build(recipe, args.rebuild)
        if path is None:
            skipped.append((recipe.name, why))
            print(f"[skip] {recipe.name}: {why}", file=sys.stderr, flush=True)
            continue
        if args.build_only:
            print(f"[built] {recipe.name} ({time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
            continue
        row = bench_one(recipe, path, atccheck, args.soc, args.cann, args.timeout, args.fixed_dir)
        rows.append(row)
        print(f"[{row['outcome']}] {recipe.name} ({time.perf_counter() - start:.1f} s) {row.get('reason') or ''}"[:300],
              file=sys.stderr, flush=True)
    if args.build_only:
        for name, why in skipped:
            print(f"not built: {name}: {why}")
        return 0
    text = summarize(rows, skipped, args.soc, args.cann, label)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n\n" + details(rows) + "\n")
    if args.json:
        args.json.write_text(json.dumps({"label": label, "rows": rows, "skipped": skipped}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
