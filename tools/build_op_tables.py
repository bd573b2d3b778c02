#!/usr/bin/env python3
"""Build ``op_tables/`` from the reference facts gathered from CANN sources and docs.

Usage::

    python tools/build_op_tables.py [--reference DIR] [--out DIR] [--check]

``--reference`` defaults to ``../shared/reference`` next to the project. ``--check``
writes nothing and exits 1 when the committed tables differ from what the facts give.

Every entry written keeps its ``source``: the repository path at a commit or the
hiascend.com page the fact comes from. The policy decisions (which fact wins when two
disagree) live in this file, each next to the code that applies it, with the reason.

The output is deterministic: entries are sorted, no timestamps are written, and the
only input besides the reference files is the ONNX operator schema set of the
installed ``onnx`` package, used to spell op names and to number op inputs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = PROJECT.parent / "shared" / "reference"
DEFAULT_OUT = PROJECT / "op_tables"

REFERENCE_FILES = (
    "cann_onnx_registry.json",
    "ascend_op_kernels.json",
    "onnx_op_spec.json",
    "atc_options.json",
    "atc_error_codes.json",
    "device_memory.json",
)

NOTES_SOURCE = "shared/reference/notes/cann_source.md"

# The op-info directories (kernel families) atccheck supports as targets, per kernel release.
KERNEL_FAMILIES = {
    "cann-8.1.RC1": ("ascend310", "ascend310b", "ascend310p", "ascend910", "ascend910_93", "ascend910b"),
    "canndev-2022-06": ("ascend310", "ascend310b", "ascend310p", "ascend910", "ascend910b"),
}

# Huawei's op pages spell dtypes their own way; tables use ONNX TensorProto names.
DTYPE_NAMES = {
    "float": "float32",
    "float32": "float32",
    "double": "float64",
    "float64": "float64",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "bool",
    "string": "string",
    "complex64": "complex64",
    "complex128": "complex128",
}


# --------------------------------------------------------------------------- helpers


def load(reference: Path, name: str) -> Any:
    return json.loads((reference / name).read_text(encoding="utf-8"))


def digest(reference: Path, name: str) -> str:
    return hashlib.sha256((reference / name).read_bytes()).hexdigest()[:16]


def table(schema: str, description: str, facts: Iterable[str], reference: Path, entries: list, **extra: Any) -> dict:
    return {
        "schema": schema,
        "description": description,
        "generated_by": "tools/build_op_tables.py",
        "facts": [{"file": name, "sha256": digest(reference, name)} for name in sorted(set(facts))],
        **extra,
        "entries": entries,
    }


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


class OnnxNames:
    """Canonical spelling and input numbering of standard ONNX ops (schemas up to opset 18)."""

    def __init__(self) -> None:
        import onnx.defs

        self._schemas: dict[str, Any] = {}
        for schema in onnx.defs.get_all_schemas_with_history():
            if schema.domain not in ("", "ai.onnx") or schema.since_version > 18:
                continue
            known = self._schemas.get(schema.name)
            if known is None or schema.since_version > known.since_version:
                self._schemas[schema.name] = schema
        self._by_lower = {name.lower(): name for name in self._schemas}

    def canonical(self, name: str) -> str | None:
        return self._by_lower.get(name.lower())

    def input_names(self, op: str) -> list[str]:
        schema = self._schemas.get(op)
        return [formal.name for formal in schema.inputs] if schema else []


def canonical_op(name: str, onnx_names: OnnxNames, spelled: dict[str, str]) -> str:
    """The op type a node must carry: ONNX's spelling, else the one a CANN plugin registers."""
    return onnx_names.canonical(name) or spelled.get(name.lower()) or name


# --------------------------------------------------------------------------- registry

# Per-profile facts beyond the registry, each with the record it rests on (field_sources below).
# file_size_error: the code ATC prints for a .onnx file outside (0, INT_MAX] bytes; E19000-E19015
# were renumbered E13000-E13015 (notes/atc_cli.md section on error layouts), in the same release
# line that moved E19010 to E13010 (unregistered_error).
# initializer_node_name: how the parser names the synthetic Constant node of each initializer.
# published_pages (derived from DOC_PROFILES): whether the published 9.0 op pages speak for the profile.
OLD_INITIALIZER_NAME = "{name}_{i}"
NEW_INITIALIZER_NAME = "{name}_Initializer_{i}"
OLD_PARSER = "Ascend/parser@069eb8b:parser/onnx/onnx_parser.cc (GE-old parser: notes/cann_source.md, Sources used)"
NEW_PARSER = "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc; notes/atc_cli.md section 2.1"
FILE_SIZE_OLD = "atc_error_codes.json legacy_and_uncatalogued E19015 (legacy number of E13015); notes/atc_cli.md: E19000-E19015 -> E13000-E13015"
FILE_SIZE_NEW = "atc_error_codes.json codes E13015 (hicann/ge@ffdcbc9f7:base/common/error_registry/error_registry.cc)"
PAGES_SOURCE = "onnx_op_spec.json ops (the CANN 9.0 published pages; tools/build_op_tables.py DOC_PROFILES)"
FIELD_SOURCES = {
    "5.0": {"published_pages": PAGES_SOURCE, "file_size_error": FILE_SIZE_OLD, "initializer_node_name": OLD_PARSER},
    "6.0": {"published_pages": PAGES_SOURCE, "file_size_error": FILE_SIZE_OLD, "initializer_node_name": OLD_PARSER},
    "8.0": {"published_pages": PAGES_SOURCE, "file_size_error": FILE_SIZE_OLD, "initializer_node_name": OLD_PARSER},
    "9.0": {"published_pages": PAGES_SOURCE, "file_size_error": FILE_SIZE_NEW, "initializer_node_name": NEW_PARSER},
}

PROFILES = [
    {
        "id": "5.0",
        "title": "CANN 5.0.x (published list, opset v9-v13)",
        "basis": "docs",
        "kernel_release": "canndev-2022-06",
        "mapping_from": "canndev-2022",
        "unregistered_error": "E19010",
        "single_opset_import": True,
        "input_shape_ranges": False,
        "precision_mode_v2": False,
        "file_size_error": "E19015",
        "initializer_node_name": OLD_INITIALIZER_NAME,
        "note": (
            "Op list of the CANN 5.0.4 commercial docs with ATC's global statement of opsets v9-v13 "
            "(per-op opsets where an old op page was read). Ascend op mapping and kernels come from the "
            "nearest source available, the 2022 canndev tree. An op the list does not mention but the 2022 "
            "source registers (at opsets v9-v13) is kept apart as unverified: the list is silent, not negative."
        ),
        "unverified_basis": "the published 5.0.4 list does not mention it; the 2022 source registers this opset",
        "source": [
            "https://www.hiascend.com/doc_center/source/zh/canncommercial/5046/reference/fwoperatorlist/operatorlist_0071.html",
            "https://www.hiascend.com/document/detail/zh/canncommercial/5046/inferapplicationdev/atctool/atlasatc_16_0164.html",
        ],
    },
    {
        "id": "6.0",
        "title": "CANN 6.0 (2022 source registry, opsets 8-15)",
        "basis": "source",
        "kernel_release": "canndev-2022-06",
        "mapping_from": "canndev-2022",
        "unregistered_error": "E19010",
        "single_opset_import": True,
        "input_shape_ranges": False,
        "precision_mode_v2": False,
        "file_size_error": "E19015",
        "initializer_node_name": OLD_INITIALIZER_NAME,
        "note": "ONNX plugin registrations of the mid-2022 canndev tree (CANN 5.1/6.0 development line).",
        "source": ["dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin@7d77ce32d"],
    },
    {
        "id": "8.0",
        "title": "CANN 8.0 (published per-op opsets, kernels of the 8.1.RC1 package)",
        "basis": "docs",
        "kernel_release": "cann-8.1.RC1",
        "mapping_from": "hicann-2026",
        "unregistered_error": "E19010",
        "single_opset_import": True,
        "input_shape_ranges": True,
        "precision_mode_v2": True,
        "file_size_error": "E19015",
        "initializer_node_name": OLD_INITIALIZER_NAME,
        "note": (
            "Opsets each op page of the published list documents. An opset the list omits but that both the "
            "2022 and the 2026 CANN sources register counts as registered (the source wins over the docs); "
            "one that only the 2026 source registers is kept apart as unverified for this release."
        ),
        "unverified_basis": "only the newer 9.x source registers this opset",
        "source": [
            "https://www.hiascend.com/doc_center/source/zh/canncommercial/800/apiref/aolapi/operatorlist_00176.html",
            "leideng/CANN-8.1.RC1@551ed27c",
        ],
    },
    {
        "id": "9.0",
        "title": "CANN 9.0 (open-source 9.x registry, opsets 8-18)",
        "basis": "source",
        "kernel_release": "cann-8.1.RC1",
        "mapping_from": "hicann-2026",
        "unregistered_error": "E13010",
        "single_opset_import": True,
        "input_shape_ranges": True,
        "precision_mode_v2": True,
        "file_size_error": "E13015",
        "initializer_node_name": NEW_INITIALIZER_NAME,
        "note": (
            "ONNX plugin registrations of the open-source hicann ops repositories (9.x line). Kernel facts are "
            "those of the newest package available, 8.1.RC1."
        ),
        "source": [
            "hicann/ops-nn@e5c3fa932",
            "hicann/ops-math@c41933244",
            "hicann/ops-cv@6ae87653",
            "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc",
        ],
    },
]



def build_profiles(reference: Path) -> list[dict]:
    """PROFILES with the record each per-profile fact rests on; the error codes must be catalogued."""
    errors = load(reference, "atc_error_codes.json")
    known = {item["code"] for item in errors["codes"] + errors["legacy_and_uncatalogued"]}
    profiles = []
    for profile in PROFILES:
        for key in ("unregistered_error", "file_size_error"):
            if profile[key] not in known:
                raise SystemExit(f"build_op_tables: {profile['id']} {key} {profile[key]} is not in atc_error_codes.json")
        profiles.append(dict(profile, published_pages=profile["id"] in DOC_PROFILES, field_sources=dict(sorted(FIELD_SOURCES[profile["id"]].items()))))
    return profiles


OLD_OPSETS = list(range(9, 14))  # ATC 5.0.4 statement: opset v9-v13


def source_registrations(registry: dict, snapshot: str) -> dict[tuple[str, str], list[dict]]:
    """Plugin records of one source snapshot, grouped by (domain, op)."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    for record in registry["snapshots"][snapshot]:
        if not record.get("onnx_op"):
            continue  # keys not of the form domain::opset::Op can never match an ONNX node
        grouped.setdefault((record["onnx_domain"], record["onnx_op"]), []).append(record)
    return grouped


def mapping_of(records: list[dict]) -> list[dict]:
    out = []
    for record in records:
        item = {"opsets": sorted(record["opset_versions"]), "ascend_op": record["ascend_op"]}
        if record.get("expands_to"):
            item["expands_to"] = sorted(record["expands_to"])
        if record.get("experimental"):
            item["experimental"] = True
        item["source"] = record["source"]
        out.append(item)
    return sorted(out, key=lambda m: (m["opsets"], m["ascend_op"], m["source"]))


def opsets_of(records: list[dict]) -> set[int]:
    return {v for record in records for v in record["opset_versions"]}


def build_registry(reference: Path, onnx_names: OnnxNames) -> list[dict]:
    registry = load(reference, "cann_onnx_registry.json")
    spec = load(reference, "onnx_op_spec.json")
    old = source_registrations(registry, "canndev-2022")
    new = source_registrations(registry, "hicann-2026")
    spelled = {op.lower(): op for (_, op) in list(old) + list(new)}
    entries: list[dict] = []

    def add(profile: str, domain: str, op: str, opsets: set[int], mapping: list[dict], source: list[str], **extra) -> None:
        entry = {"profile": profile, "domain": domain, "op": op, "opsets": sorted(opsets)}
        entry.update({k: v for k, v in extra.items() if v is not None})
        entry["ascend"] = mapping
        entry["source"] = sorted(set(source))
        entries.append(entry)

    # 6.0 and 9.0: the source registries themselves.
    for profile, grouped, doc_view in (("6.0", old, None), ("9.0", new, spec["ops"])):
        for (domain, op), records in grouped.items():
            documented = None
            if doc_view is not None and domain == "ai.onnx":
                page = next((p for name, p in doc_view.items() if name.lower() == op.lower()), None)
                documented = sorted(page["opsets"]) if page else []
            add(profile, domain, op, opsets_of(records), mapping_of(records),
                [r["source"] for r in records], documented_opsets=documented)

    # 5.0: the old published list with ATC's global opset statement.
    old_list = spec["old_version_ops"]
    per_op_old = {name.lower(): facts for name, facts in old_list["per_op_old_facts"].items()}
    for doc_name in old_list["ops"]:
        op = canonical_op(doc_name, onnx_names, spelled)
        facts = per_op_old.get(doc_name.lower(), {})
        opsets = set(facts.get("opsets") or OLD_OPSETS) & set(OLD_OPSETS)
        source = [facts.get("url") or old_list["url"]]
        add("5.0", "ai.onnx", op, opsets, mapping_of(old.get(("ai.onnx", op), [])), source,
            documented_opsets=sorted(opsets), doc_name=doc_name)

    # 5.0, ops the list does not mention: the 2022 source registers them, the list is only silent.
    listed = {canonical_op(name, onnx_names, spelled) for name in old_list["ops"]}
    for (domain, op), records in sorted(old.items()):
        unverified = opsets_of(records) & set(OLD_OPSETS)
        if domain != "ai.onnx" or op in listed or not unverified:
            continue
        add("5.0", domain, op, set(), mapping_of(records), [r["source"] for r in records],
            documented_opsets=[], unverified_opsets=sorted(unverified))

    # 8.0: the new published list; the source wins where both sources bracket the release.
    documented: dict[str, tuple[set[int], str, str]] = {}
    for name, page in spec["ops"].items():
        op = canonical_op(name, onnx_names, spelled)
        documented[op] = (set(page["opsets"]), page["url"], page["doc_name"])
    keys = {("ai.onnx", op) for op in documented} | set(old) | set(new)
    for domain, op in sorted(keys):
        doc_opsets, url, doc_name = documented.get(op, (set(), None, None)) if domain == "ai.onnx" else (set(), None, None)
        both = opsets_of(old.get((domain, op), [])) & opsets_of(new.get((domain, op), []))
        only_new = opsets_of(new.get((domain, op), [])) - opsets_of(old.get((domain, op), [])) - doc_opsets
        registered = doc_opsets | both
        unverified = only_new - registered
        if not registered and not unverified:
            continue
        records = new.get((domain, op)) or old.get((domain, op), [])
        source = [url] if url else []
        if both - doc_opsets:
            source += [r["source"] for r in old.get((domain, op), []) + new.get((domain, op), [])]
        if unverified:
            source += [r["source"] for r in new.get((domain, op), [])]
        add("8.0", domain, op, registered, mapping_of(records), source,
            documented_opsets=sorted(doc_opsets) if domain == "ai.onnx" else None,
            source_only_opsets=sorted(both - doc_opsets) or None,
            unverified_opsets=sorted(unverified) or None,
            doc_name=doc_name if doc_name and doc_name != op else None)

    entries.sort(key=lambda e: (e["profile"], e["domain"], e["op"]))
    return entries


# --------------------------------------------------------------------------- kernels


def build_kernels(reference: Path, registry_entries: list[dict]) -> list[dict]:
    kernels = load(reference, "ascend_op_kernels.json")
    wanted = rewrite_targets()
    for entry in registry_entries:
        for mapping in entry["ascend"]:
            wanted.add(mapping["ascend_op"])
            wanted.update(mapping.get("expands_to", ()))
    wanted.discard("PartitionedCall")
    entries = []
    for release, families in KERNEL_FAMILIES.items():
        data = kernels["releases"][release]
        aicpu_ops = data["aicpu_ops"]
        # Host CPU kernels (host_cpu_kernel.json) are listed for the 8.1 package only; None = not known.
        host_cpu_ops = set(data["host_cpu_ops"]) if "host_cpu_ops" in data else None
        for family in families:
            soc = data["socs"][family]
            for op in sorted(wanted):
                info = soc["ops"].get(op)
                aicpu = op in aicpu_ops or bool(info and info.get("aicpu"))
                host_cpu = None if host_cpu_ops is None else op in host_cpu_ops
                if info is None and not aicpu and not host_cpu:
                    continue  # no kernel in any engine's config: absent from the table
                entry = {"release": release, "family": family, "op": op}
                entry["aicore"] = info.get("aicore") if info else None
                entry["aicpu"] = aicpu
                entry["host_cpu"] = host_cpu
                if op in aicpu_ops:
                    # AI CPU configs spell bfloat16 'bf16'
                    entry["aicpu_dtypes"] = sorted({DTYPE_NAMES.get(d, "bfloat16" if d == "bf16" else d)
                                                    for d in aicpu_ops[op].get("dtypes") or []})
                entry["source"] = soc["source"]
                entries.append(entry)
    entries.sort(key=lambda e: (e["release"], e["family"], e["op"]))
    return entries


# --------------------------------------------------------------------------- SoCs

FIXPIPE_SHORT_SOCS = ("Ascend910B", "Ascend910_93", "Ascend310B")  # platform inis listing Intrinsic_fix_pipe_unit_list
NO_DYNAMIC_SHAPE = ("Ascend310", "Ascend310B")  # EZ3002 "Dynamic shape is not supported on this chip!"
BF16_SHORT_SOCS = ("Ascend910B", "Ascend910_93", "Ascend310B")  # bf16 precision modes: A2, A3, 310B
NO_FP32_VADDS = ("Ascend310",)  # Resize nearest H/W capped at MAX_H_W on SoCs without float32 vadds


def build_socs(reference: Path) -> list[dict]:
    options = load(reference, "atc_options.json")
    kernels = load(reference, "ascend_op_kernels.json")
    memory = load(reference, "device_memory.json")
    platforms = kernels["platforms_cann_8_1_RC1"]
    supported_dirs = set(KERNEL_FAMILIES["cann-8.1.RC1"])
    memory_by_family = {
        "Ascend910B": memory["entries"][0],
        "Ascend310P": memory["entries"][1],
        "Ascend310": memory["entries"][2],
        "Ascend910": memory["entries"][3],
    }
    entries = []
    for family in options["soc_versions"]["families"]:
        for name in family["values"]:
            platform = platforms["by_soc_version"].get(name)
            short = platform["short_soc_version"] if platform else family.get("short_soc", name)
            kernel_dir = short.lower()
            if kernel_dir not in supported_dirs:
                continue
            entry: dict[str, Any] = {
                "name": name,
                "product": family["product"],
                "short_soc": short,
                "kernel_family": kernel_dir,
            }
            if platform:
                entry["platform"] = {
                    key: platform[key]
                    for key in ("aic_version", "ai_core_cnt", "vector_core_cnt", "ub_size", "l1_size",
                                "l0_a_size", "l0_b_size", "l0_c_size", "l2_size")
                }
            else:
                entry["platform"] = None
            # Device memory: the platform ini (CANN source) wins over product pages.
            if platform and isinstance(platform.get("memory_size"), int) and platform["memory_size"] > 0:
                entry["memory_bytes"] = platform["memory_size"]
                entry["memory_basis"] = "platform_config memory_size (CANN 8.1.RC1)"
                entry["memory_source"] = platforms["source"].replace("<SoC_version>", name)
            else:
                page = memory_by_family.get(short)
                if page and page.get("memory_gib"):
                    entry["memory_bytes"] = page["memory_gib"] * 2**30
                    entry["memory_basis"] = f"product page ({page['confidence']} confidence)"
                    entry["memory_source"] = page["sources"][0]
                else:
                    entry["memory_bytes"] = None
                    entry["memory_basis"] = "unknown"
                    entry["memory_source"] = page["sources"][0] if page else None
            entry["fixpipe"] = short in FIXPIPE_SHORT_SOCS
            entry["dynamic_shape"] = short not in NO_DYNAMIC_SHAPE
            entry["bf16_precision"] = short in BF16_SHORT_SOCS
            entry["fp32_vadds"] = False if short in NO_FP32_VADDS else None
            entry["gear_max"] = 100
            entry["source"] = sorted(
                set(family.get("sources", []) + options["soc_versions"]["sources"][:1]
                    + ([platforms["source"].replace("<SoC_version>", name)] if platform else [])
                    + [NOTES_SOURCE + " section 7"])
            )
            entries.append(entry)
    entries.sort(key=lambda e: e["name"])
    return entries


# --------------------------------------------------------------------------- op spec


def build_op_spec(reference: Path, onnx_names: OnnxNames, spelled: dict[str, str]) -> list[dict]:
    spec = load(reference, "onnx_op_spec.json")
    entries = []
    for name, page in spec["ops"].items():
        op = canonical_op(name, onnx_names, spelled)
        formal = onnx_names.input_names(op)
        lower_formal = [f.lower() for f in formal]
        inputs = []
        for position, (in_name, info) in enumerate(page["inputs"].items()):
            index = lower_formal.index(in_name.lower()) if in_name.lower() in lower_formal else position
            item: dict[str, Any] = {"name": in_name, "index": index}
            if "dtypes" in info:
                item["dtypes"] = sorted({DTYPE_NAMES[d] for d in info["dtypes"] if d in DTYPE_NAMES})
            for key in ("ranks", "optional", "const_required", "variadic", "note"):
                if key in info:
                    item[key] = info[key]
            inputs.append(item)
        outputs = []
        for out_name, info in page.get("outputs", {}).items():
            item = {"name": out_name}
            if "dtypes" in info:
                item["dtypes"] = sorted({DTYPE_NAMES[d] for d in info["dtypes"] if d in DTYPE_NAMES})
            outputs.append(item)
        entries.append({
            "list": "cann-9.0-docs",
            "op": op,
            "doc_name": page["doc_name"],
            "opsets": sorted(page["opsets"]),
            "custom_op": page["custom_op"],
            "inputs": sorted(inputs, key=lambda i: (i["index"], i["name"])),
            "outputs": outputs,
            "constraints": page.get("constraints", []),
            "source_version": page["source_version"],
            "source": page["url"],
        })
    entries.sort(key=lambda e: (e["list"], e["op"]))
    return entries


# --------------------------------------------------------------------------- attribute limits

# Published constraints that the CANN source contradicts. The source wins; the doc fact is
# kept in the table as superseded, with the reason, so a reader sees both.
SUPERSEDED = {
    ("Conv", "group"): (
        "the Conv plugin passes group through to the Ascend conv op (conv_onnx_plugin.cpp, conv_plugin.cc); "
        "the page itself also describes channel divisibility by group"
    ),
    ("Conv", "strides"): (
        "conv_compute.py: in static shape a stride above STRIDE_MAX takes the slow l0a_dma path instead of "
        "failing; kernel-out-of-range reports it from limits.json"
    ),
    ("Conv", "dilations"): "conv_compute.py: above DILATE_MAX the static build takes the slow l0a_dma path",
    ("Conv", "pads"): "conv_compute.py: above PAD_MAX the static build takes the slow l0a_dma path",
    ("AveragePool", "auto_pad"): (
        "the AveragePool plugin only logs a warning for SAME_LOWER and treats it as SAME; attr-ignored reports it"
    ),
    ("MaxPool", "kernel_shape"): "kernel-out-of-range reports pool windows from limits.json",
    ("AveragePool", "kernel_shape"): "kernel-out-of-range reports pool windows from limits.json",
    ("MaxPool", "strides"): "kernel-out-of-range reports pool strides from limits.json",
    ("AveragePool", "strides"): "kernel-out-of-range reports pool strides from limits.json",
    ("Resize", "nearest_mode"): "the Resize plugin never reads nearest_mode; attr-ignored reports it",
    ("Gemm", "alpha"): "attr-ignored reports Gemm alpha/beta per era from the plugin sources",
    ("Gemm", "beta"): "attr-ignored reports Gemm alpha/beta per era from the plugin sources",
    ("AveragePool", "count_include_pad"): (
        "the AveragePool plugin passes count_include_pad to AvgPoolV2 as its exclusive attribute "
        "(cann_onnx_registry.json attribute_or_rank_dependent_mappings ai.onnx::AveragePool)"
    ),
}

# Published constraints the CANN source contradicts in some profiles only: (op, attr, kind) ->
# (profiles where the source wins, reason). Those profiles are dropped from the page entry
# and kept under superseded_profiles with the reason.
SUPERSEDED_IN_PROFILES = {
    ("Resize", "mode", "enum"): (
        ["9.0"],
        "the 9.x Resize plugin maps cubic to the Resize op (resize_onnx_plugin.cpp); it converts, and its "
        "kernel placement is reported by aicpu-fallback",
    ),
}

# Facts from the CANN plugin sources, per era (profiles), beyond the published pages.
SOURCE_ATTR_LIMITS = [
    {
        "op": "Resize", "attr": "mode", "kind": "enum", "values": ["linear", "nearest"],
        "profiles": ["5.0", "6.0"], "severity": "error", "effect": "rejected", "atc_error": "E11010",
        "note": "plugin fails with 'Unsupported interpolation mode' for any other mode",
        "source": "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin/resize_plugin.cc@7d77ce32d",
    },
    {
        "op": "Resize", "attr": "mode", "kind": "enum", "values": ["cubic", "linear", "nearest"],
        "profiles": ["9.0"], "severity": "error", "effect": "rejected", "atc_error": "E11010",
        "note": "plugin fails with 'Unsupported interpolation mode' for any other mode",
        "source": "hicann/ops-nn:common/src/framework/resize_onnx_plugin.cpp@e5c3fa932",
    },
    {
        "op": "Upsample", "attr": "mode", "kind": "enum", "values": ["linear", "nearest"],
        "profiles": ["5.0", "6.0", "8.0", "9.0"], "severity": "error", "effect": "rejected", "atc_error": "E11010",
        "note": "'Mode attr of Upsample only supports nearest and linear'",
        "source": "hicann/ops-nn:common/src/framework/resize_onnx_plugin.cpp@e5c3fa932",
    },
    {
        "op": "MaxPool", "attr": "storage_order", "kind": "enum", "values": [0],
        "profiles": ["5.0", "6.0", "8.0", "9.0"], "severity": "error", "effect": "rejected", "atc_error": "E11010",
        "note": "'only support storage_order=0, but 1 is obtained now.'",
        "source": "hicann/ops-nn:common/src/framework/max_pool_onnx_plugin.cpp@e5c3fa932",
    },
    {
        "op": "Pad", "attr": "mode", "kind": "enum", "values": ["constant", "edge", "reflect"],
        "profiles": ["5.0", "6.0", "8.0", "9.0"], "severity": "error", "effect": "rejected", "atc_error": "EZ3002",
        "note": "PadV3 kernel modes are constant, reflect and edge only (impl/dynamic/pad_v3.py)",
        "source": "leideng/CANN-8.1.RC1:opp/built-in/op_impl/ai_core/tbe/impl/dynamic/pad_v3.py@551ed27c",
    },
]

# Profiles the published 9.0 pages speak for. The 9.0 profile is source-built, but an
# attribute limit the source does not contradict still holds there.
DOC_PROFILES = ["8.0", "9.0"]


def build_attr_limits(reference: Path, onnx_names: OnnxNames, spelled: dict[str, str]) -> list[dict]:
    spec = load(reference, "onnx_op_spec.json")
    entries = []
    for name, page in spec["ops"].items():
        op = canonical_op(name, onnx_names, spelled)
        for constraint in page.get("attr_constraints", []):
            attr = constraint["attr"]
            entry: dict[str, Any] = {"op": op, "attr": attr}
            if "enum" in constraint:
                entry["kind"] = "enum"
                entry["values"] = constraint["enum"]
            elif "range" in constraint:
                entry["kind"] = "range"
                entry["min"], entry["max"] = constraint["range"]
            elif constraint.get("supported") is False:
                entry["kind"] = "unsupported"
            elif constraint.get("required"):
                entry["kind"] = "required"
            elif "parity" in constraint:
                entry["kind"] = "parity"
                entry["values"] = [constraint["parity"]]
            elif "length" in constraint:
                entry["kind"] = "length"
                entry["values"] = [constraint["length"]]
            else:
                continue  # axis ranges ([-r, r-1]) are ONNX's own rules; onnx.checker covers them
            if constraint.get("applies_to") == "H,W":
                entry["axes"] = "spatial"
            when = constraint.get("when")
            entry["when_rank"] = int(when[0]) if when else None
            doc_severity = constraint.get("severity")
            entry["severity"] = "warning" if doc_severity in ("perf", "warn") else "error"
            entry["effect"] = "ai-cpu-fallback" if doc_severity == "perf" else "rejected"
            entry["atc_error"] = None
            entry["profiles"] = DOC_PROFILES
            if constraint.get("note"):
                entry["note"] = constraint["note"]
            reason = SUPERSEDED.get((op, attr))
            if reason:
                entry["superseded_by_source"] = reason
            partial = SUPERSEDED_IN_PROFILES.get((op, attr, entry["kind"]))
            if partial:
                dropped, why = partial
                entry["profiles"] = [p for p in entry["profiles"] if p not in dropped]
                entry["superseded_profiles"] = {p: why for p in dropped}
            entry["source"] = page["url"]
            entries.append(entry)
    entries.extend(dict(item, when_rank=item.get("when_rank")) for item in SOURCE_ATTR_LIMITS)
    for entry in entries:
        entry.setdefault("superseded_by_source", None)
    entries.sort(key=lambda e: (e["op"], e["attr"], e["profiles"], e["kind"], e.get("when_rank") or 0, e["source"]))
    return entries


# --------------------------------------------------------------------------- op behaviour facts

GEMM_PLUGIN_OLD = "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin/gemm_plugin.cc@7d77ce32d"
RESIZE_PLUGIN_OLD = "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin/resize_plugin.cc@7d77ce32d"
RESIZE_PLUGIN_NEW = "hicann/ops-nn:common/src/framework/resize_onnx_plugin.cpp@e5c3fa932"
AVGPOOL_PLUGIN_OLD = "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin/average_pool_plugin.cc@7d77ce32d"
AVGPOOL_PLUGIN_NEW = "hicann/ops-nn:common/src/framework/average_pool_onnx_plugin.cpp@e5c3fa932"
FUSION_PASSES = "dengguojie/vue-element-admin:ops/built-in/fusion_pass/graph_fusion/ai_core"
ALL_PROFILES = ["5.0", "6.0", "8.0", "9.0"]
CANNDEV_PROFILES = ["5.0", "6.0"]  # profiles whose op mapping comes from the 2022 canndev plugins
HICANN_PROFILES = ["8.0", "9.0"]  # profiles whose op mapping comes from the 2026 hicann plugins

# Attributes the parser plugins drop or reinterpret, so the model converts but computes
# something else. values = the values that behave as ONNX defines them (the ONNX default
# stands in for an absent attribute); absent = the attribute has an effect only when set;
# when = the fact holds only when another attribute has one of these values.
# PyTorch's nearest upsampling exports Resize asymmetric + floor. The plugin passes asymmetric to
# ResizeNearestNeighborV2 as align_corners=false, half_pixel_centers=false (cann_source.md section 6) and never
# reads nearest_mode; which index that kernel picks with both flags false is not in the reference facts, so
# for this pair the verdict is an info, not a warning.
NEAREST_FLOOR_UNKNOWN = {
    "unverified_when": [{"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}],
    "unverified_note": (
        "the plugin passes asymmetric to ResizeNearestNeighborV2 as align_corners=false, half_pixel_centers=false; "
        "whether that kernel then floors, as ONNX asymmetric + floor does, is not in the reference facts"
    ),
}

IGNORED_ATTRS = [
    {"op": "Gemm", "attr": "alpha", "values": [1.0], "profiles": CANNDEV_PROFILES,
     "note": "the 2022 plugin registers Gemm as MatMulV2 with transA/transB only; alpha is never read",
     "source": GEMM_PLUGIN_OLD},
    {"op": "Gemm", "attr": "beta", "values": [1.0], "profiles": CANNDEV_PROFILES,
     "note": "the 2022 plugin registers Gemm as MatMulV2 with transA/transB only; beta is never read",
     "source": GEMM_PLUGIN_OLD},
    {"op": "Gemm", "attr": "alpha", "values": [1.0], "profiles": ["8.0"],
     "note": "the 9.0.0 commercial page says alpha, beta and C are not supported (community 9.1+ pages and the "
             "9.x source apply them with Muls)",
     "source": "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/atlasoxol_09_0065.html"},
    {"op": "Gemm", "attr": "beta", "values": [1.0], "profiles": ["8.0"],
     "note": "the 9.0.0 commercial page says alpha, beta and C are not supported (community 9.1+ pages and the "
             "9.x source apply them with Muls)",
     "source": "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/atlasoxol_09_0065.html"},
    {"op": "Resize", "attr": "nearest_mode", "values": ["round_prefer_ceil"], "when": {"attr": "mode", "values": ["nearest"]},
     "profiles": CANNDEV_PROFILES,
     "note": "the plugin never reads nearest_mode; the published page supports only round_prefer_ceil",
     "params": NEAREST_FLOOR_UNKNOWN,
     "source": RESIZE_PLUGIN_OLD},
    {"op": "Resize", "attr": "nearest_mode", "values": ["round_prefer_ceil"], "when": {"attr": "mode", "values": ["nearest"]},
     "profiles": HICANN_PROFILES,
     "note": "the plugin never reads nearest_mode; the published page supports only round_prefer_ceil",
     "params": NEAREST_FLOOR_UNKNOWN,
     "source": RESIZE_PLUGIN_NEW},
    {"op": "Resize", "attr": "coordinate_transformation_mode",
     "values": ["align_corners", "asymmetric", "half_pixel", "pytorch_half_pixel"],
     "when": {"attr": "mode", "values": ["nearest"]}, "profiles": CANNDEV_PROFILES,
     "note": "ResizeNearestNeighborV2 gets align_corners for align_corners and half_pixel_centers for half_pixel and "
             "pytorch_half_pixel; every other mode gets neither, which computes as asymmetric",
     "source": RESIZE_PLUGIN_OLD},
    {"op": "Resize", "attr": "coordinate_transformation_mode",
     "values": ["align_corners", "asymmetric", "half_pixel", "pytorch_half_pixel"],
     "when": {"attr": "mode", "values": ["nearest"]}, "profiles": HICANN_PROFILES,
     "note": "ResizeNearestNeighborV2 gets align_corners for align_corners and half_pixel_centers for half_pixel and "
             "pytorch_half_pixel; every other mode gets neither, which computes as asymmetric",
     "source": RESIZE_PLUGIN_NEW},
    {"op": "Resize", "attr": "antialias", "values": [0], "profiles": HICANN_PROFILES,
     "note": "the plugin logs antialias as unsupported and ignores it", "source": RESIZE_PLUGIN_NEW},
    {"op": "Resize", "attr": "keep_aspect_ratio_policy", "values": ["stretch"], "profiles": HICANN_PROFILES,
     "note": "the plugin logs keep_aspect_ratio_policy as unsupported and ignores it", "source": RESIZE_PLUGIN_NEW},
    {"op": "Resize", "attr": "axes", "absent": True, "profiles": HICANN_PROFILES,
     "note": "the plugin logs axes as unsupported and resizes the H and W of a 4-D NCHW tensor", "source": RESIZE_PLUGIN_NEW},
    {"op": "AveragePool", "attr": "auto_pad", "values": ["NOTSET", "SAME_UPPER", "VALID"], "profiles": CANNDEV_PROFILES,
     "note": "SAME_LOWER only logs a warning and is treated as SAME (SAME_UPPER padding)", "source": AVGPOOL_PLUGIN_OLD},
    {"op": "AveragePool", "attr": "auto_pad", "values": ["NOTSET", "SAME_UPPER", "VALID"], "profiles": HICANN_PROFILES,
     "note": "SAME_LOWER only logs a warning and is treated as SAME (SAME_UPPER padding)", "source": AVGPOOL_PLUGIN_NEW},
]

# Published pages: reduce ops whose empty axes are not a full reduction.
EMPTY_AXES_OPS = ("ReduceMax", "ReduceMean", "ReduceMin", "ReduceSum")

# Published pages: constraints on an input (or, "on" an attribute), each stated as a shape
# constraint of the op's page ("says"), by fact kind. The rule gets "input" and "params"; the
# generator stops when a page no longer says it. Lengths in input-shape-required: a number, or
# "C" (axis 1 of input 0).
PAGE_INPUT_CONSTRAINTS = [
    {"kind": "input-shape-required", "op": "PRelu", "input": "slope", "says": "must be 1-D of length 1 or C",
     "params": {"index": 1, "ranks": [1], "lengths": [1, "C"]}},
    {"kind": "negative-indices-rejected", "op": "Gather", "input": "indices",
     "says": "negative index values not supported", "params": {"index": 1}},
    {"kind": "negative-indices-rejected", "op": "ScatterND", "input": "indices",
     "says": "negative index values not supported", "params": {"index": 1}},
    {"kind": "last-axis-step-one", "op": "Slice", "input": "steps", "says": "step on the last axis must be 1",
     "params": {"index": 4, "axes_index": 3}},
    # the value input from opset 11 on, the value attribute before it
    {"kind": "pad-value-zero", "op": "Pad", "input": "constant_value", "on": "mode",
     "says": "constant mode only with constant_value 0", "params": {"index": 2, "attr": "value"}},
]

# Published pages: dtypes rejected under --precision_mode=must_keep_origin_dtype (opsets: None = all).
ORIGIN_DTYPE_REJECTIONS = [
    ("AveragePool", ["float32"], None),
    ("Conv", ["float32", "float64"], None),
    ("DeformableConv2D", ["float32", "float64"], None),
    ("GatherND", ["float64"], None),
    ("Gemm", ["float32"], [8, 9, 10]),
    ("MaxRoiPool", ["float32"], None),
    ("RoiAlign", ["float64"], None),
]

# Graph fusion passes that turn an AI-CPU-only Ascend op into an AI Core one when the named
# ONNX inputs are constants (else the op stays on AI CPU).
MODEL_ZOO = "Ascend/ModelZoo-PyTorch@05360171"
# Patterns Huawei's engineers rewrite by hand before ATC in the ModelZoo ports. Where a CANN fact speaks,
# the note says which; where none does, the entry cites the practice alone. A 1-D Conv is not listed: both
# Conv plugins already run it as Unsqueeze + Conv2D + Squeeze (cann_onnx_registry.json
# attribute_or_rank_dependent_mappings ai.onnx::Conv), the same rewrite the speech ports do by hand.
HAND_FIXED_PRACTICES = [
    {"op": "Clip", "profiles": CANNDEV_PROFILES, "severity": "warning",
     "params": {"pattern": "min-without-max", "present": ["min"], "absent": ["max"]},
     "note": "the 2022 Clip plugin expands to Cast + ClipByValue only (no Maximum for a one-sided clip, which the 9.x "
             "plugin adds), and how it fills the missing max is not in the reference facts; Huawei's xcit port "
             "repairs this Clip by hand before ATC",
     "source": f"{MODEL_ZOO}:ACL_PyTorch/contrib/cv/classfication/xcit; dengguojie/vue-element-admin:ops/built-in/"
               "framework/onnx_plugin/clip_plugin.cc@7d77ce32d (expands to Cast, ClipByValue)"},
    {"op": "Pad", "profiles": ALL_PROFILES, "severity": "info", "when": {"attr": "mode", "values": ["reflect"]},
     "params": {"pattern": "reflect-pad"},
     "note": "the CANN facts say PadV3 accepts reflect (check_supported: constant, reflect, edge; reflect takes "
             "float16/bfloat16/float32/int32 only), yet Huawei's TResNet port replaces reflect-mode Pad by hand; "
             "check the converted model's accuracy and speed",
     "source": f"{MODEL_ZOO}:ACL_PyTorch (TResNet port); shared/reference/notes/cann_source.md section 7 (PadV3)"},
    {"op": "RandomNormalLike", "profiles": CANNDEV_PROFILES, "severity": "warning",
     "params": {"pattern": "random-in-inference"},
     "note": "it becomes RandomStandardNormal, which the 2022 kernel configs list for no engine (the 8.1.RC1 "
             "package has an AI CPU kernel only), and it makes every run differ; Huawei's TDNN port removes it "
             "from the inference graph before ATC",
     "source": f"{MODEL_ZOO}:ACL_PyTorch/contrib/audio/tdnn; op_tables/kernels.json RandomStandardNormal"},
]

AI_CORE_REWRITES = [
    {"op": "Slice", "ascend_op": "StridedSliceV2", "into": ["StridedSliceD"], "const_inputs": [1, 2, 3, 4],
     "stays_on_aicpu": {"output_ranks": [1], "negative_values_input": 4, "zero_output_dims": True},
     "note": "stays on AI CPU when the output is 1-D, a step is negative, an output dim is 0 or the last dim is shrunk",
     "source": f"{FUSION_PASSES}/strided_slice_v2_fusion_pass.cc@16c443656"},
    {"op": "TopK", "ascend_op": "TopK", "into": ["TopKD"], "const_inputs": [1],
     "note": "TopK/TopKV2 with a constant k become TopKD (with transposes when the axis is not the last)",
     "source": f"{FUSION_PASSES}/top_k_fusion_pass.cc@15fea2e88"},
    {"op": "CumSum", "ascend_op": "Cumsum", "into": ["CumsumD"], "const_inputs": [1],
     "note": "ConstToAttrPass turns Cumsum with a constant axis into CumsumD",
     "source": f"{FUSION_PASSES}/const2attr/const2attr_fusion_pass.cc@0666846cb"},
]


# Which member of a PartitionedCall expansion does the work, by the rule the plugin applies
# (cann_onnx_registry.json attribute_or_rank_dependent_mappings). by: kernel_rank = length of
# kernel_shape (1-D runs as 2-D); attr = an attribute's value (ONNX default when absent);
# present = whether an attribute or input of that name is given; fixed = always these.
# Members that only compute shapes (Shape, Cast, Slice, Squeeze, ...) are left out.
PLUGINS_OLD = "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin"
PLUGINS_NEW = "hicann/ops-nn:common/src/framework"
PARTITIONED_CALL_MEMBERS = [
    {"op": "AveragePool", "profiles": ALL_PROFILES, "by": "kernel_rank",
     "choices": {"1": ["AvgPoolV2"], "2": ["AvgPoolV2"], "3": ["AvgPool3D"]},
     "source": f"{PLUGINS_NEW}/average_pool_onnx_plugin.cpp@e5c3fa932"},
    {"op": "Conv", "profiles": ALL_PROFILES, "by": "kernel_rank",
     "choices": {"1": ["Conv2D"], "2": ["Conv2D"], "3": ["Conv3D"]},
     "source": f"{PLUGINS_NEW}/conv_onnx_plugin.cpp@e5c3fa932"},
    {"op": "ConvTranspose", "profiles": ALL_PROFILES, "by": "kernel_rank",
     "choices": {"1": ["Conv2DTranspose"], "2": ["Conv2DTranspose"], "3": ["Conv3DTranspose"]},
     "source": f"{PLUGINS_NEW}/conv_transpose_onnx_plugin.cpp@e5c3fa932"},
    # Identity can stand only for a one-input Concat; joining two or more inputs is ConcatD's work.
    {"op": "Concat", "profiles": CANNDEV_PROFILES, "by": "fixed", "choices": {"": ["ConcatD"]},
     "source": f"{PLUGINS_OLD}/concat_plugin.cc@7d77ce32d"},
    {"op": "Concat", "profiles": HICANN_PROFILES, "by": "fixed", "choices": {"": ["ConcatD"]},
     "source": "hicann/ops-math:conversion/concat/framework/concat_onnx_plugin.cpp@c41933244"},
    {"op": "Gemm", "profiles": HICANN_PROFILES, "by": "fixed", "choices": {"": ["MatMulV2"]},
     "source": f"{PLUGINS_NEW}/gemm_onnx_plugin.cpp@e5c3fa932"},
    {"op": "MaxPool", "profiles": ALL_PROFILES, "by": "kernel_rank",
     "choices": {"1": ["MaxPoolV3"], "2": ["MaxPoolV3"], "3": ["MaxPool3D"]},
     "source": f"{PLUGINS_NEW}/max_pool_onnx_plugin.cpp@e5c3fa932"},
    {"op": "Pad", "profiles": HICANN_PROFILES, "by": "attr", "attr": "mode",
     "choices": {"constant": ["PadV3"], "edge": ["PadV3"], "reflect": ["MirrorPad"]},
     "source": "hicann/ops-math:conversion/pad_v3/framework/pad_onnx_plugin.cpp@c41933244"},
    {"op": "Resize", "profiles": CANNDEV_PROFILES, "by": "attr", "attr": "mode",
     "choices": {"linear": ["ResizeBilinearV2"], "nearest": ["ResizeNearestNeighborV2"]},
     "source": f"{PLUGINS_OLD}/resize_plugin.cc@7d77ce32d"},
    {"op": "Resize", "profiles": HICANN_PROFILES, "by": "attr", "attr": "mode",
     "choices": {"cubic": ["Resize"], "linear": ["Resize"], "nearest": ["ResizeNearestNeighborV2"]},
     "source": RESIZE_PLUGIN_NEW},
    {"op": "Split", "profiles": ALL_PROFILES, "by": "present", "attr": "split",
     "choices": {"absent": ["Split"], "present": ["SplitV"]},
     "source": "hicann/ops-math:conversion/split_d/framework/split_onnx_plugin.cpp@c41933244"},
]

# TBE check_supported rejections that send an op to another engine (AI CPU when it has a kernel).
CHECK_SUPPORTED_REJECTS = [
    {"op": "Resize", "profiles": HICANN_PROFILES, "ascend_op": "Resize", "attr": "mode", "accepts": ["nearest"],
     "note": "'Attr mode only support nearest.': linear and cubic Resize drop to AI CPU",
     "source": "leideng/CANN-8.1.RC1:opp/built-in/op_impl/ai_core/tbe/impl/dynamic/resize.py@551ed27c"},
]


# The plugins that build a TransposeD/PadV2/<pool> (NHWC) graph meant for AI CPU when kH*kW is above
# limits.json pool_aicpu_window_area or a stride above pool_aicpu_stride (notes/cann_source.md section 6:
# MaxPool in both plugin generations; "OPS-old also had the >255 / >63 AI CPU path; OPS-new does not" for
# AveragePool). params.builds = the pool op inside that graph.
POOL_AICPU_GRAPHS = [
    {"op": "MaxPool", "profiles": ALL_PROFILES, "builds": "MaxPool",
     "source": "hicann/ops-nn:common/src/framework/max_pool_onnx_plugin.cpp@e5c3fa932"},
    {"op": "AveragePool", "profiles": CANNDEV_PROFILES, "builds": "AvgPool", "source": AVGPOOL_PLUGIN_OLD},
]
POOL_AICPU_NOTE = ("kH*kW above pool_aicpu_window_area or a stride above pool_aicpu_stride: the plugin builds an AI CPU "
                   "graph (shared/reference/notes/cann_source.md section 6)")

# ONNX semantics, not a CANN fact: the inputs whose values (not only shapes) decide an op's output
# shape, from the ONNX operator spec. An op not listed: every input counts.
ONNX_OPERATORS = "onnx/onnx docs/Operators.md (ONNX operator spec: inputs that give the output shape)"
SHAPE_VALUE_INPUTS = {
    "CenterCropPad": [1], "Compress": [1], "ConstantOfShape": [0], "Expand": [1], "If": [0], "Loop": [0, 1],
    "MaxUnpool": [2], "NonMaxSuppression": [0, 1, 2, 3, 4], "NonZero": [0], "OneHot": [1], "Pad": [1, 3],
    "Range": [0, 1, 2], "ReduceL1": [1], "ReduceL2": [1], "ReduceLogSum": [1], "ReduceLogSumExp": [1],
    "ReduceMax": [1], "ReduceMean": [1], "ReduceMin": [1], "ReduceProd": [1], "ReduceSum": [1],
    "ReduceSumSquare": [1], "Reshape": [1], "Resize": [2, 3], "Slice": [1, 2, 3, 4], "Split": [1],
    "Squeeze": [1], "Tile": [1], "TopK": [1], "Unique": [0], "Unsqueeze": [1], "Upsample": [1],
}


def rewrite_targets() -> set[str]:
    """Ascend ops the fusion rewrites produce: their kernels are needed in kernels.json."""
    return {op for item in AI_CORE_REWRITES for op in item["into"]}


def build_op_facts(reference: Path, onnx_names: OnnxNames, spelled: dict[str, str]) -> list[dict]:
    spec = load(reference, "onnx_op_spec.json")
    pages = {canonical_op(name, onnx_names, spelled): page for name, page in spec["ops"].items()}
    entries: list[dict] = []

    def add(kind: str, op: str, profiles: list[str], source: str, attr: str | None = None, **fields: Any) -> None:
        entry = {"kind": kind, "op": op, "attr": attr, "profiles": sorted(profiles)}
        for key in ("values", "absent", "when", "opsets", "params", "note"):
            entry[key] = fields.get(key)
        entry["severity"] = fields.get("severity", "warning")
        entry["source"] = source
        entries.append(entry)

    for item in IGNORED_ATTRS:
        add("ignored-attr", item["op"], item["profiles"], item["source"], attr=item["attr"],
            values=item.get("values"), absent=item.get("absent", False), when=item.get("when"), note=item["note"],
            params=item.get("params"))
    for op in EMPTY_AXES_OPS:
        page = pages[op]
        if not any("empty axes is not treated as full reduction" in c for c in page["constraints"]):
            raise SystemExit(f"build_op_tables: the {op} page no longer says empty axes is not a full reduction")
        add("empty-axes-not-reduced", op, DOC_PROFILES, page["url"],
            note="empty axes is not treated as a full reduction; set every axis explicitly")
    for item in PAGE_INPUT_CONSTRAINTS:
        page = pages[item["op"]]
        on = item.get("on", item["input"])
        said = [c for c in page.get("shape_constraints") or []
                if on in (c.get("input"), c.get("attr")) and c.get("rule") == item["says"]]
        if not said:
            raise SystemExit(f"build_op_tables: the {item['op']} page no longer says {on}: {item['says']}")
        add(item["kind"], item["op"], DOC_PROFILES, page["url"], severity=said[0]["severity"],
            params={"input": item["input"], **item["params"]}, note=item["says"])
    for op, dtypes, opsets in ORIGIN_DTYPE_REJECTIONS:
        page = pages[op]
        said = [c for c in page["constraints"] if "must_keep_origin_dtype" in c]
        if not said:
            raise SystemExit(f"build_op_tables: the {op} page no longer names must_keep_origin_dtype")
        add("origin-dtype-rejected", op, DOC_PROFILES, page["url"], values=sorted(dtypes), opsets=opsets,
            severity="error", note=said[0])
    registry = load(reference, "cann_onnx_registry.json")
    for item in PARTITIONED_CALL_MEMBERS:
        snapshot = "canndev-2022" if item["profiles"] == CANNDEV_PROFILES else "hicann-2026"
        snapshots = ["canndev-2022", "hicann-2026"] if item["profiles"] == ALL_PROFILES else [snapshot]
        for name in snapshots:
            members = {op for r in registry["snapshots"][name] if r.get("onnx_op") == item["op"]
                       for op in (r.get("expands_to") or [r["ascend_op"]])}
            chosen = {op for ops in item["choices"].values() for op in ops}
            if not chosen <= members:
                raise SystemExit(f"build_op_tables: {item['op']} members {sorted(chosen - members)} not in {name}")
        params = {"by": item["by"], "choices": item["choices"]}
        if "attr" in item:
            params["attr"] = item["attr"]
        add("partitioned-call-member", item["op"], item["profiles"], item["source"], params=params, severity="info",
            note="the plugin's expansion member that does the work, by kernel rank or attribute")
    for item in CHECK_SUPPORTED_REJECTS:
        add("check-supported-rejects", item["op"], item["profiles"], item["source"], attr=item["attr"],
            values=item["accepts"], params={"ascend_op": item["ascend_op"]}, note=item["note"])
    for item in HAND_FIXED_PRACTICES:
        add("hand-fixed-practice", item["op"], item["profiles"], item["source"], when=item.get("when"),
            params=item["params"], severity=item["severity"], note=item["note"])
    for item in POOL_AICPU_GRAPHS:
        add("pool-aicpu-graph", item["op"], item["profiles"], item["source"], params={"builds": item["builds"]},
            note=POOL_AICPU_NOTE)
    for op, indices in SHAPE_VALUE_INPUTS.items():
        if onnx_names.canonical(op) != op:
            raise SystemExit(f"build_op_tables: {op} is not a standard ONNX op")
        add("shape-value-inputs", op, ALL_PROFILES, ONNX_OPERATORS, params={"inputs": indices}, severity="info",
            note="the inputs whose values decide the output shape")
    for item in AI_CORE_REWRITES:
        add("ai-core-rewrite", item["op"], ALL_PROFILES, item["source"], note=item["note"],
            params={"ascend_op": item["ascend_op"], "into": item["into"], "const_inputs": item["const_inputs"],
                    "stays_on_aicpu": item.get("stays_on_aicpu")})
    entries.sort(key=lambda e: (e["kind"], e["op"], e["attr"] or "", e["profiles"], e["source"]))
    return entries


# --------------------------------------------------------------------------- numeric limits

CONV_COMPUTE = "leideng/CANN-8.1.RC1:python/site-packages/tbe/dsl/compute/conv_compute.py@551ed27c"
MAX_POOL_PLUGIN = "hicann/ops-nn:common/src/framework/max_pool_onnx_plugin.cpp@e5c3fa932"
AVG_POOL_V2 = "leideng/CANN-8.1.RC1:opp/built-in/op_impl/ai_core/tbe/impl/avg_pool_v2.py@551ed27c"
RESIZE_NN_V2 = "leideng/CANN-8.1.RC1:opp/built-in/op_impl/ai_core/tbe/impl/dynamic/resize_nearest_neighbor_v2.py@551ed27c"
PARSER_UTIL = "hicann/ge@ffdcbc9f7:parser/parser/common/acl_graph_parser_util.cc"
MULTI_BATCH = "Ascend/graphengine@master:ge/graph/preprocess/multi_batch_options.cc"
MULTI_BATCH_NEW = "hicann/ge@ffdcbc9f7:compiler/graph/preprocess/multi_batch_options.cc"
CONV_PAGE = "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/atlasoxol_09_0040.html"
MAXPOOL_PAGE = "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/atlasoxol_09_0094.html"
AVGPOOL_PAGE = "https://www.hiascend.com/document/detail/zh/canncommercial/900/API/aolapi/atlasoxol_09_0022.html"
NMS_PAGE_NOTE = "shared/reference/onnx_op_spec.json ops.NonMaxSuppression"

LIMITS = [
    ("conv_filter_hw_max", 255, "Conv2D kernel H/W beyond this takes the slow l0a_dma path in static shape and fails with E60011 in dynamic shape (FILTER_HW_MAX)", CONV_COMPUTE),
    ("conv_filter_hw_max_fixpipe", 511, "FILTER_HW_MAX on SoCs whose platform ini lists Intrinsic_fix_pipe_unit_list", CONV_COMPUTE),
    ("conv_stride_max", 63, "Conv2D stride beyond this takes the slow l0a_dma path (STRIDE_MAX)", CONV_COMPUTE),
    ("conv_pad_max", 255, "Conv2D pad beyond this takes the slow l0a_dma path (PAD_MAX)", CONV_COMPUTE),
    ("conv_dilation_max", 255, "Conv2D dilation beyond this takes the slow l0a_dma path (DILATE_MAX)", CONV_COMPUTE),
    ("conv_param_hard_max", 4294967295, "values above 2^32-1 fail with E60011 even in static shape", CONV_COMPUTE),
    ("conv_fmap_w_max", 4096, "published Conv input width range [1, 4096]", CONV_PAGE),
    ("pool_fmap_w_max", 4096, "published MaxPool/AveragePool input width range [1, 4096]", MAXPOOL_PAGE),
    ("pool_kernel_max", 32768, "published MaxPool/AveragePool kernel_shape range [1, 32768]", AVGPOOL_PAGE),
    ("pool_aicpu_window_area", 255, "MaxPool with kH*kW above this is built for AI CPU (TransposeD/PadV2/MaxPool NHWC); the plugin source tests kH*kW > 255 where the published page says > 256, and the plugin is what builds the graph, so 255 is the threshold", MAX_POOL_PLUGIN),
    ("pool_aicpu_stride", 63, "MaxPool with a stride above this is built for AI CPU", MAX_POOL_PLUGIN),
    ("avgpool_kernel_hw_max", 255, "AvgPoolV2 check_supported rejects a non-global kernel H or W above this (falls back to AI CPU)", AVG_POOL_V2),
    ("avgpool_window_area_max", 255, "AvgPoolV2 check_supported rejects kH*kW above this when a side is above avgpool_kernel_side_max and the output has H != 1, W == 1 (AVGV2_KERNEL_SIZE_H_MUL_W)", AVG_POOL_V2),
    ("avgpool_kernel_side_max", 20, "AvgPoolV2 check_supported: the side bound of the window-area rejection (AVGV2_KERNEL_SIZE)", AVG_POOL_V2),
    ("avgpool_page_window_area_max", 256, "published AveragePool page: a kernel with kH*kW above this (or a side outside [1, 255]) runs on AI CPU (slow)", AVGPOOL_PAGE),
    ("resize_nearest_max_hw", 2048, "ResizeNearestNeighborV2 on SoCs without float32 vadds: H/W in and out at most MAX_H_W", RESIZE_NN_V2),
    ("model_file_max_bytes", 2147483647, "a single .onnx file must be 1..INT_MAX bytes (kMaxFileSizeLimit), else E13015", PARSER_UTIL),
    ("gear_count_min", 2, "dynamic gears need at least kMinShapesCount profiles (E10035)", MULTI_BATCH_NEW),
    ("atc_output_path_max", 4096, "--output must stay shorter than PATH_MAX (E10021)", "hicann/ge@ffdcbc9f7:api/atc/main_impl.cc"),
    ("gear_count_max", 100, "at most kMaxShapesCount profiles (E10036); the open-source GE master no longer enforces it", MULTI_BATCH),
    ("nms_max_output_boxes_warn", 700, "published NonMaxSuppression: max_output_boxes_per_class above 700 may exhaust resources", NMS_PAGE_NOTE),
]


# The kernel a limit belongs to, where its source is one kernel's implementation: the rule that
# reads the limit looks that kernel up in the chip's kernel list by this name.
LIMIT_KERNELS = {"resize_nearest_max_hw": "ResizeNearestNeighborV2"}


def build_limits() -> list[dict]:
    entries = [{"name": n, "value": v, "meaning": m, "source": s} for n, v, m, s in LIMITS]
    for entry in entries:
        if entry["name"] in LIMIT_KERNELS:
            entry["kernel"] = LIMIT_KERNELS[entry["name"]]
    entries.sort(key=lambda e: e["name"])
    return entries


# --------------------------------------------------------------------------- ATC errors and options


def build_errors(reference: Path) -> list[dict]:
    errors = load(reference, "atc_error_codes.json")
    entries = []
    for item in errors["codes"]:
        if not item.get("onnx_relevant"):
            continue
        entries.append({
            "code": item["code"],
            "title": item.get("title"),
            "template": item["message_template"],
            "legacy_templates": item.get("legacy_templates", []),
            "meaning": item.get("meaning"),
            "fix": item.get("fix"),
            "era": "current",
            "source": item["sources"][0],
        })
    for item in errors["legacy_and_uncatalogued"]:
        entries.append({
            "code": item["code"],
            "title": item.get("title"),
            "template": item.get("message_template"),
            "legacy_templates": [],
            "meaning": item.get("meaning"),
            "fix": item.get("fix"),
            "era": "legacy",
            "source": item["sources"][0] if item.get("sources") else "shared/reference/atc_error_codes.json",
        })
    seen = set()
    unique = []
    for entry in sorted(entries, key=lambda e: (e["code"], e["era"] != "current")):
        if entry["code"] in seen:
            continue
        seen.add(entry["code"])
        unique.append(entry)
    return unique


def build_options(reference: Path) -> list[dict]:
    options = load(reference, "atc_options.json")
    entries = []
    for param in options["parameters"]:
        if param.get("onnx_relevance") in ("not_for_onnx", "removed"):
            continue
        entry = {
            "name": param["name"],
            "relevance": param.get("onnx_relevance"),
            "type": param.get("type"),
            "allowed_values": param.get("allowed_values_onnx") or param.get("allowed_values"),
            "default": param.get("default"),
            "conflicts_with": param.get("conflicts_with", []),
            "related_error_codes": param.get("related_error_codes", []),
            "product_notes": param.get("product_notes", []),
            "source": param["sources"][0] if param.get("sources") else "shared/reference/atc_options.json",
        }
        if not isinstance(entry["allowed_values"], list):
            entry["allowed_values"] = None
        entries.append(entry)
    entries.sort(key=lambda e: e["name"])
    return entries


def source_labels(reference: Path) -> dict[str, dict[str, str]]:
    """Names for people of the mirror repositories the facts were read from, keyed by the
    repository path that starts a ``source`` string. A mirror's own name can mislead (the 2022
    canndev snapshot lives in a repository called vue-element-admin); the JSON report and the
    rule pages keep the repository and commit, text output shows the label."""
    labels = {}
    for record in load(reference, "cann_onnx_registry.json")["sources"]:
        if record["id"] == "canndev-2022":
            labels[record["repo"]] = {
                "label": f"canndev ({record['commit_date'][:7]} snapshot)",
                "source": "cann_onnx_registry.json sources[canndev-2022]",
            }
    for release, record in load(reference, "ascend_op_kernels.json")["releases"].items():
        if release.startswith("cann-"):
            labels[record["source_repo"]] = {
                "label": f"CANN {release[len('cann-'):]} package",
                "source": f"ascend_op_kernels.json releases[{release}]",
            }
    return dict(sorted(labels.items()))


def options_extra(reference: Path) -> dict:
    options = load(reference, "atc_options.json")
    return {
        "mutual_exclusion_groups": options["mutual_exclusion_groups"],
        "dependency_rules": options["dependency_rules"],
        "precision_bf16_values": ["allow_fp32_to_bf16", "allow_mix_precision_bf16", "mixed_bfloat16"],
        "precision_hif8_values": ["cube_hif8", "mixed_hif8"],
        "precision_source": "https://www.hiascend.com/document/detail/zh/canncommercial/900/devaids/atctool/atlasatcparam_16_0068.html",
        # Every --soc_version name ATC accepts (platform_config ini files), including chips atccheck
        # has no kernel facts for: the atc-cmd linter tells an invalid literal from an unsupported one.
        "soc_version_families": [
            {"product": family["product"], "values": family["values"]}
            for family in options["soc_versions"]["families"]
        ],
        "soc_version_not_valid": options["soc_versions"]["not_valid_for_atc"],
        "soc_version_source": options["soc_versions"]["sources"][0],
        "other_flags": other_flags(options),
        "flag_value_errors": flag_value_errors(reference),
        "precision_fp16_casts": precision_fp16_casts(options),
        "flag_overrides": FLAG_OVERRIDES,
        "required_flags": required_flags(options),
        "gear_flags": {
            "flags": [p["name"] for p in options["parameters"] if "gear_count_limits" in p],
            "source": "atc_options.json parameters[*] that have gear_count_limits",
        },
        "onnx_framework": onnx_framework(options),
    }


def required_flags(options: dict) -> list[dict]:
    """The flags a --mode needs, from the dependency rules of the form 'if --mode in {0,3,30}: --a
    and --b [required]', with the error ATC gives when one is absent."""
    found = []
    for index, rule in enumerate(options["dependency_rules"]):
        modes = re.fullmatch(r"--mode in \{([0-9,]+)\}", rule["if"])
        if modes is None:
            continue
        needed = re.fullmatch(r"(--[a-z_]+(?: and --[a-z_]+)*)(?: required)?", rule["then"])
        if needed is None or not re.fullmatch(r"E\d{5}", rule["error"]):
            raise SystemExit(f"build_op_tables: dependency rule {index} is no longer 'FLAGS required' with one code: {rule}")
        for flag in needed.group(1).split(" and "):
            found.append({"flag": flag, "modes": modes.group(1).split(","), "error": rule["error"],
                          "source": f"atc_options.json dependency_rules[{index}]"})
    if not any("0" in entry["modes"] for entry in found):
        raise SystemExit("build_op_tables: no dependency rule names the flags --mode 0 needs")
    return found


def onnx_framework(options: dict) -> dict:
    """The --framework value of ONNX models."""
    (param,) = [p for p in options["parameters"] if p["name"] == "--framework"]
    value = param["onnx_value"]
    if value not in param["allowed_values"]:
        raise SystemExit(f"build_op_tables: --framework onnx_value {value} is not one of its allowed values")
    return {"value": value, "source": "atc_options.json parameters[--framework] onnx_value"}


def precision_fp16_casts(options: dict) -> dict:
    """The dtypes a casting --precision_mode turns into float16 where an op lacks them: force_fp16's
    meaning says 'fp32/bf16 ops forced to fp16'; must_keep_origin_dtype keeps them."""
    (param,) = [p for p in options["parameters"] if p["name"] == "--precision_mode"]
    meaning = param["value_meaning"]["force_fp16"]
    if "fp32/bf16" not in meaning or "fp16" not in meaning:
        raise SystemExit(f"build_op_tables: --precision_mode force_fp16 no longer says fp32/bf16 -> fp16: {meaning}")
    return {
        "dtypes": ["bfloat16", "float32"],
        "to": "float16",
        "kept_by": ["must_keep_origin_dtype"],
        "source": f"atc_options.json parameters[--precision_mode] value_meaning force_fp16 ({param['sources'][0]})",
    }


# Which ATC code a value outside a flag's allowed set raises (cmd_flag_info.cc PrintValueError):
# the flags named in by_flag their own code, the numeric switches E10006 ("must be either 1 or 0",
# also used for 0/1/2), booleans E10005 ("either true or false"), every other flag E10001.
CMD_FLAG_INFO = "hicann/ge@ffdcbc9f7:api/atc/cmd_flag_info.cc (PrintValueError); notes/atc_cli.md rule 5"
FLAG_VALUE_ERRORS = {
    "by_flag": {"--framework": "E10007", "--log": "E10010"},
    "switch_flags": ["--atomic_clean_policy", "--deterministic", "--disable_reuse_memory", "--display_model_info",
                     "--dump_mode", "--external_weight", "--sparsity", "--status_check"],
    "switch_error": "E10006",
    "bool_error": "E10005",
    "other_error": "E10001",
    "source": CMD_FLAG_INFO,
}

# Flags whose reference entry does not give the parser's own type: the combined compress-weight entry
# ('bool|path', value_syntax '--enable_compress_weight=true|false | --compress_weight_conf=<file>'), and
# --help, which the parser registers as an optional-argument bool ('--help value' does not take the value).
FLAG_OVERRIDES = [
    {"name": "--compress_weight_conf", "type": "path", "allowed_values": None,
     "source": "atc_options.json parameters[--enable_compress_weight / --compress_weight_conf] value_syntax"},
    {"name": "--enable_compress_weight", "type": "bool", "allowed_values": ["true", "false"],
     "source": "atc_options.json parameters[--enable_compress_weight / --compress_weight_conf] value_syntax"},
    {"name": "--help", "type": "bool_optional", "allowed_values": None, "relevance": "info",
     "related_error_codes": [], "note": "",
     "source": "atc_options.json parameters[--help / -h] (hicann/ge@ffdcbc9f7:api/atc/main_impl.cc)"},
]


def flag_value_errors(reference: Path) -> dict:
    """FLAG_VALUE_ERRORS, checked against the error catalogue and the option list."""
    errors = load(reference, "atc_error_codes.json")
    known = {item["code"] for item in errors["codes"] + errors["legacy_and_uncatalogued"]}
    codes = [*FLAG_VALUE_ERRORS["by_flag"].values(), FLAG_VALUE_ERRORS["switch_error"],
             FLAG_VALUE_ERRORS["bool_error"], FLAG_VALUE_ERRORS["other_error"]]
    if not set(codes) <= known:
        raise SystemExit(f"build_op_tables: flag value errors {sorted(set(codes) - known)} are not catalogued")
    names = {part.strip() for p in load(reference, "atc_options.json")["parameters"] for part in p["name"].split(" / ")}
    flags = [*FLAG_VALUE_ERRORS["by_flag"], *FLAG_VALUE_ERRORS["switch_flags"], *(o["name"] for o in FLAG_OVERRIDES)]
    if not set(flags) <= names:
        raise SystemExit(f"build_op_tables: flags {sorted(set(flags) - names)} are not in atc_options.json")
    return FLAG_VALUE_ERRORS


# Flags ATC's parser registers that the reference list leaves out (not documented for ONNX).
# Registered with DEFINE_string/DEFINE_bool in api/atc/atc_flags.cc; bool flags take a value only
# in the --name=value form (optional argument).
ATC_FLAGS_SOURCE = "hicann/ge@7bb4b9f58:api/atc/atc_flags.cc"
UNDOCUMENTED_ATC_FLAGS = (
    ("--build_config", "string"),
    ("--cal_conf", "string"),
    ("--cluster_config", "string"),
    ("--device_id", "string"),
    ("--hccl_sub_comm_config", "string"),
    ("--raw_ge_options_ignore_unsupported", "bool"),
    ("--save_original_model", "string"),
    ("--target", "string"),
)


def other_flags(options: dict) -> list[dict]:
    """ATC flags that are not in the ONNX option entries: known to the parser, so never 'unknown'."""
    entries = []
    for param in options["parameters"]:
        if param.get("onnx_relevance") not in ("not_for_onnx", "removed"):
            continue
        entries.append({
            "name": param["name"],
            "relevance": param["onnx_relevance"],
            "type": param.get("type"),
            "note": " ".join(param.get("constraints", [])),
            "related_error_codes": param.get("related_error_codes", []),
            "source": param["sources"][0] if param.get("sources") else "shared/reference/atc_options.json",
        })
    for name, kind in UNDOCUMENTED_ATC_FLAGS:
        entries.append({
            "name": name,
            "relevance": "undocumented",
            "type": kind,
            "note": "registered by ATC's option parser; not documented for ONNX conversion",
            "related_error_codes": [],
            "source": ATC_FLAGS_SOURCE,
        })
    entries.sort(key=lambda e: e["name"])
    return entries


# --------------------------------------------------------------------------- precision modes (numerics)

# Curated facts read by hand or by a tools/ extraction script from CANN sources (op_tables/curated/),
# checked here against the reference and turned into op_tables/precision.json, which the numerics
# simulation (atccheck/numerics/) reads: what each precision mode does to an op's compute dtype,
# the per-chip precision_reduce white/black lists, the cube ops, and the --keep_dtype file format.
CURATED = PROJECT / "op_tables" / "curated"
PRECISION_CURATED = ("precision_modes.json", "precision_reduce.json", "keep_dtype.json", "fusions.json")
PRECISION_STRATEGIES = ("force-low", "prefer-origin", "mixed", "origin", "force-fp32", "hif8")


def curated_digest(name: str) -> str:
    return hashlib.sha256((CURATED / name).read_bytes()).hexdigest()[:16]


def build_precision(reference: Path) -> dict:
    """op_tables/precision.json from the curated precision facts, checked against atc_options.json."""
    modes = json.loads((CURATED / "precision_modes.json").read_text(encoding="utf-8"))
    lists = json.loads((CURATED / "precision_reduce.json").read_text(encoding="utf-8"))
    keep = json.loads((CURATED / "keep_dtype.json").read_text(encoding="utf-8"))
    fusions = json.loads((CURATED / "fusions.json").read_text(encoding="utf-8"))["fusions"]
    for fusion in fusions:
        if len(fusion["onnx"]) != 2 or not fusion["source"]:
            raise SystemExit(f"build_op_tables: fusion {fusion['name']} needs two ONNX ops and a source")
    options = {p["name"]: p for p in load(reference, "atc_options.json")["parameters"]}
    for option in ("--precision_mode", "--precision_mode_v2"):
        documented = set(options[option]["allowed_values"])
        curated = {m["mode"] for m in modes["modes"] if m["option"] == option}
        if documented != curated:
            raise SystemExit(f"build_op_tables: curated precision modes of {option} differ from atc_options.json: "
                             f"{sorted(documented ^ curated)}")
    for mode in modes["modes"]:
        if mode["strategy"] not in PRECISION_STRATEGIES or mode["strategy"] not in modes["strategies"]:
            raise SystemExit(f"build_op_tables: precision mode {mode['mode']} has strategy {mode['strategy']!r}")
        if mode["low"] not in (None, "float16", "bfloat16"):
            raise SystemExit(f"build_op_tables: precision mode {mode['mode']} has low dtype {mode['low']!r}")
    if modes["default"]["mode"] not in options["--precision_mode"]["default"]:
        raise SystemExit("build_op_tables: the curated default precision mode is not atc_options.json's")
    missing = set(KERNEL_FAMILIES[lists["release"]]) - set(lists["families"])
    if missing:
        raise SystemExit(f"build_op_tables: precision_reduce.json lacks kernel families {sorted(missing)}")
    entries = []
    for family, data in sorted(lists["families"].items()):
        if set(data["white"]) & set(data["black"]):
            raise SystemExit(f"build_op_tables: {family}: ops on both precision lists")
        entries.append({"release": lists["release"], "family": family, "white": sorted(data["white"]),
                        "black": sorted(data["black"]), "gray_count": data["gray"], "source": data["source"]})
    return {
        "schema": "atccheck.precision/1",
        "description": "What each --precision_mode / --precision_mode_v2 value does to an AI Core op's compute dtype, "
                       "the precision_reduce white and black lists per kernel family (other ops are gray), the cube "
                       "ops, the fusions that round once for two ops, and the --keep_dtype file format.",
        "generated_by": "tools/build_op_tables.py",
        "facts": [{"file": "atc_options.json", "sha256": digest(reference, "atc_options.json")}]
        + [{"file": f"op_tables/curated/{name}", "sha256": curated_digest(name)} for name in PRECISION_CURATED],
        "strategies": modes["strategies"],
        "modes": modes["modes"],
        "modes_source": modes["modes_source"],
        "default": modes["default"],
        "keep_dtype": modes["keep_dtype"],
        "keep_dtype_file": {k: v for k, v in keep.items() if k not in ("topic", "written_by")},
        "dtype_sensitive": modes["dtype_sensitive"],
        "engine": modes["engine"],
        "bf16_modes_need": modes["bf16_modes_need"],
        "cube_ops": lists["cube_ops"],
        "fusions": fusions,
        "flag_meaning": lists["flag_meaning"],
        "entries": entries,
    }


# --------------------------------------------------------------------------- main


def build(reference: Path) -> dict[str, str]:
    onnx_names = OnnxNames()
    registry = load(reference, "cann_onnx_registry.json")
    spelled = {
        record["onnx_op"].lower(): record["onnx_op"]
        for snapshot in registry["snapshots"].values()
        for record in snapshot
        if record.get("onnx_op")
    }
    registry_entries = build_registry(reference, onnx_names)
    profiles = build_profiles(reference)
    docs = {
        "profiles.json": table(
            "atccheck.profiles/1",
            "CANN profiles: which registry, kernel release and error style each one stands for.",
            ["cann_onnx_registry.json", "onnx_op_spec.json", "atc_options.json"], reference, profiles,
            source_labels=source_labels(reference)),
        "registry.json": table(
            "atccheck.registry/1",
            "ONNX ops each profile's parser registers, by domain and model opset, and the Ascend ops they become.",
            ["cann_onnx_registry.json", "onnx_op_spec.json"], reference, registry_entries,
            native_types=["Constant", "FileConstant", "Input"],
            subgraph_ops=["If"],
            native_types_source="hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_util.h (kOnnxOpMap)"),
        "kernels.json": table(
            "atccheck.kernels/1",
            "AI Core and AI CPU kernel facts per kernel family, for the Ascend ops the ONNX parser produces. "
            "An op absent for a family has a kernel in neither engine's config.",
            ["ascend_op_kernels.json", "cann_onnx_registry.json"], reference, build_kernels(reference, registry_entries)),
        "socs.json": table(
            "atccheck.socs/1",
            "Valid --soc_version names atccheck supports, with kernel family, buffer sizes and device memory.",
            ["atc_options.json", "ascend_op_kernels.json", "device_memory.json"], reference, build_socs(reference)),
        "op_spec.json": table(
            "atccheck.op_spec/1",
            "Huawei's published ONNX operator pages: opsets, input dtypes, ranks and constant inputs.",
            ["onnx_op_spec.json"], reference, build_op_spec(reference, onnx_names, spelled)),
        "attr_limits.json": table(
            "atccheck.attr_limits/1",
            "Attribute limits per op, from the published pages and the CANN plugin sources, with the profiles "
            "each applies to. Entries superseded by a source fact are kept with the reason.",
            ["onnx_op_spec.json", "cann_onnx_registry.json"], reference, build_attr_limits(reference, onnx_names, spelled)),
        "op_facts.json": table(
            "atccheck.op_facts/1",
            "Op behaviours from the CANN plugin sources, fusion passes and published pages that are not attribute "
            "ranges: ignored attributes, empty reduce axes, dtypes a precision mode rejects, AI Core rewrites.",
            ["onnx_op_spec.json", "cann_onnx_registry.json"], reference, build_op_facts(reference, onnx_names, spelled)),
        "limits.json": table(
            "atccheck.limits/1",
            "Named numeric limits from CANN sources and pages.",
            ["cann_onnx_registry.json", "ascend_op_kernels.json", "onnx_op_spec.json"], reference, build_limits()),
        "atc_errors.json": table(
            "atccheck.atc_errors/1",
            "ATC error codes relevant to ONNX conversion.",
            ["atc_error_codes.json"], reference, build_errors(reference)),
        "atc_options.json": table(
            "atccheck.atc_options/1",
            "ATC command-line options relevant to ONNX models.",
            ["atc_options.json"], reference, build_options(reference), **options_extra(reference)),
        "precision.json": build_precision(reference),
    }
    return {name: dump(doc) for name, doc in docs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="compare with the committed tables; write nothing")
    args = parser.parse_args(argv)
    missing = [name for name in REFERENCE_FILES if not (args.reference / name).is_file()]
    if missing:
        print(f"build_op_tables: missing reference files in {args.reference}: {', '.join(missing)}", file=sys.stderr)
        return 2
    built = build(args.reference)
    if args.check:
        stale = [name for name, text in built.items()
                 if not (args.out / name).is_file() or (args.out / name).read_text(encoding="utf-8") != text]
        for name in stale:
            print(f"stale: op_tables/{name}", file=sys.stderr)
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in built.items():
        (args.out / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(built)} tables to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
