"""Peak memory and time of ``atccheck fix`` on an exported LLM of 1.1 billion parameters.

    pip install torch==2.13.0              # a CPU build of PyTorch, on its own
    pip install -e '.[bench]'              # transformers
    python bench/bench_fix_large.py [--build-only] [--atccheck SRC_DIR ...] [--repeats 1] [--kill-at GB]

The model is a ``LlamaForCausalLM`` of TinyLlama-1.1B's dimensions (hidden 2048, 22 layers, 32
heads, 4 key/value heads, intermediate 5632, vocabulary 32000) with seeded random weights, nothing
downloaded, exported once with ``torch.onnx.export`` (the legacy exporter, opset 17, dynamic batch
and sequence) into ``bench/out/tinyllama/`` (git-ignored, reused by later runs). Over 2 GiB, that
exporter keeps every weight in a file of its own beside the model: 4.4 GB in 157 files, as a
user's TinyLlama export looks.

Each measured command runs in a child process, as a user types it::

    atccheck fix bench/out/tinyllama/model.onnx --soc Ascend910B3 \
        --input-shape "input_ids:1,128;attention_mask:1,128" -o bench/out/tinyllama-fixed/model.atc.onnx

and is watched from here: its peak resident set (``ru_maxrss`` from ``wait4``, and VmHWM sampled
while it runs), its wall and CPU time, its exit code, and the temporary files it leaves in its own
``$TMPDIR`` (``bench/out/tmp``) and beside the output. ``--kill-at GB`` stops a child whose
resident set passes that many GB (default 12: the machine is shared, and an unbounded run would
take the others down with it); it is reported as killed, with the size it had reached.
``--atccheck SRC_DIR`` runs the same command from another source tree beside this one, for a
before-and-after (``git archive COMMIT atccheck | tar -x -C DIR && cp -r op_tables DIR/atccheck/``).

The figure to read is peak RSS / weights: **goal at most 1.5**.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
MODEL_DIR = OUT / "tinyllama"
MODEL = MODEL_DIR / "model.onnx"
GOAL = 1.5
# the lines of fix's report the bench repeats: what each pass did, the verdict, the error if any
SHOWN = ("applied", "reverted", "verification", "written", "remaining", "error", "Error", "atccheck:")
# the ``atccheck`` command, from whichever source tree PYTHONPATH names
CLI = "import sys; sys.argv[0] = 'atccheck'; from atccheck.cli.main import main; main()"
SEQ = 128
SHAPES = f"input_ids:1,{SEQ};attention_mask:1,{SEQ}"
SOC = "Ascend910B3"

# TinyLlama-1.1B's dimensions
DIMS = dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
            num_attention_heads=32, num_key_value_heads=4, max_position_embeddings=2048)


def build(path: Path = MODEL) -> Path:
    """Export the model once (the legacy exporter writes each weight in a file of its own past 2 GiB)."""
    if path.exists():
        return path
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(**DIMS, use_cache=False, tie_word_embeddings=False)
    config._attn_implementation = "sdpa"
    with torch.no_grad():
        model = LlamaForCausalLM(config).eval()

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).logits

    ids = torch.randint(0, DIMS["vocab_size"], (1, SEQ))
    mask = torch.ones(1, SEQ, dtype=torch.int64)
    staging = path.parent.with_name(path.parent.name + ".building")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    dynamic = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    with torch.no_grad():
        torch.onnx.export(Logits(), (ids, mask), str(staging / path.name), opset_version=17, dynamo=False,
                          input_names=["input_ids", "attention_mask"], output_names=["logits"],
                          dynamic_axes=dynamic, do_constant_folding=True)
    staging.rename(path.parent)
    return path


def weight_bytes(path: Path) -> int:
    """The bytes of the model's weights: its file and every file beside it."""
    return sum(p.stat().st_size for p in path.parent.iterdir() if p.is_file())


def _rss_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(label: str, command: list[str], env: dict[str, str], kill_at: float, out_dir: Path) -> dict:
    """Run one command, watching its memory; kill it past ``kill_at`` GB. Its own rusage comes from wait4."""
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    tmp = OUT / "tmp"  # the child's own TMPDIR: what it leaves there is what it left behind
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    env = dict(env, TMPDIR=str(tmp))
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True, cwd=OUT)  # not the repo: -c puts the cwd first on sys.path
        peak = {"kb": 0, "killed": False, "at": 0.0}
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                rss = _rss_kb(child.pid, "VmRSS")
                peak["kb"] = max(peak["kb"], _rss_kb(child.pid, "VmHWM"), rss)
                if rss > kill_at * 2**20 and not peak["killed"]:
                    peak["killed"], peak["at"] = True, time.perf_counter() - start
                    child.kill()
                done.wait(0.1)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS and CPU time
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        done.set()
        watcher.join()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    left_tmp = sorted(p.name for p in tmp.iterdir())
    shutil.rmtree(tmp, ignore_errors=True)
    left_out = sorted(p.name for p in out_dir.iterdir() if p.name.startswith("."))
    return {"label": label, "rc": child.returncode, "wall": wall, "peak_kb": max(peak["kb"], usage.ru_maxrss),
            "killed": peak["killed"], "killed_at": peak["at"], "stdout": stdout, "stderr": stderr,
            "left_tmp": left_tmp, "left_out": left_out, "cpu": usage.ru_utime + usage.ru_stime}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--atccheck", action="append", default=[], metavar="SRC_DIR",
                        help="also run atccheck from this source tree (repeatable)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--kill-at", type=float, default=12.0, help="GB of resident memory at which a run is stopped")
    parser.add_argument("--extra", default="", help="more arguments for atccheck fix, space-separated")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    model = build()
    weights = weight_bytes(model)
    files = sum(1 for p in model.parent.iterdir() if p.is_file())
    print(f"model: {model} ({files} files, {weights / 1e9:.2f} GB; built or found in {time.perf_counter() - started:.0f} s)")
    if args.build_only:
        return 0

    trees = [("this tree", str(REPO))] + [(f"from {src}", src) for src in args.atccheck]
    results = []
    for _ in range(args.repeats):
        for label, src in trees:
            env = dict(os.environ, PYTHONPATH=src)
            out_dir = OUT / "tinyllama-fixed"
            command = [sys.executable, "-c", CLI, "fix", str(model), "--soc", SOC,
                       "--input-shape", SHAPES, "-o", str(out_dir / "model.atc.onnx"), *args.extra.split()]
            result = run(label, command, env, args.kill_at, out_dir)
            results.append(result)
            ratio = result["peak_kb"] * 1024 / weights
            state = (f"KILLED at {result['peak_kb'] / 2**20:.1f} GB after {result['killed_at']:.0f} s"
                     if result["killed"] else f"exit {result['rc']}")
            print(f"{label}: {state}; peak RSS {result['peak_kb'] / 2**20:.2f} GiB = {ratio:.2f} x the weights "
                  f"(goal <= {GOAL}); wall {result['wall']:.0f} s, cpu {result['cpu']:.0f} s")
            if result["left_tmp"] or result["left_out"]:
                print(f"  left behind: {result['left_tmp'] + result['left_out']}")
            written = sorted(p for p in out_dir.iterdir())
            if written:
                size = sum(p.stat().st_size for p in written if p.is_file())
                print(f"  written: {len(written)} files, {size / 1e9:.2f} GB: {', '.join(p.name for p in written[:4])}"
                      + (" ..." if len(written) > 4 else ""))
            lines = (result["stdout"] + result["stderr"]).splitlines()
            shown = [line for line in lines if line.lstrip().startswith(SHOWN)] or lines[-12:]
            for line in shown:
                print("  | " + line[:160])
    return 0


if __name__ == "__main__":
    sys.exit(main())
