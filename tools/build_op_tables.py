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


# --------------------------------------------------------------------------- curated facts
#
# Facts read by hand from the CANN sources and pages live as data in op_tables/curated/, one
# JSON file per topic, each entry with its source (or the file's); this builder only derives the
# tables from them and from ../shared/reference. tests/tables/test_curated.py validates them.

CURATED = PROJECT / "op_tables" / "curated"


def curated(topic: str) -> list[dict]:
    """The entries of op_tables/curated/<topic>.json."""
    doc = json.loads((CURATED / f"{topic}.json").read_text(encoding="utf-8"))
    return list(doc["entries"])


def curated_doc(topic: str) -> dict:
    return json.loads((CURATED / f"{topic}.json").read_text(encoding="utf-8"))


PROFILES = curated("profiles")
ALL_PROFILES = [p["id"] for p in PROFILES]
DOC_PROFILES = [p["id"] for p in PROFILES if p["published_pages"]]
KERNEL_FAMILIES = {e["release"]: tuple(e["families"]) for e in curated("kernel_families")}
SOC_TRAITS = {e["trait"]: e for e in curated("soc_traits")}
SUPERSEDED = {(e["op"], e["attr"]): e["reason"] for e in curated("superseded_page_limits") if "profiles" not in e}
SUPERSEDED_IN_PROFILES = {(e["op"], e["attr"], e["kind"]): (e["profiles"], e["reason"])
                          for e in curated("superseded_page_limits") if "profiles" in e}
SOURCE_ATTR_LIMITS = curated("source_attr_limits")
NEAREST_FLOOR_UNKNOWN = {k: v for k, v in curated("resize_nearest_floor")[0].items() if k != "source"}
IGNORED_ATTRS = curated("ignored_attrs")
EMPTY_AXES_OPS = tuple(e["op"] for e in curated("empty_axes_ops"))
PAGE_INPUT_CONSTRAINTS = curated("page_input_constraints")
ORIGIN_DTYPE_REJECTIONS = [(e["op"], e["dtypes"], e["opsets"]) for e in curated("origin_dtype_rejections")]
HAND_FIXED_PRACTICES = curated("hand_fixed_practices")
AI_CORE_REWRITES = curated("ai_core_rewrites")
PARTITIONED_CALL_MEMBERS = curated("partitioned_call_members")
CHECK_SUPPORTED_REJECTS = curated("check_supported_rejects")
POOL_AICPU_GRAPHS = curated("pool_aicpu_graphs")
POOL_AICPU_NOTE = curated_doc("pool_aicpu_graphs")["note"]
SHAPE_VALUE_INPUTS = {e["op"]: e["inputs"] for e in curated("shape_value_inputs")}
LIMITS = [(e["name"], e["value"], e["note"], e["source"]) for e in curated("limits")]
LIMIT_KERNELS = {e["name"]: e["kernel"] for e in curated("limits") if "kernel" in e}
FLAG_VALUE_ERRORS = curated("flag_value_errors")[0]
FLAG_OVERRIDES = curated("flag_overrides")
UNDOCUMENTED_ATC_FLAGS = tuple((e["flag"], e["type"]) for e in curated("undocumented_atc_flags"))
# Op facts written as they appear in op_facts.json: a new kind of fact needs no code here.
OP_FACTS = curated("op_facts")


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




def build_profiles(reference: Path) -> list[dict]:
    """The curated profiles with the record each per-profile fact rests on; the error codes must be
    catalogued, and exactly one profile is the default."""
    errors = load(reference, "atc_error_codes.json")
    known = {item["code"] for item in errors["codes"] + errors["legacy_and_uncatalogued"]}
    if sum(1 for p in PROFILES if p["default"]) != 1:
        raise SystemExit("build_op_tables: op_tables/curated/profiles.json needs exactly one default profile")
    profiles = []
    for profile in PROFILES:
        for key in ("unregistered_error", "file_size_error"):
            if profile[key] not in known:
                raise SystemExit(f"build_op_tables: {profile['id']} {key} {profile[key]} is not in atc_error_codes.json")
        entry = {k: v for k, v in profile.items() if k not in ("registry", "default", "published_pages", "field_sources")}
        entry.update(published_pages=profile["published_pages"], field_sources=dict(sorted(profile["field_sources"].items())),
                     default=profile["default"])
        profiles.append(entry)
    return profiles




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
    """Each profile's registrations, by the method its curated entry names (``registry``)."""
    registry = load(reference, "cann_onnx_registry.json")
    spec = load(reference, "onnx_op_spec.json")
    snapshots = {name: source_registrations(registry, name) for name in registry["snapshots"]}
    spelled = {op.lower(): op for grouped in snapshots.values() for (_, op) in grouped}
    entries: list[dict] = []

    def add(profile: str, domain: str, op: str, opsets: set[int], mapping: list[dict], source: list[str], **extra) -> None:
        entry = {"profile": profile, "domain": domain, "op": op, "opsets": sorted(opsets)}
        entry.update({k: v for k, v in extra.items() if v is not None})
        entry["ascend"] = mapping
        entry["source"] = sorted(set(source))
        entries.append(entry)

    for profile in PROFILES:
        recipe = profile["registry"]
        method = REGISTRY_METHODS.get(recipe["method"])
        if method is None:
            raise SystemExit(f"build_op_tables: profile {profile['id']}: unknown registry method {recipe['method']}")
        method(profile["id"], recipe, spec, snapshots, onnx_names, spelled, add)
    entries.sort(key=lambda e: (e["profile"], e["domain"], e["op"]))
    return entries


def registry_from_source(profile: str, recipe: dict, spec: dict, snapshots: dict, onnx_names: OnnxNames,
                         spelled: dict[str, str], add: Any) -> None:
    """A source registry itself (``snapshot``); with ``documented_by``, the pages' opsets beside it."""
    doc_view = spec[recipe["documented_by"]] if "documented_by" in recipe else None
    for (domain, op), records in snapshots[recipe["snapshot"]].items():
        documented = None
        if doc_view is not None and domain == "ai.onnx":
            page = next((p for name, p in doc_view.items() if name.lower() == op.lower()), None)
            documented = sorted(page["opsets"]) if page else []
        add(profile, domain, op, opsets_of(records), mapping_of(records),
            [r["source"] for r in records], documented_opsets=documented)


def registry_from_published_list(profile: str, recipe: dict, spec: dict, snapshots: dict, onnx_names: OnnxNames,
                                 spelled: dict[str, str], add: Any) -> None:
    """A published op list with ATC's global opset statement (``statement_opsets``); the ops the list does not
    mention but ``silent_source`` registers at those opsets are kept apart as unverified (the list is silent)."""
    statement = recipe["statement_opsets"]
    source_ops = snapshots[recipe["silent_source"]]
    old_list = spec[recipe["list"]]
    per_op_old = {name.lower(): facts for name, facts in old_list["per_op_old_facts"].items()}
    for doc_name in old_list["ops"]:
        op = canonical_op(doc_name, onnx_names, spelled)
        facts = per_op_old.get(doc_name.lower(), {})
        opsets = set(facts.get("opsets") or statement) & set(statement)
        source = [facts.get("url") or old_list["url"]]
        add(profile, "ai.onnx", op, opsets, mapping_of(source_ops.get(("ai.onnx", op), [])), source,
            documented_opsets=sorted(opsets), doc_name=doc_name)
    listed = {canonical_op(name, onnx_names, spelled) for name in old_list["ops"]}
    for (domain, op), records in sorted(source_ops.items()):
        unverified = opsets_of(records) & set(statement)
        if domain != "ai.onnx" or op in listed or not unverified:
            continue
        add(profile, domain, op, set(), mapping_of(records), [r["source"] for r in records],
            documented_opsets=[], unverified_opsets=sorted(unverified))


def registry_from_published_and_sources(profile: str, recipe: dict, spec: dict, snapshots: dict,
                                        onnx_names: OnnxNames, spelled: dict[str, str], add: Any) -> None:
    """A published list's per-op opsets, where the source wins when both ``sources`` (the older, then the
    newer) bracket the release; an opset only the newer source registers is kept apart as unverified."""
    old, new = (snapshots[name] for name in recipe["sources"])
    documented: dict[str, tuple[set[int], str, str]] = {}
    for name, page in spec[recipe["list"]].items():
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
        add(profile, domain, op, registered, mapping_of(records), source,
            documented_opsets=sorted(doc_opsets) if domain == "ai.onnx" else None,
            source_only_opsets=sorted(both - doc_opsets) or None,
            unverified_opsets=sorted(unverified) or None,
            doc_name=doc_name if doc_name and doc_name != op else None)


# How a profile's registry is built (op_tables/curated/profiles.json "registry": {"method": ...}).
REGISTRY_METHODS = {
    "source": registry_from_source,
    "published-list": registry_from_published_list,
    "published-and-sources": registry_from_published_and_sources,
}


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
            entry["fixpipe"] = short in SOC_TRAITS["fixpipe"]["short_socs"]
            entry["dynamic_shape"] = short not in SOC_TRAITS["no_dynamic_shape"]["short_socs"]
            entry["bf16_precision"] = short in SOC_TRAITS["bf16_precision"]["short_socs"]
            entry["fp32_vadds"] = False if short in SOC_TRAITS["no_fp32_vadds"]["short_socs"] else None
            entry["gear_max"] = SOC_TRAITS["gear_max"]["value"]
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






# Graph fusion passes that turn an AI-CPU-only Ascend op into an AI Core one when the named
# ONNX inputs are constants (else the op stays on AI CPU).
MODEL_ZOO = "Ascend/ModelZoo-PyTorch@05360171"



# Which member of a PartitionedCall expansion does the work, by the rule the plugin applies
# (cann_onnx_registry.json attribute_or_rank_dependent_mappings). by: kernel_rank = length of
# kernel_shape (1-D runs as 2-D); attr = an attribute's value (ONNX default when absent);
# present = whether an attribute or input of that name is given; fixed = always these.
# Members that only compute shapes (Shape, Cast, Slice, Squeeze, ...) are left out.
PLUGINS_OLD = "dengguojie/vue-element-admin:ops/built-in/framework/onnx_plugin"
PLUGINS_NEW = "hicann/ops-nn:common/src/framework"




# ONNX semantics, not a CANN fact: the inputs whose values (not only shapes) decide an op's output
# shape, from the ONNX operator spec. An op not listed: every input counts.
ONNX_OPERATORS = "onnx/onnx docs/Operators.md (ONNX operator spec: inputs that give the output shape)"


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

    for item in OP_FACTS:
        add(item["kind"], item["op"], item["profiles"], item["source"], attr=item.get("attr"),
            values=item.get("values"), absent=item.get("absent"), when=item.get("when"), opsets=item.get("opsets"),
            params=item.get("params"), note=item.get("note"), severity=item.get("severity", "warning"))
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
        mapping_from = {p["id"]: p["mapping_from"] for p in PROFILES}
        for name in sorted({mapping_from[p] for p in item["profiles"]}):  # the plugin sources of those profiles
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


# --------------------------------------------------------------------------- the files an atc command names

# aipp.json and command_files.json need no reference file: the curated topics aipp_checks,
# aipp_proto, aipp_csc and aipp_kernel (the last three written by tools/extract_aipp_facts.py)
# and command_files carry every fact with its source.


def _cited(source: str, lines: str | None) -> str:
    return f"{source} {lines}" if lines else source


def build_aipp() -> tuple[list[dict], dict]:
    """aipp.json: the AIPP file's schema (extra ``message_schema``) and one entry per fact about it."""
    checks, csc = curated_doc("aipp_checks"), curated_doc("aipp_csc")
    kernel, proto = curated_doc("aipp_kernel"), curated_doc("aipp_proto")
    entries: list[dict] = []
    for item in checks["parse_errors"]:
        entries.append({"kind": "parse-error", "name": item["error"], "profiles": item["profiles"],
                        "message": item["message"], "note": item["note"],
                        "source": _cited(item["source"], item["lines"])})
    for item in checks["entries"]:
        record = {k: v for k, v in item.items() if k not in ("id", "source", "lines")}
        record.setdefault("profiles", ALL_PROFILES)
        entries.append({"kind": "check", "name": item["id"], **record,
                        "source": _cited(item["source"], item.get("lines"))})
    ranges = checks["ranges"]
    for item in ranges["fields"]:
        entries.append({"kind": "range", "name": item["field"], "min": item["min"], "max": item["max"],
                        "zero_allowed": item.get("zero_allowed", False), "when": item.get("when"),
                        "error": ranges["error"], "source": _cited(ranges["source"], item["lines"])})
    size = ranges["model_size"]
    entries.append({"kind": "model-size", "name": "src_image_size 0", "h_min": size["h_min"], "w_min": size["w_min"],
                    "max": size["max"], "error": ranges["error"], "note": size["note"],
                    "source": _cited(ranges["source"], size["lines"])})
    model_channels = checks["model_image_channels"]["channels"]
    image = checks["image_channels"]
    formats = proto["enums"]["InputFormat"]
    presets = csc["entries"]
    for name in sorted(formats):
        if formats[name] == 0:
            continue
        given = sorted({model_channels[p["model_image"]] for p in presets if p["input_format"] == name})
        entries.append({"kind": "format", "name": name, "number": formats[name],
                        "image_channels": image["channels"].get(name, image["default"]),
                        "model_channels": given, "yuv": name in checks["yuv_formats"]["formats"],
                        "source": _cited(image["source"], image["lines"]) + "; model_channels: "
                        + checks["model_image_channels"]["source"] + " and the package's conf/aipp files "
                        "(op_tables/curated/aipp_csc.json)"})
    for preset in presets:
        origin = "docs" if preset["source"].startswith("hicann/ge") else "package"
        record = {k: v for k, v in preset.items() if k not in ("name", "source", "line")}
        entries.append({"kind": "preset", "name": f"{preset['name']} ({origin})", **record,
                        "channels": model_channels[preset["model_image"]],
                        "source": f"{preset['source']} line {preset['line']}"})
    for release in kernel["entries"]:
        format_map = release["SUPPORT_IMAGE_FORMAT_MAP"]
        odd = release["ODD_CROP_SUPPORT_SOC_VERSION_LIST"]
        keys = checks["chip_format_keys"]["releases"][release["release"]]
        for short_soc, key in sorted(keys["keys"].items()):
            entries.append({"kind": "chip", "name": f"{short_soc} {release['release']}", "short_soc": short_soc,
                            "release": release["release"], "formats": format_map["value"][key],
                            "odd_crop": short_soc in odd["value"],
                            "source": f"{release['source']} lines {format_map['line']}, {odd['line']}; "
                                      f"{keys['source']} {keys['lines']}"})
    for item in checks["uncatalogued_errors"]:
        entries.append({"kind": "error", "name": item["code"], "message": item["message"], "meaning": item["meaning"],
                        "source": _cited(item["source"], item["lines"])})
    entries.sort(key=lambda e: (e["kind"], e["name"], e["source"]))
    schema = {
        "root": proto["root"],
        "messages": {m["name"]: [{k: v for k, v in f.items() if k != "line"} for f in m["fields"]]
                     for m in proto["entries"]},
        "enums": proto["enums"],
        "source": proto["source"],
    }
    extra = {"message_schema": schema, "path_rule": checks["path"], "normalization": checks["normalization"],
             "csc_note": csc["note"]}
    return entries, extra


def build_command_files() -> tuple[list[dict], dict]:
    """command_files.json: how ATC reads each file or name list a command gives, and what fails how."""
    doc = curated_doc("command_files")
    entries: list[dict] = []
    for item in doc["entries"]:
        # the curated source is the reader of the file or names; rules cite it with their own lines
        record = {k: v for k, v in item.items() if k not in ("kind", "flag", "source", "lines")}
        reader = {"reader": item["source"]} | ({"reader_lines": item["lines"]} if "lines" in item else {})
        entries.append({"kind": item["kind"], "name": item["flag"], **reader, **record,
                        "source": _cited(item["source"], item.get("lines"))})
    entries.sort(key=lambda e: (e["kind"], e["name"]))
    return entries, {"graph_names": doc["graph_names"], "split": doc["split"]}


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
    }
    aipp_entries, aipp_extra = build_aipp()
    docs["aipp.json"] = table(
        "atccheck.aipp/1",
        "AIPP files (--insert_op_conf): their schema, GE's and the AIPP kernel's checks, value ranges, channel "
        "counts, documented color conversions and the image formats per chip.",
        [], reference, aipp_entries, **aipp_extra)
    file_entries, file_extra = build_command_files()
    docs["command_files.json"] = table(
        "atccheck.command_files/1",
        "The files and names an atc command gives (--keep_dtype, --op_precision_mode, --modify_mixlist, "
        "--customize_dtypes, --fusion_switch_file, --out_nodes, --input_fp16_nodes): their syntax and ATC's checks.",
        [], reference, file_entries, **file_extra)
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
