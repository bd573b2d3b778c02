"""The files and names an ``atc`` command points at: find them, read them as ATC does, name the model's parts.

- :func:`resolve_command_path`: where a path a command gives lives, relative to the current
  directory and, for a script, to the script's own directory (ATC resolves it against the
  directory it runs in, which is one of the two). Other callers (a multi-model script lint) use
  it as is.
- :func:`read_command_file`: a regular file's text, read once per version of the file.
- readers for ``--keep_dtype``, ``--op_precision_mode``, ``--modify_mixlist``,
  ``--customize_dtypes`` and ``--fusion_switch_file``: typed entries (node names, op types,
  passes) and the problems ATC's own reader meets, each with its code;
- :func:`parse_out_nodes` / :func:`parse_fp16_nodes`: ``--out_nodes`` and ``--input_fp16_nodes``
  split as ATC splits them;
- :func:`graph_names`: the node names, Data nodes, outputs and Ascend op types of the graph
  ATC's ONNX parser builds from a model.

The facts (syntax, codes, sources) come from ``op_tables/command_files.json``. Nothing here prints.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.tables import Profile, Tables

FILES_TABLE = "op_tables/command_files.json"
# A configuration file of this kind is a few KiB; past this it is not one.
COMMAND_FILE_LIMIT = 16 * 2**20


# --------------------------------------------------------------------------- finding a file


@dataclass(frozen=True)
class FileBase:
    """Where relative paths of a command are looked up: the current directory, and a script's own."""

    cwd: str
    script_dir: str | None = None


@dataclass(frozen=True)
class ResolvedFile:
    """A path as written, the file it names (None: none found) and every place looked at."""

    written: str
    path: str | None
    tried: tuple[str, ...]
    unknown: bool = False  # a shell expansion left unresolved: nothing can be said


def resolve_command_path(written: str, base: FileBase, *, expand: bool = False) -> ResolvedFile:
    """The file ``written`` names: absolute as is; relative against ``base.cwd``, then the script's directory.

    ``expand`` resolves ``$VAR`` / ``${VAR}`` / ``~`` from this environment first (for a value
    that holds a shell expansion); when a variable is unset the answer is ``unknown``.
    """
    text = written
    if expand:
        text = os.path.expanduser(os.path.expandvars(written))
        if "$" in text or "`" in text:
            return ResolvedFile(written, None, (), unknown=True)
    if os.path.isabs(text):
        candidates = [text]
    else:
        candidates = [os.path.join(base.cwd, text)]
        if base.script_dir is not None:
            other = os.path.join(base.script_dir, text)
            if os.path.normpath(other) != os.path.normpath(candidates[0]):
                candidates.append(other)
    for candidate in candidates:
        if os.path.isfile(candidate):
            return ResolvedFile(written, candidate, tuple(candidates))
    return ResolvedFile(written, None, tuple(candidates))


@dataclass(frozen=True)
class FileText:
    text: str | None
    problem: str | None = None  # why it could not be read


def read_command_file(path: str) -> FileText:
    """The text of a regular file (fifos, devices and huge files are refused), cached per file version."""
    try:
        stat = os.stat(path)
    except OSError as exc:
        return FileText(None, exc.strerror or str(exc))
    return _read_cached(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _read_cached(path: str, mtime_ns: int, size: int) -> FileText:
    from atccheck.errors import UsageError
    from atccheck.fileio import read_small_file

    try:
        data = read_small_file(path, "file", limit=COMMAND_FILE_LIMIT)
    except UsageError as exc:
        return FileText(None, str(exc))
    return FileText(data.decode("utf-8", errors="replace"))


def path_chars_problem(path: str, rule: Mapping[str, Any]) -> str | None:
    """ATC's path check (CheckInputPathValid): the real path's characters, or None when they pass."""
    real = os.path.realpath(path)
    low, high = rule["allowed_unicode"]
    allowed = set(rule["allowed_ascii"].replace("a-z", "abcdefghijklmnopqrstuvwxyz")
                  .replace("A-Z", "ABCDEFGHIJKLMNOPQRSTUVWXYZ").replace("0-9", "0123456789"))
    for ch in real:
        if ord(ch) < 0x80 and ch not in allowed:
            return f"the real path {real} holds {ch!r}"
        if ord(ch) >= 0x80 and not low <= ord(ch) <= high:
            return f"the real path {real} holds {ch!r}"
    return None


# --------------------------------------------------------------------------- facts


@lru_cache(maxsize=4)
def file_facts(tbl: "Tables | None" = None) -> dict[str, Mapping[str, Any]]:
    """command_files.json's entries by flag (``kind`` file or names), plus ``split`` and ``graph_names``."""
    from atccheck.tables import tables

    doc = (tbl or tables()).docs["command_files.json"]
    facts: dict[str, Mapping[str, Any]] = {e["name"]: e for e in doc["entries"]}
    facts["split"] = doc["split"]
    facts["graph_names"] = doc["graph_names"]
    return facts


# --------------------------------------------------------------------------- reading the files


@dataclass(frozen=True)
class FileEntry:
    """One thing a file names: a node (``name``), an Ascend op type (``type``) or a fusion pass (``pass``)."""

    line: int
    kind: str
    value: str


@dataclass(frozen=True)
class FileProblem:
    """Something ATC's reader of the file meets: ``atc_error`` None when it only logs (or fails without a code)."""

    line: int | None
    message: str
    atc_error: str | None
    severity: str  # error, warning
    source: str


@dataclass(frozen=True)
class FileRead:
    entries: tuple[FileEntry, ...] = ()
    problems: tuple[FileProblem, ...] = ()


def _source(facts: Mapping[str, Any], lines: str | None) -> str:
    return f"{facts['reader']} {lines}" if lines else facts["reader"]


def _invalid(facts: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    return facts["invalid"][index]


def read_keep_dtype(text: str, facts: Mapping[str, Any]) -> FileRead:
    """``--keep_dtype``: a node name or ``OpType::<Type>`` per line."""
    entries: list[FileEntry] = []
    problems: list[FileProblem] = []
    prefix = facts["type_prefix"]
    pascal = re.compile(_invalid(facts, 0)["pattern"])
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(prefix):  # GE trims the line, then looks for the prefix at its start
            kind, value = "type", line[len(prefix):]
        else:
            kind, value = "name", line
        entries.append(FileEntry(number, kind, value))
        if kind == "type" and not pascal.match(value):
            invalid = _invalid(facts, 0)
            problems.append(FileProblem(number, f"line {number}: op type '{value}' is not PascalCase (ATC checks "
                                        "it when no node has the type)", invalid["error"], "error",
                                        _source(facts, invalid["lines"])))
    return FileRead(tuple(entries), tuple(problems))


def read_op_precision_mode(text: str, facts: Mapping[str, Any]) -> FileRead:
    """``--op_precision_mode``: an ini file of ``[ByOpType]`` / ``[ByNodeName]`` sections of ``key=mode``."""
    entries: list[FileEntry] = []
    problems: list[FileProblem] = []
    sections = facts["sections"]
    kind = "type" if sections["default"] == "types" else "name"
    modes = set(facts["modes"])
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            header = sections.get(line.strip())
            if header is not None:
                kind = "type" if header == "types" else "name"
            continue
        key, _, mode = line.partition("=")
        key, mode = key.strip(), mode.strip()
        if not key or not mode:
            invalid = _invalid(facts, 1)
            problems.append(FileProblem(number, f"line {number}: '{line.strip()}' has an empty key or mode: ATC drops it",
                                        None, "warning", _source(facts, invalid["lines"])))
            continue
        if mode not in modes:
            invalid = _invalid(facts, 0)
            problems.append(FileProblem(number, f"line {number}: '{mode}' is not a mode ATC knows "
                                        f"({', '.join(sorted(modes))}): it drops the entry for '{key}'", None,
                                        "warning", _source(facts, invalid["lines"])))
            continue
        entries.append(FileEntry(number, kind, key))
    return FileRead(tuple(entries), tuple(problems))


def read_modify_mixlist(text: str, facts: Mapping[str, Any]) -> FileRead:
    """``--modify_mixlist``: black/white/gray lists, each with to-add / to-remove arrays of op types."""
    if not text.strip():
        invalid = _invalid(facts, 0)
        return FileRead((), (FileProblem(None, "the file is empty: ATC's reader stops", invalid["error"], "error",
                                         _source(facts, invalid["lines"])),))
    layout = _invalid(facts, 1)
    try:
        doc = json.loads(text)
    except ValueError as exc:
        return FileRead((), (FileProblem(getattr(exc, "lineno", None), f"not JSON: {exc}", layout["error"], "error",
                                         _source(facts, layout["lines"])),))
    where = _mixlist_layout_problem(doc, facts)
    if where is not None:
        return FileRead((), (FileProblem(None, where, layout["error"], "error", _source(facts, layout["lines"])),))
    entries: list[FileEntry] = []
    seen: dict[str, set[str]] = {}
    for list_name, updates in doc.items():
        for update, types in updates.items():
            for op_type in types:
                seen.setdefault(str(op_type), set()).add(f"{list_name}/{update}")
                entries.append(FileEntry(_line_of(text, str(op_type)), "type", str(op_type)))
    allowed = [set(c) for c in facts["allowed_combinations"]]
    problems = []
    combination = _invalid(facts, 2)
    for op_type, where_set in sorted(seen.items()):
        if where_set not in allowed:
            problems.append(FileProblem(_line_of(text, op_type), f"'{op_type}' is in {', '.join(sorted(where_set))}: "
                                        "ATC allows one addition to a list, with at most a removal from another",
                                        combination["error"], "error", _source(facts, combination["lines"])))
    return FileRead(tuple(entries), tuple(problems))


def _mixlist_layout_problem(doc: Any, facts: Mapping[str, Any]) -> str | None:
    if not isinstance(doc, dict):
        return "the top level is not a JSON object"
    for list_name, updates in doc.items():
        if list_name not in facts["list_keys"]:
            return f"top-level key '{list_name}' is none of {', '.join(facts['list_keys'])}"
        if not isinstance(updates, dict):
            return f"'{list_name}' does not hold an object"
        for update, types in updates.items():
            if update not in facts["update_keys"]:
                return f"'{list_name}' key '{update}' is none of {', '.join(facts['update_keys'])}"
            if not isinstance(types, list):
                return f"'{list_name}'/'{update}' is not an array"
    return None


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    return 1


_DTYPE_SECTION = re.compile(r"(InputDtype|OutputDtype)")


def read_customize_dtypes(text: str, facts: Mapping[str, Any]) -> FileRead:
    """``--customize_dtypes``: ``name::InputDtype:..,OutputDtype:..`` or ``OpType::Type:...`` on every line."""
    entries: list[FileEntry] = []
    problems: list[FileProblem] = []
    dtypes = set(facts["dtypes"])
    format_error = _invalid(facts, 0)
    order_error = _invalid(facts, 1)
    dtype_error = _invalid(facts, 2)
    repeat = _invalid(facts, 3)
    seen: set[tuple[str, str]] = set()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line starts no line of its own
    for number, raw in enumerate(lines, 1):
        if len(raw) > facts["max_line"]:
            problems.append(FileProblem(number, f"line {number} is {len(raw)} characters: ATC reads lines of at "
                                        f"most {facts['max_line']} and stops the file there", None, "warning",
                                        _source(facts, facts["max_line_lines"])))
            break
        line = raw
        kind = "name"
        if line.startswith(facts["type_prefix"]):
            line, kind = line[len(facts["type_prefix"]):], "type"
        line = line.strip()
        colon = line.find(":")
        if colon <= 0:
            shown = "an empty line" if not line else f"'{line}' has no name before ':'"
            problems.append(FileProblem(number, f"line {number}: {shown}: \"The content format of the customization "
                                        "file is incorrect\"", format_error["error"], "error",
                                        _source(facts, format_error["lines"])))
            break
        name = line[:colon]
        positions = {m.group(1): m.start() for m in _DTYPE_SECTION.finditer(line)}
        if not positions or positions.get("InputDtype", -1) > positions.get("OutputDtype", len(line)):
            problems.append(FileProblem(number, f"line {number}: needs InputDtype before OutputDtype (one of them "
                                        "at least)", order_error["error"], "error", _source(facts, order_error["lines"])))
            break
        bad = [d for d in _dtypes_of(line) if d and d.upper() not in dtypes]
        if bad:
            problems.append(FileProblem(number, f"line {number}: '{bad[0]}' is not a dtype ATC knows", dtype_error["error"],
                                        "error", _source(facts, dtype_error["lines"])))
            break
        if (kind, name) in seen:
            problems.append(FileProblem(number, f"line {number}: '{name}' is given again: ATC keeps the first", None,
                                        "warning", _source(facts, repeat["lines"])))
            continue
        seen.add((kind, name))
        entries.append(FileEntry(number, kind, name))
    return FileRead(tuple(entries), tuple(problems))


def _dtypes_of(line: str) -> list[str]:
    found: list[str] = []
    for match in re.finditer(r"(InputDtype|OutputDtype):([^:]*?)(?=,?(?:InputDtype|OutputDtype)|$)", line):
        found.extend(part.strip() for part in match.group(2).split(","))
    return found


def read_fusion_switch(text: str, facts: Mapping[str, Any]) -> FileRead:
    """``--fusion_switch_file``: the JSON form, or lines of ``PassName:on|off`` when it is not JSON."""
    if not text.strip():
        return FileRead((), (FileProblem(None, "the file is empty", facts["missing"]["error"], "error",
                                         _source(facts, facts["missing"]["lines"])),))
    try:
        doc = json.loads(text)
    except ValueError:
        return _fusion_lines(text, facts)
    layout = _invalid(facts, 0)
    problem = _fusion_layout_problem(doc, facts)
    if problem is not None:
        return FileRead((), (FileProblem(None, problem, layout["error"], "error", _source(facts, layout["lines"])),))
    entries = [FileEntry(_line_of(text, name), "pass", name)
               for group in doc.get("Switch", {}).values() for name in group]
    return FileRead(tuple(entries))


def _fusion_layout_problem(doc: Any, facts: Mapping[str, Any]) -> str | None:
    if not isinstance(doc, dict):
        return "the top level is not a JSON object"
    for key, value in doc.items():
        if key.strip() not in facts["top_keys"]:
            return f"top-level key '{key}' is none of {', '.join(facts['top_keys'])}"
        if key.strip() == "ExceptionalPassOfO1Level":
            if not isinstance(value, list):
                return "'ExceptionalPassOfO1Level' is not an array"
            continue
        if not isinstance(value, dict):
            return f"'{key}' does not hold an object"
        for fusion, passes in value.items():
            if fusion.strip() not in facts["fusion_keys"]:
                return f"'{key}' key '{fusion}' is none of {', '.join(facts['fusion_keys'])}"
            if not isinstance(passes, dict):
                return f"'{key}'/'{fusion}' does not hold an object"
            if key.strip() == "Switch":
                for name, switch in passes.items():
                    if str(switch).strip() not in facts["switch_values"]:
                        return f"pass '{name}' is '{switch}', not on or off"
    return None


def _fusion_lines(text: str, facts: Mapping[str, Any]) -> FileRead:
    """The line form, which ATC also falls back to for a file that is broken JSON."""
    entries: list[FileEntry] = []
    broken = " (the file is not valid JSON, so ATC reads it line by line)" if text.lstrip().startswith("{") else ""
    seen: set[str] = set()
    colon, value_error, repeat = _invalid(facts, 1), _invalid(facts, 2), _invalid(facts, 3)
    for number, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        if ":" not in line:
            return FileRead(tuple(entries), (FileProblem(number, f"line {number}: '{line.strip()}' has no ':'{broken}",
                                                         colon["error"], "error", _source(facts, colon["lines"])),))
        name, _, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if value not in facts["switch_values"]:
            return FileRead(tuple(entries), (FileProblem(number, f"line {number}: pass '{name}' is '{value}', not on "
                                                         f"or off{broken}", value_error["error"], "error",
                                                         _source(facts, value_error["lines"])),))
        if name in seen:
            return FileRead(tuple(entries), (FileProblem(number, f"line {number}: pass '{name}' is given twice",
                                                         repeat["error"], "error", _source(facts, repeat["lines"])),))
        seen.add(name)
        entries.append(FileEntry(number, "pass", name))
    return FileRead(tuple(entries))


READERS = {
    "lines": read_keep_dtype,
    "ini": read_op_precision_mode,
    "json": read_modify_mixlist,
    "dtype-lines": read_customize_dtypes,
    "fusion-switch": read_fusion_switch,
}


def read_option_file(flag: str, text: str, facts: Mapping[str, Any] | None = None) -> FileRead:
    """Read the file of ``flag`` (one of the five file flags) as ATC's reader of it does."""
    facts = facts or file_facts()[flag]
    return READERS[facts["format"]](text, facts)


# --------------------------------------------------------------------------- name lists


def ge_split(text: str, sep: str) -> list[str]:
    """GE's StringUtils::Split: empty parts kept, one more after a trailing separator (as str.split does)."""
    return text.split(sep)


@dataclass(frozen=True)
class OutNode:
    text: str
    name: str
    index: int | None  # None: a tensor name


@dataclass(frozen=True)
class OutNodes:
    entries: tuple[OutNode, ...]
    problems: tuple[FileProblem, ...] = ()

    @property
    def mixed(self) -> bool:
        kinds = {e.index is None for e in self.entries}
        return len(kinds) > 1


def parse_out_nodes(value: str, facts: Mapping[str, Any] | None = None) -> OutNodes:
    """``--out_nodes`` as omg.cc ParseOutNodes reads it (format problems only; names need the model)."""
    facts = facts or file_facts()["--out_nodes"]
    checks = facts["checks"]
    entries: list[OutNode] = []
    for part in ge_split(value, ";"):
        pieces = ge_split(part, ":")
        if len(pieces) == 1:
            entries.append(OutNode(part, part, None))
            continue
        if len(pieces) != 2:
            return OutNodes(tuple(entries), (FileProblem(None, f"entry '{part}' has {len(pieces) - 1} ':'; entries are "
                                                         "node:index or a tensor name", checks[0]["error"], "error",
                                                         f"{facts['reader']} {checks[0]['lines']}"),))
        index_text = pieces[1].strip()
        if not index_text.isdigit() or not index_text.isascii():
            return OutNodes(tuple(entries), (FileProblem(None, f"entry '{part}': the index '{pieces[1]}' is not a "
                                                         "non-negative integer", checks[1]["error"], "error",
                                                         f"{facts['reader']} {checks[1]['lines']}"),))
        index = int(index_text)
        if index > 2**31 - 1:
            return OutNodes(tuple(entries), (FileProblem(None, f"entry '{part}': the index is beyond int32",
                                                         checks[2]["error"], "error",
                                                         f"{facts['reader']} {checks[2]['lines']}"),))
        entries.append(OutNode(part, pieces[0], index))
    result = OutNodes(tuple(entries))
    if result.mixed:
        empty = " (an empty entry, as a trailing or doubled ';' makes, is a tensor name to ATC)" \
            if any(e.text == "" for e in result.entries) else ""
        return OutNodes(result.entries, (FileProblem(None, "node:index entries and tensor names are mixed"
                                                     f"{empty}: \"Only one of index, top_name and output_name can "
                                                     "be used.\"",
                                                     checks[3]["error"], "error",
                                                     f"{facts['reader']} {checks[3]['lines']}"),))
    return result


def parse_fp16_nodes(value: str) -> list[str]:
    """``--input_fp16_nodes``: names split on ';' as GE splits them (not trimmed)."""
    return ge_split(value, ";")


# --------------------------------------------------------------------------- the parsed graph's names


@dataclass(frozen=True)
class GraphNames:
    """The names ATC's ONNX parser gives the model's parts, and the Ascend op types it maps them to."""

    nodes: Mapping[str, str]  # node name (parser's) -> ONNX op type
    outputs: Mapping[str, int]  # node name -> output count
    data: tuple[str, ...]  # Data nodes: the real graph inputs
    consts: frozenset[str]  # Const nodes of the initializers
    tensors: frozenset[str]  # every tensor a node outputs
    ascend: Mapping[str, tuple[str, ...]]  # ONNX op type -> the Ascend IR types it becomes (empty: unknown)
    names_source: str = ""
    ascend_source: str = field(default="", compare=False)

    @property
    def all_names(self) -> frozenset[str]:
        return frozenset(self.nodes) | frozenset(self.data) | self.consts

    @property
    def ascend_types(self) -> frozenset[str]:
        return frozenset(t for types in self.ascend.values() for t in types)

    def onnx_types_of(self, ascend_type: str) -> tuple[str, ...]:
        return tuple(sorted(op for op, types in self.ascend.items() if ascend_type in types))


def graph_names(model: "onnx.ModelProto", profile: "Profile | None" = None, tbl: "Tables | None" = None) -> GraphNames:
    """The parsed graph's names for ``model`` (root graph) under ``profile``'s parser and registry."""
    from atccheck.model.input_shape import model_inputs
    from atccheck.tables import tables

    tbl = tbl or tables()
    graph = model.graph
    nodes: dict[str, str] = {}
    outputs: dict[str, int] = {}
    tensors: set[str] = set()
    unnamed = 0
    for node in graph.node:
        name = node.name
        if not name:
            name = f"{node.op_type}_{unnamed}"
            unnamed += 1
        nodes.setdefault(name, node.op_type)
        outputs[name] = max(outputs.get(name, 0), len(node.output))
        tensors.update(o for o in node.output if o)
    pattern = profile.initializer_node_name if profile is not None else "{name}_{i}"
    initializer_names = sorted({t.name for t in graph.initializer if t.name}, key=lambda n: n.encode("utf-8"))
    consts = frozenset(pattern.format(name=n, i=i) for i, n in enumerate(initializer_names))
    data = tuple(i.name for i in model_inputs(model))
    ascend: dict[str, tuple[str, ...]] = {}
    if profile is not None:
        registry = tbl.registry(profile.id)
        opsets = {o.domain: o.version for o in model.opset_import}
        for node in graph.node:
            if node.op_type in ascend:
                continue
            reg = registry.lookup(node.domain, node.op_type)
            opset = opsets.get(node.domain, opsets.get("ai.onnx" if not node.domain else node.domain, 0))
            mapped = reg.mapping_at(opset) if reg is not None else ()
            ascend[node.op_type] = tuple(sorted({t for m in mapped for t in m.ascend_ops}))
    facts = file_facts(tbl)["graph_names"]
    return GraphNames(nodes, outputs, data, consts, frozenset(tensors), ascend,
                      f"{facts['source']} {facts['lines']}", "op_tables/registry.json")


def near_names(name: str, choices: Sequence[str]) -> list[str]:
    """Up to three names close to ``name`` (case, spaces, a near spelling)."""
    import difflib

    exact_case = [c for c in choices if c.lower() == name.strip().lower()]
    return (exact_case or difflib.get_close_matches(name.strip(), list(choices), n=3, cutoff=0.75))[:3]
