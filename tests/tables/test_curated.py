"""The curated facts (op_tables/curated/): data with a source for every entry, all read by the builder."""

from __future__ import annotations

import json
import re

import pytest

from conftest import PROJECT

CURATED = PROJECT / "op_tables" / "curated"
FILES = sorted(CURATED.glob("*.json"))
BUILDER = (PROJECT / "tools" / "build_op_tables.py").read_text(encoding="utf-8")


def _doc(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_are_curated_files():
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_curated_file_is_described_entries_each_with_a_source(path):
    doc = _doc(path)
    assert isinstance(doc.get("description"), str) and doc["description"].strip(), "a description of the topic"
    entries = doc.get("entries")
    assert isinstance(entries, list) and entries, "entries: a non-empty list"
    for entry in entries:
        assert isinstance(entry, dict), entry
        source = entry.get("source", doc.get("source"))
        sources = [source] if isinstance(source, str) else source
        assert sources and all(isinstance(s, str) and s.strip() for s in sources), f"no source for {entry}"
    as_text = [json.dumps(e, sort_keys=True) for e in entries]
    assert len(set(as_text)) == len(as_text), "an entry is repeated"


# What a topic may hold beside its entries without a source: its own description and notes, and a
# legend of the repositories its sources name.
PLAIN_KEYS = {"description", "source", "sources", "generated_by", "note", "entries"}


def _cited(value, source):
    """Every fact in ``value`` has a source: its own, an enclosing one's, or the file's; a line number
    never stands without the file it is in."""
    if isinstance(value, list):
        return all(_cited(item, source) for item in value)
    if not isinstance(value, dict):
        return source is not None
    source = value.get("source", source)
    if source is None and not any(isinstance(v, (dict, list)) for v in value.values()):
        return False
    return all(_cited(v, source) for k, v in value.items() if k not in ("source", "note"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_richer_topic_cites_every_section_beside_its_entries(path):
    doc = _doc(path)
    for key, value in doc.items():
        if key not in PLAIN_KEYS:
            assert _cited(value, doc.get("source")), f"{path.name}: '{key}' holds a fact without a source"
    assert _cited(doc["entries"], doc.get("source")), f"{path.name}: an entry holds a line without its file"


def test_an_uncited_section_is_refused():
    assert not _cited({"lines": "1-3", "value": 4}, None)
    assert not _cited({"note": "n", "releases": {"a": {"lines": "2"}}}, None)
    assert _cited({"note": "n", "releases": {"a": {"source": "o/r:p@c", "lines": "2"}}}, None)
    assert _cited({"root": "x"}, "o/r:p@c")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_builder_reads_every_curated_file(path):
    assert re.search(rf'curated(_doc)?\("{path.stem}"\)', BUILDER), f"tools/build_op_tables.py never reads {path.name}"


def test_profiles_name_one_default_and_a_known_registry_method():
    profiles = _doc(CURATED / "profiles.json")["entries"]
    assert [p["id"] for p in profiles if p["default"]] == ["8.0"]
    methods = set(re.findall(r'^    "([a-z-]+)": registry_from_', BUILDER, re.M))
    assert methods and all(p["registry"]["method"] in methods for p in profiles)
    assert len({p["id"] for p in profiles}) == len(profiles)


def test_the_tables_and_the_cli_take_their_defaults_from_the_curated_profiles():
    from atccheck.tables import tables
    from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE

    assert DEFAULT_PROFILE == tables().default_profile.id == "8.0"
    assert DEFAULT_PRECISION_MODE == "force_fp16" and tables().atc_options["--precision_mode"].default.startswith(
        DEFAULT_PRECISION_MODE)
    from atccheck.cli.options import cann_option

    @cann_option
    def command(cann):  # pragma: no cover - only its option is read
        return cann

    option = command.__click_params__[0]
    assert option.default == DEFAULT_PROFILE and all(p in option.help for p in tables().profiles)
