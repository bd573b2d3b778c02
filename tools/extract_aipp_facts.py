#!/usr/bin/env python3
"""Extract the AIPP facts that are long lists from the mirrored CANN sources into op_tables/curated/.

Usage::

    python tools/extract_aipp_facts.py [--ge DIR] [--package DIR] [--canndev DIR] [--out DIR] [--check]

It reads, without changing them, three bare git mirrors (see the project brief):

- hicann/ge @ ffdcbc9f7: ``graph_metadef/proto/insert_op.proto`` (the AIPP file's message
  schema) and ``docs/zh/user_guides/atc_tools/AIPP/CSC_config.md`` (the documented color
  conversions, one ``aipp_op`` block per conversion and video standard);
- an installed CANN 8.1.RC1 tree @ 551ed27c: ``aarch64-linux/conf/aipp/*.txt`` (the package's
  own conversion files) and the AIPP kernel's ``Const`` lists in ``aipp_comm.py``;
- Huawei canndev of mid-2022 @ 7d77ce32d: the same ``Const`` lists of the 2022 kernel.

and writes ``aipp_proto.json``, ``aipp_csc.json`` and ``aipp_kernel.json``. The hand-written
facts (``aipp_checks.json``, ``command_files.json``) sit beside them. Neither atccheck nor the
table generator needs the mirrors: the curated files are committed.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from atccheck.atc.textproto import FieldSchema, MessageSchema, parse_text  # noqa: E402

GE_COMMIT = "ffdcbc9f7"
PACKAGE_COMMIT = "551ed27c"
CANNDEV_COMMIT = "7d77ce32d"
PROTO_PATH = "graph_metadef/proto/insert_op.proto"
CSC_DOC = "docs/zh/user_guides/atc_tools/AIPP/CSC_config.md"
PACKAGE_ROOT = "Ascend/ascend-toolkit/8.1.RC1"
PACKAGE_CONF = f"{PACKAGE_ROOT}/aarch64-linux/conf/aipp"
PACKAGE_KERNEL = f"{PACKAGE_ROOT}/opp/built-in/op_impl/ai_core/tbe/impl/aipp_comm.py"
CANNDEV_KERNEL = "ops/built-in/tbe/impl/aipp_comm.py"

SCALARS = {"int32": "int32", "uint32": "uint32", "float": "float", "bool": "bool", "string": "string"}


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def git_ls(repo: Path, commit: str, path: str) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "--name-only", f"{commit}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    return sorted(out.split())


# --------------------------------------------------------------------------- insert_op.proto


def extract_proto(ge: Path) -> dict[str, Any]:
    text = git_show(ge, GE_COMMIT, PROTO_PATH)
    package = re.search(r"^package\s+(\w+);", text, re.M).group(1)  # type: ignore[union-attr]
    messages: dict[str, dict[str, Any]] = {}
    enums: dict[str, dict[str, int]] = {}
    stack: list[tuple[str, str]] = []  # (kind, name)
    # blank out /* ... */ comments, keeping the line count
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("//", 1)[0].strip()
        if not line or (not stack and not line.startswith(("message", "enum"))):
            continue
        opened = re.match(r"^(message|enum)\s+(\w+)\s*\{", line)
        if opened:
            stack.append((opened.group(1), opened.group(2)))
            if opened.group(1) == "message":
                messages[f"{package}.{opened.group(2)}"] = {"line": number, "fields": []}
            else:
                enums[opened.group(2)] = {}
            continue
        if line.startswith("}"):
            stack.pop()
            continue
        kind, name = stack[-1]
        if kind == "enum":
            value = re.match(r"^(\w+)\s*=\s*(-?\d+);", line)
            if value:
                enums[name][value.group(1)] = int(value.group(2))
            continue
        decl = re.match(r"^(repeated\s+)?(\w+)\s+(\w+)\s*=\s*(\d+);", line)
        if decl is None:
            raise SystemExit(f"insert_op.proto line {number}: cannot read {line!r}")
        type_name = decl.group(2)
        entry: dict[str, Any] = {"name": decl.group(3), "number": int(decl.group(4)),
                                 "repeated": bool(decl.group(1)), "line": number}
        if type_name in SCALARS:
            entry["kind"] = SCALARS[type_name]
        elif type_name in enums:
            entry["kind"] = "enum"
            entry["enum"] = type_name
        else:
            entry["kind"] = "message"
            entry["message"] = f"{package}.{type_name}"
        messages[f"{package}.{name}"]["fields"].append(entry)
    return {
        "description": "The AIPP file's message schema: ATC parses --insert_op_conf as domi.InsertNewOps. One "
                       "entry per message (its fields, each with its number, kind and line); 'enums' holds the "
                       "enum values.",
        "source": f"hicann/ge:{PROTO_PATH}@{GE_COMMIT}",
        "generated_by": "tools/extract_aipp_facts.py",
        "root": f"{package}.InsertNewOps",
        "enums": enums,
        "entries": [{"name": name, **message} for name, message in messages.items()],
    }


def schema_of(proto: dict[str, Any]) -> dict[str, MessageSchema]:
    schema = {}
    for message in proto["entries"]:
        name = message["name"]
        fields = {}
        for f in message["fields"]:
            enum = proto["enums"][f["enum"]] if f["kind"] == "enum" else None
            fields[f["name"]] = FieldSchema(f["name"], f["number"], f["kind"], f["repeated"], enum, f.get("message"))
        schema[name] = MessageSchema(name, fields)
    return schema


# --------------------------------------------------------------------------- conversions

MATRIX = [f"matrix_r{r}c{c}" for r in range(3) for c in range(3)]
STANDARDS = ("JPEG", "BT-601NARROW", "BT-601WIDE", "BT-709NARROW", "BT-709WIDE")


def preset_of(op: Any, fields: dict[str, Any]) -> dict[str, Any]:
    def value(name: str) -> Any:
        found = op.last(name)
        return found.value if found is not None else None

    formats = {v: k for k, v in fields["enums"]["InputFormat"].items()}
    matrix = [value(m) for m in MATRIX]
    preset: dict[str, Any] = {
        "input_format": formats[value("input_format")],
        "csc_switch": bool(value("csc_switch")),
        "rbuv_swap_switch": bool(value("rbuv_swap_switch")),
        "ax_swap_switch": bool(value("ax_swap_switch")),
        "matrix": None if all(m is None for m in matrix) else [m or 0 for m in matrix],
    }
    for bias in ("input_bias", "output_bias"):
        values = [value(f"{bias}_{i}") for i in range(3)]
        preset[bias] = None if all(v is None for v in values) else [v or 0 for v in values]
    return preset


def _title(raw: str) -> tuple[str, str]:
    """'YUV420SP\\_U8转RGB' -> ('YUV420SP_U8', 'RGB')."""
    image, _, model = raw.replace("\\_", "_").partition("转")
    return image.strip(), model.strip()


def extract_doc_presets(ge: Path, proto: dict[str, Any]) -> list[dict[str, Any]]:
    schema = schema_of(proto)
    text = git_show(ge, GE_COMMIT, CSC_DOC)
    lines = text.splitlines()
    presets = []
    section: tuple[str, str] | None = None
    standard: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"^## (.+转.+)$", line)
        if heading:
            section, standard = _title(heading.group(1)), None
        bullet = re.match(r"^- 输入数据为(\S+?)(图像|视频)", line)
        if bullet:
            standard = bullet.group(1)
        block_start = None
        body = None
        if line.startswith("```textproto") and section:
            block_start = i + 1
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            body = "\n".join(lines[i + 1:end])
            i = end
        elif re.match(r"^\s*\| aipp_op \{", line) and section:
            block_start = i + 1
            body = line.strip().strip("|").replace("<br>", "\n")
        if body is not None and section is not None:
            parsed = parse_text(body, schema, proto["root"])
            if parsed.error is not None:
                raise SystemExit(f"{CSC_DOC}:{block_start}: {parsed.error.message}")
            (op,) = [f.value for f in parsed.message.fields if f.name == "aipp_op"]  # type: ignore[union-attr]
            presets.append({
                "name": f"{section[0]}->{section[1]}" + (f" {standard}" if standard else ""),
                "image": section[0], "model_image": section[1], "standard": standard,
                **preset_of(op, proto),
                "source": f"hicann/ge:{CSC_DOC}@{GE_COMMIT}", "line": block_start,
            })
        i += 1
    return presets


def extract_package_presets(package: Path, proto: dict[str, Any]) -> list[dict[str, Any]]:
    schema = schema_of(proto)
    presets = []
    for name in git_ls(package, PACKAGE_COMMIT, PACKAGE_CONF):
        if not name.endswith(".txt"):
            continue
        parts = name[:-4].split("_")
        standard = parts[-1] if parts[-1] in STANDARDS else None
        core = parts[:-1] if standard else parts
        image, model_image = "_".join(core[:2]), core[2]
        body = git_show(package, PACKAGE_COMMIT, f"{PACKAGE_CONF}/{name}")
        # The package's files hold the fields of one aipp_op without the enclosing block.
        parsed = parse_text("aipp_op {\n" + body + "\n}", schema, proto["root"])
        if parsed.error is not None:
            raise SystemExit(f"{name}: {parsed.error.message}")
        (op,) = [f.value for f in parsed.message.fields if f.name == "aipp_op"]  # type: ignore[union-attr]
        presets.append({
            "name": f"{image}->{model_image}" + (f" {standard}" if standard else ""),
            "image": image, "model_image": model_image, "standard": standard,
            **preset_of(op, proto),
            "source": f"leideng/CANN-8.1.RC1:{PACKAGE_CONF}/{name}@{PACKAGE_COMMIT}", "line": 1,
            "bare_fields": True,
        })
    return presets


# --------------------------------------------------------------------------- the kernel's lists

KERNEL_CONSTS = ("AIPP_OP_ERROR_CODE", "STC_AIPP_SUPPORT_SOC_VERSION_SET", "DYN_AIPP_SUPPORT_SOC_VERSION_SET",
                 "SUPPORT_IMAGE_FORMAT_MAP", "ODD_CROP_SUPPORT_SOC_VERSION_LIST")


def extract_kernel(repo: Path, commit: str, path: str, release: str, label: str) -> dict[str, Any]:
    text = git_show(repo, commit, path)
    tree = ast.parse(text)
    found: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Const":
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                    key = item.targets[0].id
                    if key in KERNEL_CONSTS:
                        value = ast.literal_eval(item.value)
                        if isinstance(value, dict):
                            value = {k: sorted(v) for k, v in value.items()}
                        elif isinstance(value, tuple):
                            value = sorted(value)
                        found[key] = {"value": value, "line": item.lineno}
    missing = [k for k in KERNEL_CONSTS if k not in found]
    if missing:
        raise SystemExit(f"{path}@{commit}: no {', '.join(missing)} in class Const")
    return {"release": release, "source": f"{label}:{path}@{commit}", **found}


# --------------------------------------------------------------------------- main


def build(ge: Path, package: Path, canndev: Path) -> dict[str, str]:
    proto = extract_proto(ge)
    presets = extract_doc_presets(ge, proto) + extract_package_presets(package, proto)
    kernel = {
        "description": "The AIPP kernel's lists, one entry per kernel release: image formats per chip, chips with "
                       "static and dynamic AIPP, chips that crop at odd positions, and the error code its "
                       "compile-time checks raise.",
        "generated_by": "tools/extract_aipp_facts.py",
        "entries": [
            extract_kernel(package, PACKAGE_COMMIT, PACKAGE_KERNEL, "cann-8.1.RC1", "leideng/CANN-8.1.RC1"),
            extract_kernel(canndev, CANNDEV_COMMIT, CANNDEV_KERNEL, "canndev-2022-06",
                           "dengguojie/vue-element-admin (Huawei canndev)"),
        ],
    }
    csc = {
        "description": "The documented AIPP color conversions (CSC), one entry per conversion: each aipp_op block "
                       "of the AIPP docs' conversion page and each conversion file the CANN 8.1.RC1 package ships, "
                       "with the image and model formats and video standard its title or file name gives.",
        "generated_by": "tools/extract_aipp_facts.py",
        "note": "The package's files hold bare fields (no 'aipp_op { }' around them): given to ATC as they are, "
                "they do not parse. Where the two sources disagree (RGB888_U8->GRAY: the docs say "
                "rbuv_swap_switch false, the package true), both are kept; the docs' BGR888_U8->GRAY block "
                "equals the package's RGB888_U8_GRAY file.",
        "entries": sorted(presets, key=lambda p: (p["name"], p["source"])),
    }
    return {
        "aipp_proto.json": json.dumps(proto, indent=1, ensure_ascii=False) + "\n",
        "aipp_csc.json": json.dumps(csc, indent=1, ensure_ascii=False) + "\n",
        "aipp_kernel.json": json.dumps(kernel, indent=1, ensure_ascii=False) + "\n",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ge", type=Path, default=Path("/work/.mirror/hicann+ge/repo"))
    parser.add_argument("--package", type=Path, default=Path("/work/.mirror/leideng+CANN-8.1.RC1/repo"))
    parser.add_argument("--canndev", type=Path, default=Path("/work/.mirror/dengguojie+vue-element-admin/repo"))
    parser.add_argument("--out", type=Path, default=PROJECT / "op_tables" / "curated")
    parser.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    args = parser.parse_args(argv)
    built = build(args.ge, args.package, args.canndev)
    if args.check:
        stale = [n for n, t in built.items() if not (args.out / n).is_file() or (args.out / n).read_text() != t]
        for name in stale:
            print(f"stale: op_tables/curated/{name}", file=sys.stderr)
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in built.items():
        (args.out / name).write_text(text, encoding="utf-8")
    print(f"wrote {', '.join(sorted(built))} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
