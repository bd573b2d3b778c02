#!/usr/bin/env python3
"""Extract the per-chip precision_reduce lists of the CANN 8.1.RC1 ops-info configs.

Usage::

    python tools/extract_precision_reduce.py [--mirror DIR] [--out FILE]

Reads, from the local mirror of an installed CANN 8.1.RC1 toolkit (a bare git repository),
``opp/built-in/op_impl/ai_core/tbe/config/<family>/aic-<family>-ops-info.json`` for every kernel
family atccheck supports, and writes ``op_tables/curated/precision_reduce.json``: per family, the
AI Core ops whose ``precision_reduce.flag`` is ``"true"`` (white list) and ``"false"`` (black
list); an op without the entry is gray. It also records the cube op list of the same package's
``fe.ini`` (``fp16.op_type``). The generator and the tests read only the written file, never the
mirror; run this again when a new package is mirrored.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = Path("/work/.mirror/leideng+CANN-8.1.RC1/repo")
DEFAULT_OUT = PROJECT / "op_tables" / "curated" / "precision_reduce.json"
REPO = "leideng/CANN-8.1.RC1"
COMMIT = "551ed27c29284929bbdc2239e929ddfedfdf0b8b"
CONFIG = "Ascend/ascend-toolkit/8.1.RC1/opp/built-in/op_impl/ai_core/tbe/config/{family}/aic-{family}-ops-info.json"
FE_INI = "Ascend/ascend-toolkit/8.1.RC1/aarch64-linux/lib64/plugin/opskernel/fe_config/fe.ini"
FAMILIES = ("ascend310", "ascend310b", "ascend310p", "ascend910", "ascend910_93", "ascend910b")
RELEASE = "cann-8.1.RC1"
DESCRIPTION = (
    "precision_reduce lists of the AI Core ops-info configs, per kernel family: the ops whose "
    "precision_reduce.flag is \"true\" (white), \"false\" (black), and how many have none (gray). Entries: release, "
    "family, ops (how many the config lists), white, black, gray. Beside them: what GE makes of the flag "
    "(flag_meaning) and the cube ops of the same package's fe.ini (cube_ops)."
)
GE = "hicann/ge"
GE_COMMIT = "ffdcbc9f7"


def show(mirror: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def cube_ops(mirror: Path) -> tuple[list[str], int]:
    """fe.ini's fp16.op_type list and its line number."""
    for number, line in enumerate(show(mirror, FE_INI).splitlines(), start=1):
        if line.startswith("fp16.op_type="):
            return sorted(line.split("=", 1)[1].strip().split(",")), number
    raise SystemExit("extract_precision_reduce: fe.ini has no fp16.op_type line")


def extract(mirror: Path) -> dict:
    entries = []
    for family in FAMILIES:
        path = CONFIG.format(family=family)
        ops = json.loads(show(mirror, path))
        white, black, gray = [], [], 0
        for op, info in ops.items():
            flag = (info.get("precision_reduce") or {}).get("flag")
            if flag == "true":
                white.append(op)
            elif flag == "false":
                black.append(op)
            elif flag is None:
                gray += 1
            else:
                raise SystemExit(f"extract_precision_reduce: {family} {op}: precision_reduce.flag {flag!r}")
        entries.append({
            "release": RELEASE,
            "family": family,
            "source": f"{REPO}:{path}@{COMMIT[:8]}",
            "ops": len(ops),
            "white": sorted(white),
            "black": sorted(black),
            "gray": gray,
        })
    cubes, line = cube_ops(mirror)
    return {
        "description": DESCRIPTION,
        "generated_by": "tools/extract_precision_reduce.py",
        "flag_meaning": {
            "true": "white",
            "false": "black",
            "absent": "gray",
            "source": (f"{GE}:compiler/engines/nn_engine/opskernel/ops_store/ops_kernel_constants.h@{GE_COMMIT} "
                       "lines 113-114 (kStrPrecisionPolicyMap: \"true\" -> WHITE, \"false\" -> BLACK); "
                       f"{GE}:compiler/engines/nn_engine/opskernel/ops_store/op_kernel_info_constructor.cc@{GE_COMMIT} "
                       "lines 55-56 (PrecisionPolicy defaults to GRAY when the entry is absent)"),
        },
        "cube_ops": {
            "ops": cubes,
            "meaning": "fe.ini fp16.op_type: ops that take float16 first under allow_fp32_to_fp16 (unless kept), "
                       "and float16 input with float32 output under force_fp32 / cube_fp16in_fp32out",
            "source": f"{REPO}:{FE_INI}@{COMMIT[:8]} line {line}",
        },
        "entries": entries,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    doc = extract(args.mirror)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = ", ".join(f"{e['family']} {len(e['white'])}/{len(e['black'])}/{e['gray']}" for e in doc["entries"])
    print(f"wrote {args.out} (white/black/gray: {counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
