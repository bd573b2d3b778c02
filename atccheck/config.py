"""Settings of ``atccheck check`` (and ``fix``, ``atc-cmd``): a config file, then the command line on top.

Where the file is found: starting in the working directory and walking up to the filesystem
root, the first folder holding ``.atccheck.toml``, or a ``pyproject.toml`` with a
``[tool.atccheck]`` table, supplies the settings (``.atccheck.toml`` wins when a folder holds
both; a ``pyproject.toml`` without the table is passed over). ``--config FILE`` names the file
instead, ``--no-config`` ignores every file. In ``.atccheck.toml`` the keys sit at the top level
(a ``[tool.atccheck]`` table is accepted too, not both).

Precedence: a setting given on the command line replaces the file's value (lists are not
merged); a setting in neither has its default. ``atccheck config`` shows the result with the
origin of every value.

Keys (kebab-case, as in ``pyproject.toml`` tool tables)::

    soc = ["Ascend310P3", "Ascend910B3"]   # or one string
    cann = "8.0"
    precision-mode = "force_fp16"
    select = ["AC1", "dynamic-input-shape"] # codes, names or prefixes of either
    ignore = ["AC305"]
    fail-on = "warning"                     # error | warning | info | never
    device-memory = 16                      # GiB
    rule-docs-url = "https://example.invalid/atccheck/docs/rules/"   # base for SARIF helpUri
    [tool.atccheck.per-node-ignores]        # node-name glob -> rules (ONNX has no comments)
    "/decoder/rnn/*" = ["aicpu-fallback"]
    [tool.atccheck.per-model-ignores]       # model glob -> rules dropped for those models
    "models/legacy_*.onnx" = ["AC303"]
    [tool.atccheck.input-shapes]            # model glob -> shapes, first match wins
    "models/det_*.onnx" = "x:1,3,640,640"
    "models/bert_*.onnx" = { input-shape = "ids:-1,128;mask:-1,128", dynamic-batch = "1,4,8" }

Globs on models are matched against the model's path relative to the config file's folder
(``*`` also crosses ``/``); a glob without ``/`` is matched against the file name alone.
"""

from __future__ import annotations

import fnmatch
import math
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from atccheck.errors import UsageError
from atccheck.fileio import real_path
from atccheck.report import FAIL_ON
from atccheck.rules import rule_matches
from atccheck.rules.internal_error import InternalError
from atccheck.rules.malformed_attribute import MalformedAttribute
from atccheck.target import DEFAULT_PRECISION_MODE, DEFAULT_PROFILE

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.findings import Finding
    from atccheck.report import Report

CONFIG_FILE = ".atccheck.toml"
PYPROJECT = "pyproject.toml"
# The findings the engine makes itself: --ignore drops them; --select, which picks rules, does not.
ENGINE_FINDINGS = ((InternalError.code, InternalError.name), (MalformedAttribute.code, MalformedAttribute.name))

DEFAULT = "default"
COMMAND_LINE = "command line"


@dataclass(frozen=True)
class NodeIgnore:
    """Findings of these rules (codes, names or prefixes) on nodes whose name matches the glob are dropped."""

    glob: str
    rules: tuple[str, ...]

    def matches(self, finding: "Finding") -> bool:
        node = finding.location.node
        return node is not None and fnmatch.fnmatchcase(node, self.glob) and any(
            rule_matches(p, finding.code, finding.name) for p in self.rules
        )


@dataclass(frozen=True)
class ModelIgnore:
    """Findings of these rules (codes, names or prefixes) in models whose path matches the glob are dropped."""

    glob: str
    rules: tuple[str, ...]

    def matches(self, finding: "Finding") -> bool:
        return any(rule_matches(p, finding.code, finding.name) for p in self.rules)


# Gear keys of an input-shapes table -> the atc option (check takes the same values).
GEAR_KEYS = {"dynamic-batch": "--dynamic_batch_size", "dynamic-image-size": "--dynamic_image_size",
             "dynamic-dims": "--dynamic_dims"}


@dataclass(frozen=True)
class ShapeGlob:
    glob: str
    shapes: str  # ATC --input_shape syntax ("" when the entry gives gears only)
    gears: tuple[str, str] | None = None  # (key in GEAR_KEYS, value), e.g. ("dynamic-batch", "1,4,8")

    def as_value(self) -> str | dict[str, str]:
        if self.gears is None:
            return self.shapes
        return {**({"input-shape": self.shapes} if self.shapes else {}), self.gears[0]: self.gears[1]}


@dataclass(frozen=True)
class Settings:
    """The effective settings of one run; ``sources`` says where each key's value came from."""

    socs: tuple[str, ...] = ()
    cann: str = DEFAULT_PROFILE
    precision_mode: str = DEFAULT_PRECISION_MODE
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_node_ignores: tuple[NodeIgnore, ...] = ()
    per_model_ignores: tuple[ModelIgnore, ...] = ()
    fail_on: str = "error"
    input_shapes: tuple[ShapeGlob, ...] = ()
    input_shape: str | None = None  # --input-shape: every model, over input-shapes
    device_memory_gib: float | None = None
    rule_docs_url: str | None = None
    config_path: Path | None = None
    root: Path = field(default_factory=Path.cwd)  # folder model globs are relative to
    sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))

    @property
    def device_memory(self) -> int | None:
        """The budget in bytes, for the engine's ``device_memory`` option."""
        return int(self.device_memory_gib * 2**30) if self.device_memory_gib else None

    def shapes_for(self, model: str | os.PathLike[str]) -> str | None:
        """The --input-shape text for a model: the command line's, else the first matching glob's."""
        if self.input_shape:
            return self.input_shape
        for entry in self.input_shapes:
            if model_matches(entry.glob, model, self.root):
                return entry.shapes or None
        return None

    def gears_for(self, model: str | os.PathLike[str]) -> tuple[str, str] | None:
        """The gear option (atc option, value) of the first matching input-shapes entry; none when
        --input-shape replaces the file's shapes."""
        if self.input_shape:
            return None
        for entry in self.input_shapes:
            if model_matches(entry.glob, model, self.root):
                return (GEAR_KEYS[entry.gears[0]], entry.gears[1]) if entry.gears else None
        return None

    def keeps(self, finding: "Finding") -> bool:
        """False for findings the settings drop after checking (per-node ignores, ignored internal errors)."""
        if any(rule.matches(finding) for rule in self.per_node_ignores):
            return False
        for code, name in ENGINE_FINDINGS:
            if finding.code == code:
                return not any(rule_matches(p, code, name) for p in self.ignore)
        return True

    def apply(self, report: "Report") -> "Report":
        """The report without the findings these settings drop after checking."""
        scoped = [e for e in self.per_model_ignores if model_matches(e.glob, report.model, self.root)]
        kept = [f for f in report.findings if self.keeps(f) and not any(e.matches(f) for e in scoped)]
        return report if len(kept) == len(report.findings) else report.filtered(kept)


# --------------------------------------------------------------------------- matching


def model_matches(glob: str, model: str | os.PathLike[str], root: Path) -> bool:
    path = Path(model)
    try:
        rel = os.path.relpath(real_path(path), real_path(root))
    except ValueError:  # another drive on Windows
        rel = str(path)
    rel = rel.replace(os.sep, "/")
    if "/" not in glob:
        return fnmatch.fnmatchcase(path.name, glob)
    return fnmatch.fnmatchcase(rel, glob.removeprefix("./"))


def split_patterns(values: Iterable[str]) -> tuple[str, ...]:
    """Repeated options and comma-separated lists both work: --select AC1,AC2 --select AC3."""
    out: list[str] = []
    for value in values:
        out.extend(p.strip() for p in value.split(",") if p.strip())
    return tuple(out)


def check_rule_patterns(patterns: Iterable[str], where: str) -> None:
    """UsageError for a pattern that names no rule (a typo would silently select or ignore nothing)."""
    from atccheck.catalogue import command_rules
    from atccheck.rules import all_rules
    from atccheck.target import closest

    known = [(r.code, r.name) for r in all_rules()] + list(ENGINE_FINDINGS)
    for pattern in patterns:
        if not any(rule_matches(pattern, code, name) for code, name in known):
            if any(rule_matches(pattern, r.code, r.name) for r in command_rules()):
                raise UsageError(f"{where}: '{pattern}' names atc command rules, which 'atccheck atc-cmd --lint' "
                                 "reports; model checks run model rules only")
            near = closest(pattern, [c for c, _ in known] + [n for _, n in known])
            hint = f"; did you mean {', '.join(near)}?" if near else "; 'atccheck rule --all' lists the rules"
            raise UsageError(f"{where}: '{pattern}' matches no rule{hint}")


# --------------------------------------------------------------------------- files


def _toml_load(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    from atccheck.fileio import decode_text, read_small_file

    text = decode_text(read_small_file(path, "config file"), path, "config file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: not valid TOML: nested too deeply") from None


def _section(path: Path, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The atccheck table of a parsed file; None when a pyproject.toml has none."""
    table = doc.get("tool", {}).get("atccheck") if isinstance(doc.get("tool"), dict) else None
    if table is not None and not isinstance(table, dict):
        raise UsageError(f"{path}: 'tool.atccheck' must be a table ([tool.atccheck]), not a {_toml_type(table)}")
    if path.name == PYPROJECT:
        return table
    if table is not None:
        rest = {k: v for k, v in doc.items() if k != "tool"}
        if rest:
            raise UsageError(f"{path}: settings both at the top level and under [tool.atccheck]; keep one")
        return table
    return doc


def _toml_type(value: Any) -> str:
    return {str: "string", bool: "boolean", int: "integer", float: "float", list: "array"}.get(type(value), "value")


def find_config(start: Path | None = None) -> Path | None:
    """The config file that applies in ``start`` (default: the working directory), or None."""
    folder = real_path(start or Path.cwd())
    for directory in (folder, *folder.parents):
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _section(pyproject, _toml_load(pyproject)) is not None:
            return pyproject
    return None


# Settings field -> the key a user writes, for messages and `atccheck config`.
FIELD_KEYS = {
    "socs": "soc",
    "cann": "cann",
    "precision_mode": "precision-mode",
    "select": "select",
    "ignore": "ignore",
    "per_node_ignores": "per-node-ignores",
    "per_model_ignores": "per-model-ignores",
    "fail_on": "fail-on",
    "input_shapes": "input-shapes",
    "input_shape": "input-shape",
    "device_memory_gib": "device-memory",
    "rule_docs_url": "rule-docs-url",
}
# The keys a config file may hold: all but --input-shape, which is a command-line option only.
KEYS = tuple(key for name, key in FIELD_KEYS.items() if name != "input_shape")


def _strings(value: Any, key: str, where: str, *, single_ok: bool = False) -> tuple[str, ...]:
    if single_ok and isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        kind = "a string or a list of strings" if single_ok else "a list of strings"
        raise UsageError(f"{where}: '{key}' must be {kind}")
    return tuple(v.strip() for v in value)


def _string(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{where}: '{key}' must be a non-empty string")
    return value.strip()


def _table(value: Any, key: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UsageError(f"{where}: '{key}' must be a table")
    return value


def _shape_glob(glob: str, value: Any, where: str) -> ShapeGlob:
    """A string of shapes, or a table with input-shape and one gear key (checked as atc checks it)."""
    label = f"input-shapes.\"{glob}\""
    if not isinstance(value, dict):
        return ShapeGlob(glob, _string(value, label, where))
    unknown = sorted(set(value) - {"input-shape", *GEAR_KEYS})
    if unknown:
        raise UsageError(f"{where}: '{label}' has unknown key(s) {', '.join(unknown)} "
                         f"(keys: input-shape, {', '.join(GEAR_KEYS)})")
    keys = [k for k in GEAR_KEYS if k in value]
    if len(keys) > 1:
        raise UsageError(f"{where}: '{label}' gives {' and '.join(keys)}; ATC takes one gear option (E10009)")
    if not keys:
        raise UsageError(f"{where}: '{label}' as a table needs a gear key ({', '.join(GEAR_KEYS)})")
    from atccheck.atc.spec import parse_gears

    text = _string(value[keys[0]], f"{label}.{keys[0]}", where)
    _, problems = parse_gears(GEAR_KEYS[keys[0]], text)
    if problems:
        raise UsageError(f"{where}: '{label}.{keys[0]}': {problems[0].message} (ATC: {problems[0].atc_error})")
    shapes = _string(value["input-shape"], f"{label}.input-shape", where) if "input-shape" in value else ""
    return ShapeGlob(glob, shapes, (keys[0], text))


def parse_file_settings(path: Path) -> dict[str, Any]:
    """The file's settings as Settings field values; UsageError names the file and the key."""
    from atccheck.target import closest

    section = _section(path, _toml_load(path))
    if section is None:
        raise UsageError(f"{path}: no [tool.atccheck] table")
    where = str(path) if path.name == CONFIG_FILE else f"{path} [tool.atccheck]"
    values: dict[str, Any] = {}
    for key, value in section.items():
        if key not in KEYS:
            near = closest(key, list(KEYS))
            hint = f"; did you mean {', '.join(near)}?" if near else f"; known keys: {', '.join(KEYS)}"
            raise UsageError(f"{where}: unknown key '{key}'{hint}")
        if key == "soc":
            values["socs"] = _strings(value, key, where, single_ok=True)
        elif key in ("cann", "precision-mode"):
            values[key.replace("-", "_")] = _string(value, key, where)
        elif key == "rule-docs-url":
            url = _string(value, key, where)
            if "://" not in url or " " in url:  # SARIF's helpUri must be an absolute URI
                raise UsageError(f"{where}: 'rule-docs-url' must be an absolute URL (https://...), not '{url}'")
            values["rule_docs_url"] = url
        elif key in ("select", "ignore"):
            values[key] = _strings(value, key, where)
        elif key == "fail-on":
            text = _string(value, key, where)
            if text not in FAIL_ON:
                raise UsageError(f"{where}: 'fail-on' must be one of {', '.join(FAIL_ON)}, not '{text}'")
            values["fail_on"] = text
        elif key == "device-memory":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UsageError(f"{where}: 'device-memory' must be a positive number of GiB")
            values["device_memory_gib"] = check_device_memory(value, f"{where}: 'device-memory'")
        elif key == "per-node-ignores":
            values["per_node_ignores"] = tuple(
                NodeIgnore(glob, _strings(rules, f"per-node-ignores.\"{glob}\"", where, single_ok=True))
                for glob, rules in _table(value, key, where).items()
            )
        elif key == "per-model-ignores":
            values["per_model_ignores"] = tuple(
                ModelIgnore(glob, _strings(rules, f"per-model-ignores.\"{glob}\"", where, single_ok=True))
                for glob, rules in _table(value, key, where).items()
            )
        elif key == "input-shapes":
            values["input_shapes"] = tuple(
                _shape_glob(glob, text, where) for glob, text in _table(value, key, where).items()
            )
    return values


# No device has a memory anywhere near this many GiB; a larger value is a typo (or inf).
MAX_DEVICE_MEMORY_GIB = 2.0**20


def check_device_memory(value: Any, where: str) -> float:
    """A device-memory budget in GiB: a finite positive number of sensible size, else UsageError."""
    try:
        gib = float(value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"{where} must be a positive number of GiB, not {value!r}") from None
    if not math.isfinite(gib) or gib <= 0 or gib > MAX_DEVICE_MEMORY_GIB:
        raise UsageError(f"{where} must be a positive number of GiB up to {MAX_DEVICE_MEMORY_GIB:.0f}, not {value!r}")
    if int(gib * 2**30) == 0:
        raise UsageError(f"{where} is below one byte: {value!r}")
    return gib


def load_settings(
    cli: Mapping[str, Any] | None = None,
    *,
    config: str | os.PathLike[str] | None = None,
    isolated: bool = False,
    cwd: Path | None = None,
) -> Settings:
    """Defaults, then the config file, then ``cli`` (Settings field -> value, only what was given)."""
    cwd = cwd or Path.cwd()
    path: Path | None = None
    if config is not None and not isolated:
        from atccheck.fileio import check_regular_file

        path = Path(config)
        check_regular_file(path, "config file")
    elif not isolated:
        path = find_config(cwd)
    values: dict[str, Any] = {}
    sources = {key: DEFAULT for key in FIELD_KEYS}
    if path is not None:
        from_file = parse_file_settings(path)
        values.update(from_file)
        for key in from_file:
            sources[key] = str(path)
    for key, value in (cli or {}).items():
        if key not in FIELD_KEYS:
            raise ValueError(f"not a setting: {key}")
        if key == "device_memory_gib" and value is not None:
            value = check_device_memory(value, "--device-memory")
        values[key] = value
        sources[key] = COMMAND_LINE
    for key in ("select", "ignore"):
        values[key] = split_patterns(values.get(key, ()))
        if values[key]:
            check_rule_patterns(values[key], f"{FIELD_KEYS[key]} ({sources[key]})")
    for name in ("per_node_ignores", "per_model_ignores"):
        for entry in values.get(name, ()):
            check_rule_patterns(entry.rules, f"{FIELD_KEYS[name]} \"{entry.glob}\" ({sources[name]})")
    root = real_path(path).parent if path is not None else cwd
    return replace(Settings(), **values, config_path=path, root=root, sources=sources)


def describe(settings: Settings) -> list[tuple[str, Any, str]]:
    """(key, value as plain data, origin) for every setting, in file order."""
    rows: list[tuple[str, Any, str]] = []
    for name, key in FIELD_KEYS.items():
        value = getattr(settings, name)
        if name in ("per_node_ignores", "per_model_ignores"):
            value = {e.glob: list(e.rules) for e in value}
        elif name == "input_shapes":
            value = {e.glob: e.as_value() for e in value}
        elif isinstance(value, tuple):
            value = list(value)
        rows.append((key, value, settings.sources.get(name, DEFAULT)))
    return rows

