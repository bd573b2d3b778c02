"""Reading ``op_tables/``: the JSON documents shipped in the wheel, turned into records.

One function per table turns its JSON entries into the frozen records of ``schema``; a table
that lacks a field a record needs fails here, when the table is first used, not in a rule (the
table tests build every record of every shipped table).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from atccheck.tables.schema import (
    AscendMapping,
    AtcError,
    AtcOption,
    AttrLimit,
    Kernel,
    Limit,
    OpFact,
    OpSpec,
    Profile,
    Registration,
    Soc,
    SpecInput,
)

TABLE_FILES = (
    "aipp.json",
    "atc_errors.json",
    "atc_options.json",
    "attr_limits.json",
    "command_files.json",
    "kernels.json",
    "limits.json",
    "op_facts.json",
    "op_spec.json",
    "profiles.json",
    "registry.json",
    "socs.json",
)

Docs = Mapping[str, Mapping[str, Any]]


def read_table(name: str) -> dict[str, Any]:
    """The raw JSON document of one table."""
    text = resources.files("atccheck.op_tables").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


def read_all() -> dict[str, dict[str, Any]]:
    """Every table of this installation, by file name."""
    return {name: read_table(name) for name in TABLE_FILES}


class LazyDocs(Mapping[str, Mapping[str, Any]]):
    """The tables of this installation by file name, each read and parsed on first access.

    A run reads only the tables it asks about; a ``check`` never needs atc_errors.json, for one.
    """

    def __init__(self) -> None:
        self._read: dict[str, dict[str, Any]] = {}

    def __getitem__(self, name: str) -> dict[str, Any]:
        doc = self._read.get(name)
        if doc is None:
            if name not in TABLE_FILES:
                raise KeyError(name)
            doc = self._read[name] = read_table(name)
        return doc

    def __iter__(self):
        return iter(TABLE_FILES)

    def __len__(self) -> int:
        return len(TABLE_FILES)


def _tuple(value: Any) -> tuple:
    return tuple(value) if value is not None else ()


def load_profiles(docs: Docs) -> dict[str, Profile]:
    return {e["id"]: Profile(**{**e, "source": tuple(e["source"])}) for e in docs["profiles.json"]["entries"]}


def load_source_labels(docs: Docs) -> dict[str, str]:
    """Repository path -> a name for people (a mirror's own name can mislead)."""
    return {repo: item["label"] for repo, item in docs["profiles.json"].get("source_labels", {}).items()}


def load_registrations(docs: Docs) -> dict[str, dict[tuple[str, str], Registration]]:
    """Registrations by profile, then by (domain, op)."""
    by_profile: dict[str, dict[tuple[str, str], Registration]] = {}
    for e in docs["registry.json"]["entries"]:
        reg = registration(e)
        by_profile.setdefault(reg.profile, {})[(reg.domain, reg.op)] = reg
    return by_profile


def registrations_of(entries: list[dict[str, Any]]) -> dict[tuple[str, str], Registration]:
    """The registrations of raw registry entries (one profile's), by (domain, op)."""
    regs: dict[tuple[str, str], Registration] = {}
    for e in entries:
        reg = registration(e)
        regs[(reg.domain, reg.op)] = reg
    return regs


def registration(e: Mapping[str, Any]) -> Registration:
    """One registry entry as a record."""
    return Registration(
        profile=e["profile"],
        domain=e["domain"],
        op=e["op"],
        opsets=tuple(e["opsets"]),
        documented_opsets=tuple(e["documented_opsets"]) if "documented_opsets" in e else None,
        source_only_opsets=_tuple(e.get("source_only_opsets")),
        unverified_opsets=_tuple(e.get("unverified_opsets")),
        ascend=tuple(
            AscendMapping(
                opsets=tuple(m["opsets"]),
                ascend_op=m["ascend_op"],
                expands_to=_tuple(m.get("expands_to")),
                experimental=bool(m.get("experimental")),
                source=m["source"],
            )
            for m in e["ascend"]
        ),
        source=tuple(e["source"]),
    )


def load_kernels(docs: Docs) -> dict[tuple[str, str, str], Kernel]:
    """Kernels by (release, family, Ascend op)."""
    kernels: dict[tuple[str, str, str], Kernel] = {}
    for e in docs["kernels.json"]["entries"]:
        k = kernel(e)
        kernels[(k.release, k.family, k.op)] = k
    return kernels


def kernel(e: Mapping[str, Any]) -> Kernel:
    """One kernels.json entry as a record."""
    return Kernel(
        release=e["release"],
        family=e["family"],
        op=e["op"],
        aicore=e["aicore"],
        aicpu=e["aicpu"],
        aicpu_dtypes=_tuple(e.get("aicpu_dtypes")),
        source=e["source"],
        host_cpu=e.get("host_cpu"),
    )


def load_socs(docs: Docs) -> dict[str, Soc]:
    return {e["name"]: Soc(**{**e, "source": tuple(e["source"])}) for e in docs["socs.json"]["entries"]}


def load_op_specs(docs: Docs) -> dict[str, OpSpec]:
    specs: dict[str, OpSpec] = {}
    for e in docs["op_spec.json"]["entries"]:
        specs[e["op"]] = OpSpec(
            op=e["op"],
            doc_name=e["doc_name"],
            opsets=tuple(e["opsets"]),
            custom_op=e["custom_op"],
            inputs=tuple(
                SpecInput(
                    name=i["name"],
                    index=i["index"],
                    dtypes=tuple(i["dtypes"]) if "dtypes" in i else None,
                    ranks=tuple(i["ranks"]) if "ranks" in i else None,
                    optional=bool(i.get("optional")),
                    const_required=bool(i.get("const_required")),
                    variadic=bool(i.get("variadic")),
                    note=i.get("note"),
                )
                for i in e["inputs"]
            ),
            outputs=tuple(e["outputs"]),
            constraints=tuple(e["constraints"]),
            source_version=e["source_version"],
            source=e["source"],
        )
    return specs


def load_attr_limits(docs: Docs) -> tuple[AttrLimit, ...]:
    return tuple(
        AttrLimit(
            op=e["op"],
            attr=e["attr"],
            kind=e["kind"],
            values=tuple(e["values"]) if "values" in e else None,
            min=e.get("min"),
            max=e.get("max"),
            axes=e.get("axes"),
            when_rank=e.get("when_rank"),
            severity=e["severity"],
            effect=e["effect"],
            atc_error=e.get("atc_error"),
            profiles=tuple(e["profiles"]),
            note=e.get("note"),
            superseded_by_source=e.get("superseded_by_source"),
            source=e["source"],
        )
        for e in docs["attr_limits.json"]["entries"]
    )


def load_op_facts(docs: Docs) -> tuple[OpFact, ...]:
    return tuple(
        OpFact(
            kind=e["kind"],
            op=e["op"],
            attr=e.get("attr"),
            profiles=tuple(e["profiles"]),
            values=tuple(e["values"]) if e.get("values") is not None else None,
            absent=e.get("absent"),
            when=e.get("when"),
            opsets=tuple(e["opsets"]) if e.get("opsets") is not None else None,
            params=e.get("params"),
            severity=e["severity"],
            note=e.get("note"),
            source=e["source"],
        )
        for e in docs["op_facts.json"]["entries"]
    )


def load_limits(docs: Docs) -> dict[str, Limit]:
    return {e["name"]: Limit(**e) for e in docs["limits.json"]["entries"]}


def load_atc_errors(docs: Docs) -> dict[str, AtcError]:
    return {
        e["code"]: AtcError(
            code=e["code"],
            title=e.get("title"),
            template=e.get("template"),
            meaning=e.get("meaning"),
            fix=e.get("fix"),
            era=e["era"],
            source=e["source"],
        )
        for e in docs["atc_errors.json"]["entries"]
    }


def load_atc_options(docs: Docs) -> dict[str, AtcOption]:
    return {
        e["name"]: AtcOption(
            name=e["name"],
            relevance=e.get("relevance"),
            type=e.get("type"),
            allowed_values=tuple(e["allowed_values"]) if e.get("allowed_values") else None,
            default=e.get("default"),
            conflicts_with=_tuple(e.get("conflicts_with")),
            related_error_codes=_tuple(e.get("related_error_codes")),
            product_notes=_tuple(e.get("product_notes")),
            source=e["source"],
        )
        for e in docs["atc_options.json"]["entries"]
    }


def load_atc_options_extra(docs: Docs) -> dict[str, Any]:
    """The option table's sections beside its entries (soc names, flag errors, precision values, ...)."""
    return {k: v for k, v in docs["atc_options.json"].items() if k not in ("entries",)}
