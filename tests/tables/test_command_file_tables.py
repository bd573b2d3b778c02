"""aipp.json and command_files.json: every code is known, every fact cited, the curated files current."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from atccheck.tables import tables
from conftest import PROJECT

MIRRORS = Path("/work/.mirror")


def codes_of(doc) -> set[str]:
    found = set()
    for entry in doc["entries"]:
        for key in ("error", "name"):
            value = entry.get(key)
            if key == "error" and value:
                found.add(value)
        for item in entry.get("checks", []) + entry.get("invalid", []) + [entry.get("missing") or {},
                                                                          entry.get("requires") or {}]:
            if item.get("error"):
                found.add(item["error"])
    return found


def test_every_aipp_code_is_catalogued_or_recorded():
    doc = tables().docs["aipp.json"]
    recorded = {e["name"] for e in doc["entries"] if e["kind"] == "error"}
    parse = {e["name"] for e in doc["entries"] if e["kind"] == "parse-error"}
    for code in codes_of(doc) | parse | {doc["path_rule"]["error"]}:
        assert code in tables().atc_errors or code in recorded, code
    assert recorded == {"E19018", "E81012"} and not recorded & set(tables().atc_errors)


def test_every_command_file_code_is_catalogued():
    doc = tables().docs["command_files.json"]
    assert codes_of(doc) and all(code in tables().atc_errors for code in codes_of(doc))


def test_parse_error_codes_cover_every_profile():
    parse = [e for e in tables().docs["aipp.json"]["entries"] if e["kind"] == "parse-error"]
    covered = [p for e in parse for p in e["profiles"]]
    assert sorted(covered) == sorted(tables().profiles)


def test_sources_are_pinned():
    for name in ("aipp.json", "command_files.json"):
        for entry in tables().docs[name]["entries"]:
            assert "@" in entry["source"], entry["source"]


def test_the_documented_conversions_are_all_there():
    presets = [e for e in tables().docs["aipp.json"]["entries"] if e["kind"] == "preset"]
    assert len(presets) == 103
    by_name = {e["name"]: e for e in presets}
    narrow = by_name["YUV420SP_U8->RGB BT-601NARROW (docs)"]
    assert narrow["matrix"] == [298, 0, 409, 298, -100, -208, 298, 516, 0] and narrow["input_bias"] == [16, 128, 128]
    assert by_name["YUV420SP_U8->RGB BT-601NARROW (package)"]["matrix"] == narrow["matrix"]


def test_curated_files_match_the_mirrors():
    """The extracted curated files are what the extraction tool reads from the mirrored sources."""
    needed = [MIRRORS / "hicann+ge/repo", MIRRORS / "leideng+CANN-8.1.RC1/repo",
              MIRRORS / "dengguojie+vue-element-admin/repo"]
    missing = [p for p in needed if not p.is_dir()]
    if missing:
        pytest.skip(f"missing resource: {missing[0]} (mirrored CANN sources)")
    spec = importlib.util.spec_from_file_location("extract_aipp_facts", PROJECT / "tools" / "extract_aipp_facts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        built = module.build(*needed)
    except subprocess.CalledProcessError as exc:  # a mirror without the commit
        pytest.skip(f"missing resource: a mirrored commit ({exc})")
    for name, text in built.items():
        assert (PROJECT / "op_tables" / "curated" / name).read_text(encoding="utf-8") == text, name
