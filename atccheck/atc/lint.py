"""Lint an ``atc`` command a user already has, the way ATC's option parser will read it.

Two layers, as on a real machine:

1. the shell (``shell.py``): quotes, ``$VAR`` expansions and unquoted ``;`` that cut a command;
2. ATC's parser (hicann/ge ``api/atc/cmd_flag_info.cc``): ``-name`` is rewritten to ``--name``
   when two letters follow the dash, ``-`` inside a name becomes ``_``, getopt_long then takes
   ``--name=value`` or ``--name value`` (the next word, even one starting with ``--``), accepts a
   unique prefix of a flag, stops at an unknown flag (``ERROR: unknown command line flag``) and
   finally rejects stray words (``ERROR: Non-option parameter``).

Then the values are checked with the rules the generator obeys (``spec.py``): soc literal,
input names and ranks against the model, gear rules, dynamic shape per chip, precision.
Every defect is a :class:`~atccheck.findings.Finding` of a command rule (AC5xx, one module each
under ``atccheck/rules/atc_cmd/``) with the ATC error it would cause.

Where the user's intent is clear (two flags glued together, a space after ``=``, a unicode
dash), the value checks run on what was meant, so one mistake gives one finding.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from atccheck.atc import codes as C
from atccheck.atc.facts import (
    OPTIONS_TABLE,
    PARSER_SOURCE,
    FlagInfo,
    gear_flags,
    known_flags,
    required_flags,
    soc_source,
    valid_soc_names,
)
from atccheck.atc.shell import Command, ShellSyntaxError, Word, split_commands
from atccheck.atc.spec import (
    Problem,
    ShapeEntry,
    check_dynamic_mode,
    check_gear_count,
    check_gears_against_shape,
    check_names_and_ranks,
    gear_option_for,
    model_inputs,
    parse_gears,
    parse_input_shape,
)
from atccheck.errors import UsageError
from atccheck.findings import Finding, Location, Severity
from atccheck.rules import command_rule
from atccheck.tables import tables
from atccheck.target import DEFAULT_PROFILE, known_invalid_soc, resolve_profile, resolve_soc

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.tables import Profile, Soc, Tables

COMMAND_GRAPH = "atc-command"  # Location.graph of every lint finding: the place is an option, not a node
UNICODE_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
WRAPPERS = ("sudo", "nohup", "time", "exec", "command", "env")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_ANGLE = re.compile(r"<[^<>\s]*[A-Za-z][^<>]*>")
_LOOKS_LIKE_VALUE = re.compile(r"^[^\s/=]*:[-0-9~,]*\Z|^[0-9][0-9,;]*\Z")


@dataclass(frozen=True)
class Occurrence:
    """One flag as ATC's parser sees it (or, with ``intended``, as the user meant it)."""

    flag: str  # canonical --name
    value: str | None
    written: str  # the word(s) as typed
    word: Word | None = None
    intended: bool = False  # recovered from a defect ATC would not see through

    @property
    def has_expansion(self) -> bool:
        return bool(self.word and self.word.expansions)


@dataclass(frozen=True)
class ParsedCommand:
    argv: tuple[str, ...]  # what the atc process receives (expansions left as written)
    occurrences: tuple[Occurrence, ...]
    line: int

    def last(self, flag: str) -> Occurrence | None:
        found = [o for o in self.occurrences if o.flag == flag]
        return found[-1] if found else None

    def value(self, flag: str) -> str | None:
        occurrence = self.last(flag)
        return occurrence.value if occurrence else None

    def has(self, flag: str) -> bool:
        return any(o.flag == flag for o in self.occurrences)


@dataclass(frozen=True)
class LintResult:
    commands: tuple[ParsedCommand, ...]
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return counts

    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


class _Collector:
    """Builds findings with the defaults of the command rule (``atccheck/rules/atc_cmd/``) that names each."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.line = 1  # line of the atc command being linted, for scripts with several

    def add(self, name: str, option: str | None, message: str, *, hint: str, source: str = PARSER_SOURCE,
            atc_error: str | None = "default", severity: Severity | None = None, data: dict | None = None) -> None:
        rule = command_rule(name)
        self.findings.append(rule.finding(
            Location(graph=COMMAND_GRAPH, node=option),
            message,
            hint=hint,
            source=source,
            atc_error=rule.atc_error if atc_error == "default" else atc_error,
            severity=severity,
            data={**(data or {}), "line": self.line},
        ))


@functools.lru_cache(maxsize=1024)
def _close_matches(word: str, choices: tuple[str, ...], cutoff: float) -> tuple[str, ...]:
    """difflib's close matches, remembered: a script repeats the same wrong flag on every line."""
    return tuple(difflib.get_close_matches(word, list(choices), n=3, cutoff=cutoff))


# --------------------------------------------------------------------------- finding the atc commands


def _program_index(command: Command) -> int | None:
    """Index of the atc program word, skipping VAR=value assignments and sudo/nohup/time."""
    for index, word in enumerate(command.words):
        text = word.text
        if _ASSIGNMENT.match(text) or text in WRAPPERS:
            continue
        return index if os.path.basename(text) == "atc" else None
    return None


def _atc_commands(commands: list[Command], out: _Collector) -> list[tuple[list[Word], int]]:
    """Each atc command's argument words, with unquoted-separator continuations re-joined."""
    found: list[tuple[list[Word], int]] = []
    i = 0
    while i < len(commands):
        command = commands[i]
        start = _program_index(command)
        if start is None:
            i += 1
            continue
        words = list(command.words[start + 1:])
        end = command.end
        j = i + 1
        while end in (";", "&", "|", "&&", "||") and j < len(commands):
            following = commands[j]
            first = following.words[0].text if following.words else ""
            if end == "&" and _redirection_cut(words, following):  # '2>&1', '&> log': the '&' belongs to it
                words = _join_redirection(words, following)
                end = following.end
                j += 1
                continue
            if not (first.startswith("--") or _LOOKS_LIKE_VALUE.match(first)):
                break
            cut = words[-1].text if words else ""
            flag = cut.split("=", 1)[0] if cut.startswith("-") else "the command"
            lost = sorted({w.text.split("=", 1)[0] for w in following.words if w.text.startswith("--")})
            message = (f"an unquoted '{end}' in the value of {flag} ends the atc command: ATC sees "
                       f"'{cut}' and the shell runs '{first}' as another command")
            if lost:
                message += f"; lost to ATC: {', '.join(lost)}"
            lost_required = [f for f in lost if f in dict(required_flags())]
            if not lost_required:
                message += ("; what ATC reports then depends on the lost part (an input left at -1 gives E10001, "
                            "a missing entry leaves the model's dims)")
            out.line = command.line
            out.add("unquoted-shell-separator", flag if flag.startswith("--") else None, message,
                    hint=f"wrap the whole value in double quotes: {flag}=\"...\"",
                    source="shared/reference/notes/atc_cli.md rule 3; E10054",
                    atc_error="E10054" if lost_required else None,
                    data={"separator": end, "lost_flags": lost})
            if words and following.words and end == ";":
                joined = words[-1]
                glue = following.words[0]
                words[-1] = Word(joined.text + ";" + glue.text, joined.raw + ";" + glue.raw,
                                 joined.expansions + glue.expansions, joined.quoted or glue.quoted)
                words.extend(following.words[1:])
            else:
                words.extend(following.words)
            end = following.end
            j += 1
        found.append((_without_redirections(words), command.line))
        i = j
    return found


# A shell redirection word: '>', '>>', '2>', '<', '>|', '2>&1', '&>log', '>atc.log', ... (POSIX 2.7).
# A whole-word '<name>' is left alone: it is a placeholder the value checks report.
_REDIRECTION = re.compile(r"^(?:[0-9]*(?:>>|>&|>\||<&|<>|>|<)|&>>?)")
_FD_TARGET = re.compile(r"^(?:[0-9]+-?|-)$")


def _is_redirection(word: Word) -> bool:
    return not word.quoted and bool(_REDIRECTION.match(word.text)) and not _ANGLE.fullmatch(word.text)


def _redirection_cut(words: list[Word], following: Command) -> bool:
    """The shell split at the '&' of '2>&1' or '&>': the text before ends in '>' / '<', or the
    text after starts with '>'. Either way the redirection, and the atc command, go on."""
    if not following.words or following.words[0].quoted:
        return False
    first = following.words[0].text
    if words and _is_redirection(words[-1]) and words[-1].text.endswith((">", "<")):
        return bool(_FD_TARGET.match(first))
    return first.startswith(">")


def _join_redirection(words: list[Word], following: Command) -> list[Word]:
    first = following.words[0]
    if words and _is_redirection(words[-1]) and words[-1].text.endswith((">", "<")) and _FD_TARGET.match(first.text):
        last = words[-1]
        return [*words[:-1], Word(last.text + "&" + first.text, last.raw + "&" + first.raw), *following.words[1:]]
    return [*words, Word("&" + first.text, "&" + first.raw), *following.words[1:]]


def _without_redirections(words: list[Word]) -> list[Word]:
    """The words ATC receives: the shell takes redirections (and their targets) out of argv."""
    kept: list[Word] = []
    target_next = False
    for word in words:
        if target_next:
            target_next = False
            continue
        if _is_redirection(word):
            operator = _REDIRECTION.match(word.text)
            target_next = operator is not None and operator.end() == len(word.text) and not word.text.endswith("&")
            continue
        kept.append(word)
    return kept


# --------------------------------------------------------------------------- ATC's option parser


def _normalize(text: str) -> tuple[str, bool]:
    """FormatArgv: '-name' -> '--name' when two letters follow; '-' in the name -> '_'."""
    promoted = False
    if re.match(r"^-(?!-)[A-Za-z]{2,}", text):
        text = "-" + text
        promoted = True
    if re.match(r"^--[A-Za-z]{2,}", text):
        head, sep, tail = text.partition("=")
        text = head[:4] + head[4:].replace("-", "_") + sep + tail
    return text, promoted


def _resolve_flag(name: str, flags: dict[str, FlagInfo]) -> tuple[str | None, list[str]]:
    """(canonical flag, candidates): exact match, else getopt_long's unique-prefix match."""
    if name in flags:
        return name, [name]
    candidates = sorted(f for f in flags if f.startswith(name))
    if len(candidates) == 1:
        return candidates[0], candidates
    return None, candidates


def _glued(value: str, flags: dict[str, FlagInfo]) -> tuple[str, str] | None:
    """'x:1,3,224,224--output=out' -> ('x:1,3,224,224', '--output=out') when a known flag is glued on."""
    for match in re.finditer(r"-{1,2}([A-Za-z][A-Za-z0-9_-]+)", value):
        start = match.start()
        if start == 0:
            continue
        candidate = "--" + match.group(1).replace("-", "_")
        if candidate in flags:
            return value[:start], "--" + value[start:].lstrip("-")
    return None


def parse_atc_words(words: list[Word], out: _Collector, flags: dict[str, FlagInfo], line: int) -> ParsedCommand:
    """Walk the words as getopt_long does; each helper reads one flag and says where the next word is."""
    occurrences: list[Occurrence] = []
    stray: list[Word] = []
    i = 0
    end_of_options = False
    while i < len(words):
        word = words[i]
        text = word.text
        i += 1
        if end_of_options or not text.startswith(("-",) + tuple(UNICODE_DASHES)) or text == "-":
            stray.append(word)
        elif text == "--":
            end_of_options = True
        elif text[0] in UNICODE_DASHES:
            occurrences.extend(_unicode_dash_flag(word, out, flags))
        else:
            normalized, promoted = _normalize(text)
            if normalized.startswith("--"):
                found, i = _long_flag(word, normalized, promoted, words, i, out, flags)
                occurrences.extend(found)
            elif normalized == "-h":  # getopt's short options: only -h exists
                occurrences.append(Occurrence("--help", None, text, word))
            else:
                _short_flag(normalized, out)
    _report_stray_words(words, stray, occurrences, out)
    return ParsedCommand(tuple(w.text for w in words), tuple(occurrences), line)


def _unicode_dash_flag(word: Word, out: _Collector, flags: dict[str, FlagInfo]) -> list[Occurrence]:
    """A flag typed with an en/em dash: ATC sees a stray word; the value checks run on what was meant."""
    text = word.text
    fixed = "--" + text.lstrip("-" + UNICODE_DASHES)
    shown = text.split("=", 1)[0]
    out.add("unicode-dash-flag", fixed.split("=", 1)[0],
            f"'{shown}' starts with '{text[0]}' (U+{ord(text[0]):04X}), not '-': ATC reads the word as a "
            "stray parameter and the flag as unset", hint=f"type plain ASCII dashes: {fixed.split('=', 1)[0]}")
    normalized, _ = _normalize(fixed)
    name, eq, value = normalized.partition("=")
    canonical, _ = _resolve_flag(name, flags)
    return [Occurrence(canonical, value if eq else None, text, word, True)] if canonical else []


def _long_flag(word: Word, normalized: str, promoted: bool, words: list[Word], i: int, out: _Collector,
               flags: dict[str, FlagInfo]) -> tuple[list[Occurrence], int]:
    """``--name``, ``--name=value`` or ``--name value`` (``words[i]`` is the word after it)."""
    text = word.text
    name, eq, value = normalized.partition("=")
    canonical, candidates = _resolve_flag(name, flags)
    if promoted:
        out.add("single-dash-flag", canonical or name,
                f"'{text.split('=', 1)[0]}' has one dash; ATC rewrites it to '{name}' because two letters "
                "follow, so it works here, but it is not the documented form",
                hint=f"write {canonical or name}", atc_error=None)
    if canonical is None:
        near = candidates or list(_close_matches(name, tuple(flags), 0.7))
        hint = f"did you mean {', '.join(near[:3])}?" if near else "run 'atc --help' for the flags"
        what = "is ambiguous: it starts " + ", ".join(candidates[:4]) if len(candidates) > 1 else "is not a flag"
        out.add("unknown-atc-flag", name,
                f"'{name}' {what}; ATC stops with \"ERROR: unknown command line flag '{name.lstrip('-')}'\"",
                hint=hint, data={"flag": name, "candidates": candidates[:5]})
        if not eq and i < len(words) and not words[i].text.startswith("-"):
            i += 1  # its value, most likely
        return [], i
    if canonical != name:
        out.add("abbreviated-flag", canonical, f"'{name}' is accepted as an abbreviation of {canonical}",
                hint=f"spell it out: {canonical}")
    if eq:
        return _value_after_equals(word, canonical, value, words, i, out, flags)
    if not flags[canonical].takes_value:
        return [Occurrence(canonical, None, text, word)], i
    if i >= len(words):
        out.add("missing-flag-value", canonical,
                f"{canonical} is the last word and has no value: ATC stops with \"ERROR: flag '{text}' is "
                "missing its argument\"", hint=f"give it a value: {canonical}=...")
        return [], i
    nxt = words[i]
    if nxt.text.startswith("--"):
        swallowed = nxt.text.split("=", 1)[0]
        out.add("missing-flag-value", canonical,
                f"{canonical} has no value, so getopt_long takes the next word '{nxt.text}' as its value "
                f"and {swallowed} is never set", hint=f"give {canonical} its value, or remove it",
                atc_error="E10054", data={"flag": canonical, "swallowed": swallowed})
    return [Occurrence(canonical, nxt.text, f"{text} {nxt.raw}", nxt)], i + 1


def _value_after_equals(word: Word, canonical: str, value: str, words: list[Word], i: int, out: _Collector,
                        flags: dict[str, FlagInfo]) -> tuple[list[Occurrence], int]:
    """``--name=value``, unless another flag is glued to the value or a space follows the '='."""
    text = word.text
    glued = _glued(value, flags)
    if glued is not None:
        head, rest = glued
        other = rest.split("=", 1)[0]
        out.add("glued-flags", canonical,
                f"{canonical} and {other} are one word ('...{head[-12:]}{rest[:len(other) + 1]}...'): "
                f"ATC reads '{value}' as the value of {canonical} and never sees {other}",
                hint="put a space before the second flag (after the closing quote)",
                atc_error="E10054", data={"flag": canonical, "glued": other})
        found = [Occurrence(canonical, head, text, word, True)]
        other_name, _, other_value = rest.partition("=")
        other_canonical, _ = _resolve_flag(other_name, flags)
        if other_canonical:
            found.append(Occurrence(other_canonical, other_value, text, word, True))
        return found, i
    if value == "" and i < len(words) and not words[i].text.startswith("-") and flags[canonical].takes_value:
        nxt = words[i]
        out.add("space-after-equals", canonical,
                f"'{text} {nxt.text}': the space after '=' gives {canonical} an empty value and "
                f"'{nxt.text}' becomes a stray word (\"ERROR: Non-option parameter: {nxt.text}\")",
                hint=f"remove the space: {canonical}={nxt.text}", data={"flag": canonical})
        return [Occurrence(canonical, nxt.text, f"{text} {nxt.raw}", nxt, True)], i + 1
    return [Occurrence(canonical, value, text, word)], i


def _short_flag(normalized: str, out: _Collector) -> None:
    """A single dash and fewer than two letters: getopt reads short options, and ATC has none but -h."""
    flag = normalized.split("=", 1)[0]
    short = normalized.lstrip("-").split("=", 1)[0]
    out.add("single-dash-flag", flag,
            f"'{flag}' is read as short option(s), which ATC does not have: ATC stops "
            f"with \"ERROR: unknown command line flag '{short}'\"",
            hint="use the long form with two dashes, e.g. --output=...", severity=Severity.ERROR,
            atc_error=C.UNKNOWN_FLAG)


def _report_stray_words(words: list[Word], stray: list[Word], occurrences: list[Occurrence], out: _Collector) -> None:
    # the flag written just before each stray word, which it most likely belongs to: one walk
    # over the words (a script may continue one command over thousands of lines)
    at: dict[int, Occurrence] = {}  # word index -> the first occurrence read from that word
    position = {id(word): index for index, word in enumerate(words)}
    for occurrence in occurrences:
        if occurrence.word is not None:
            at.setdefault(position[id(occurrence.word)], occurrence)
    strays = {id(word) for word in stray}
    preceding: dict[int, Occurrence | None] = {}
    latest: Occurrence | None = None
    for index, word in enumerate(words):
        if id(word) in strays:
            preceding[id(word)] = latest
        latest = at.get(index, latest)
    for word in stray:
        previous = preceding[id(word)]
        hint = "quote the value it belongs to, or remove it"
        if previous is not None and previous.value is not None and not previous.value.endswith(('"', "'")):
            hint = f"if it is part of the value of {previous.flag}, quote the whole value"
        out.add("stray-word", None,
                f"'{word.text}' belongs to no flag: ATC stops with \"ERROR: Non-option parameter: {word.text}\"",
                hint=hint, data={"word": word.text})


# --------------------------------------------------------------------------- value checks


def _check_enums(cmd: ParsedCommand, out: _Collector, flags: dict[str, FlagInfo], profile: "Profile | None") -> None:
    for occurrence in cmd.occurrences:
        info = flags[occurrence.flag]
        if occurrence.flag == "--precision_mode_v2" and profile is not None and not profile.precision_mode_v2:
            out.add("flag-not-in-release", occurrence.flag,
                    f"CANN {profile.id} has no {occurrence.flag}; its ATC stops with \"ERROR: unknown command line "
                    f"flag 'precision_mode_v2'\"", hint="use --precision_mode with the matching v1 value",
                    source=OPTIONS_TABLE)
            continue
        if info.relevance == "removed" and not _removal_applies(info, profile):
            out.add("flag-not-for-onnx", occurrence.flag,
                    f"{occurrence.flag}: {info.note or 'removed'} That holds for {info.source}; the facts do not "
                    f"record it as removed in CANN {profile.id}, an earlier release, where it may still be "  # type: ignore[union-attr]
                    "accepted",
                    hint=f"check 'atc --help' of your release; from the release that removed it on, drop "
                    f"{occurrence.flag}", severity=Severity.INFO, atc_error=None, source=info.source)
            continue
        if info.relevance in ("not_for_onnx", "removed"):
            removed = info.relevance == "removed"
            out.add("flag-not-for-onnx", occurrence.flag,
                    f"{occurrence.flag} {'has been removed' if removed else 'does nothing for ONNX models'}"
                    + (f": {info.note}" if info.note else ""), hint=f"remove {occurrence.flag}",
                    severity=Severity.ERROR if removed else Severity.WARNING,
                    atc_error="E10060" if removed else None, source=info.source)
            continue
        if occurrence.flag in ("--input_format", "--framework"):
            continue  # their own checks below
        if info.allowed and occurrence.value is not None and not occurrence.has_expansion \
                and occurrence.value not in info.allowed:
            out.add("invalid-flag-value", occurrence.flag,
                    f"'{occurrence.value}' is not a value of {occurrence.flag} (values: {', '.join(info.allowed)})",
                    hint=f"use one of: {', '.join(info.allowed)}", atc_error=info.value_error, source=info.source)


def _removal_applies(info: FlagInfo, profile: "Profile | None") -> bool:
    """Whether a flag's 'removed' fact covers the target release.

    The option table describes CANN 9.0 and the open-source GE tree (atc_options.json
    ``baseline``); a removal recorded from that tree (``hicann/...`` source) without a
    version note holds for the profiles built on the same source generation (``mapping_from``
    ``hicann-*``: 8.0, 9.0), not for the releases before it (5.0, 6.0: ``canndev-2022``), where
    the facts are silent (``--auto_tune_mode`` was an ATC flag of those releases).
    """
    if profile is None:
        return True
    origin = info.source.split("/", 1)[0]
    return profile.mapping_from.split("-", 1)[0] == origin


def _release_of_remark(remark: str) -> str | None:
    """The CANN release an invalid-name entry's remark ties the name to ("... in very early CANN 5.0
    material"), or None."""
    match = re.search(r"CANN (\d+\.\d+)", remark)
    return match.group(1) if match else None


def _check_soc(cmd: ParsedCommand, out: _Collector, tbl: "Tables", profile: "Profile | None" = None) -> "Soc | None":
    occurrence = cmd.last("--soc_version")
    if occurrence is None or occurrence.value is None or occurrence.has_expansion or not occurrence.value:
        return None
    value = occurrence.value
    names = valid_soc_names(tbl)
    source = soc_source(tbl)
    if value in names:
        soc = tbl.socs.get(value)
        if soc is None:
            out.add("invalid-soc-version", "--soc_version",
                    f"'{value}' is a valid ATC target ({names[value]}), but atccheck has no facts for it: chip checks "
                    "are skipped", hint="run the check on real hardware with 'atc --mode=3'", atc_error=None,
                    severity=Severity.INFO, source=source)
        return soc
    by_lower = {n.lower(): n for n in names}
    near = list(_close_matches(value, tuple(names), 0.6))
    if value.lower() in by_lower:
        reason = f"--soc_version is case-sensitive: write {by_lower[value.lower()]}"
    elif (remark := known_invalid_soc(value, tbl.atc_options_extra.get("soc_version_not_valid", ()))) is not None:
        if profile is not None and _release_of_remark(remark) == profile.id:
            # an earlier name of the release the command targets: the facts cannot tell, so no error
            out.add("invalid-soc-version", "--soc_version",
                    f"'{value}' is not a current --soc_version, but the facts record it for CANN {profile.id}: "
                    f"{remark}; that release's ATC may accept it, and atccheck checks no chip facts for it",
                    hint="if ATC rejects it, use the current name ('atccheck targets' lists them)", atc_error=None,
                    severity=Severity.WARNING, source=OPTIONS_TABLE + " soc_versions.not_valid_for_atc",
                    data={"value": value, "suggestions": near})
            return None
        reason = f"not an ATC target: {remark}"
    elif re.fullmatch(r"(?i)ascend", value):
        reason = "'Ascend' alone names no chip: append the model, e.g. Ascend310P3 (see 'npu-smi info')"
    elif re.search(r"(?i)x{2,}", value):
        reason = "a template placeholder ('xxx') left in: put the chip name from 'npu-smi info'"
    else:
        reason = "no platform config has this name" + (f"; did you mean {', '.join(near)}?" if near else "")
    short_names = [n for n in names if n.startswith(value) and n != value]
    if short_names and "case-sensitive" not in reason:
        reason += f" (the family has {', '.join(short_names[:4])}{', ...' if len(short_names) > 4 else ''})"
    out.add("invalid-soc-version", "--soc_version", f"'{value}' is not a --soc_version: {reason}",
            hint="use the exact name of the chip that will run the model ('atccheck targets' lists them)",
            atc_error=None, source=source,
            data={"value": value, "suggestions": near})
    return tbl.socs.get(by_lower.get(value.lower(), ""), None)


# Problem.kind (spec.py) -> the lint code that reports it and the hint that goes with it.
_PROBLEM_FINDINGS = {
    "input-shape-syntax": ("input-shape-syntax",
                           "write \"name:d0,d1,...;name2:...\" with positive integers (-1 for gear axes)"),
    "input-name": ("input-name-not-in-model", "use the exact graph input names (initializers excluded)"),
    "input-rank": ("input-rank-mismatch", "give as many dims as the model input has"),
    "gear-rule": ("gear-rule", "see the gear rules in docs/atc.md, or let 'atccheck atc-cmd' write the command"),
    "dynamic-shape": ("dynamic-shape-on-static-chip", "give static shapes, or gears ({gear})"),
    "dynamic-shape-release": ("dynamic-shape-not-in-release", "give static shapes, or gears ({gear})"),
}


def _shape_problems_to_findings(problems: Iterable[Problem], out: _Collector,
                                entries: Sequence[ShapeEntry] = ()) -> None:
    for problem in problems:
        name, hint = _PROBLEM_FINDINGS[problem.kind]
        hint = hint.format(gear=gear_option_for(entries)) if "{gear}" in hint else hint
        out.add(name, problem.option, problem.message, hint=hint, atc_error=problem.atc_error, source=problem.source)


def _check_shapes(cmd: ParsedCommand, out: _Collector, model: "onnx.ModelProto | None", soc: "Soc | None",
                  profile: "Profile | None", tbl: "Tables") -> None:
    occurrence = cmd.last("--input_shape")
    entries: list[ShapeEntry] = []
    if occurrence is not None and occurrence.value is not None and not occurrence.has_expansion:
        value = occurrence.value.strip('"')
        entries, problems = parse_input_shape(value)
        if problems and ";" not in value and value.count(":") > 1:
            first = problems[0]
            problems = [replace(first, message=first.message + "; entries look separated by ',' instead of ';'")]
        _shape_problems_to_findings(problems, out)
        if model is not None:
            name_problems = check_names_and_ranks(entries, model)
            _shape_problems_to_findings(name_problems, out)
            if problems or name_problems:
                return  # what follows would only restate the same mistake
    elif occurrence is not None and occurrence.value is not None and model is not None:
        # '${bs}' in the dims hides the sizes, not the names: a wrong name is still E10016
        named = [ShapeEntry(name, ()) for name in _names_around_expansions(occurrence.value.strip('"'))]
        name_problems = [p for p in check_names_and_ranks(named, model) if p.kind == "input-name"]
        _shape_problems_to_findings(name_problems, out)
        if name_problems:
            return
    given_gears = [f for f in gear_flags() if cmd.has(f)]
    if len(given_gears) > 1:
        out.add("gear-rule", given_gears[1], f"{', '.join(given_gears)} are mutually exclusive", hint="keep one",
                atc_error="E10009", source="shared/reference/atc_options.json mutual_exclusion_groups")
    given = {e.name for e in entries}
    if model is not None and (occurrence is None or not occurrence.has_expansion):
        for item in model_inputs(model):
            if item.is_dynamic and item.name not in given and (entries == [] or entries[0].name is not None):
                dims = ",".join(str(d) for d in item.atc_dims)
                out.add("missing-input-shape", "--input_shape",
                        f"input '{item.name}' has symbolic dims ({dims} to ATC) and --input_shape does not set it: "
                        "\"The shapes of inputs contain -1 in the model\"",
                        hint=f"add '{item.name}:<dims>' to --input_shape", atc_error="E10001",
                        source="hicann/ge@ffdcbc9f7:api/atc/omg.cc (CheckInputShapeNode)",
                        data={"input": item.name, "dims": list(item.atc_dims)})
    if given_gears:
        flag = given_gears[0]
        gear_occurrence = cmd.last(flag)
        if gear_occurrence is None or gear_occurrence.value is None or gear_occurrence.has_expansion:
            return
        gears, problems = parse_gears(flag, gear_occurrence.value.strip('"'))
        _shape_problems_to_findings(problems, out)
        if gears is not None:
            _shape_problems_to_findings(check_gear_count(gears, soc, tbl), out)
            if occurrence is None:
                _shape_problems_to_findings(check_gears_against_shape(gears, []), out)
            elif entries:
                _shape_problems_to_findings(check_gears_against_shape(gears, _complete(entries, model)), out)
    elif entries:
        complete = _complete(entries, model)
        _shape_problems_to_findings(check_dynamic_mode(complete, soc, profile), out, complete)


def _names_around_expansions(value: str) -> list[str]:
    """The input names of an --input_shape value whose dims hold shell expansions; names that
    are themselves expansions (or a positional value) give nothing to check."""
    names = []
    for part in value.split(";"):
        name, colon, _ = part.rpartition(":")
        name = name.strip()
        if colon and name and "$" not in name and "`" not in name:
            names.append(name)
    return names


def _complete(entries: list[ShapeEntry], model: "onnx.ModelProto | None") -> list[ShapeEntry]:
    """The shapes ATC ends up with: the given entries plus the model dims of inputs not named."""
    if model is None or any(e.name is None for e in entries):
        return entries
    given = {e.name for e in entries}
    rest = [ShapeEntry(i.name, i.atc_dims) for i in model_inputs(model) if i.name not in given and i.dims is not None]
    return list(entries) + rest


# --------------------------------------------------------------------------- command rules


@dataclass(frozen=True)
class CommandContext:
    """What a command rule's ``check`` reads besides the parsed command (``soc``: the chip, once known)."""

    out: _Collector
    tables: "Tables"
    flags: dict[str, FlagInfo]
    profile: "Profile | None"
    model: "onnx.ModelProto | None"
    model_path: str | None
    soc: "Soc | None" = None
    onnx_model: bool = False  # the model is ONNX (given, or --model / the model path ends in .onnx)


PLACEHOLDER = _ANGLE  # a '<name>' left from a template; the unresolved-placeholder rule reads it


def _run(name: str, cmd: ParsedCommand, ctx: CommandContext) -> None:
    """Run the ``check`` of the command rule ``name`` (its module under ``atccheck/rules/atc_cmd/``)."""
    command_rule(name).check(cmd, ctx)


# --------------------------------------------------------------------------- entry point


def lint_command(
    text: str,
    model: "onnx.ModelProto | None" = None,
    *,
    model_path: str | None = None,
    soc: str | None = None,
    cann: str = DEFAULT_PROFILE,
) -> LintResult:
    """Lint every ``atc`` command in ``text`` (a one-liner or a script).

    ``model`` enables the checks against the graph (input names, ranks, dynamic inputs);
    ``soc`` is the chip to assume when the command's own ``--soc_version`` is missing or invalid;
    ``cann`` picks the release (flags such as --precision_mode_v2 exist only from 7.0 on).
    Raises UsageError when the text holds no atc command or is not complete shell.
    """
    tbl = tables()
    profile = resolve_profile(cann, tbl)
    fallback_soc = resolve_soc(soc, tbl) if soc else None
    try:
        commands = split_commands(text)
    except ShellSyntaxError as exc:
        raise UsageError(f"the command is not complete shell text: {exc}") from None
    out = _Collector()
    found = _atc_commands(commands, out)
    if not found:
        raise UsageError("no atc command found (the program must be 'atc' or a path ending in /atc)")
    flags = known_flags(tbl)
    parsed: list[ParsedCommand] = []
    onnx_model = model is not None or (model_path or "").endswith(".onnx")
    for words, line in found:
        out.line = line
        cmd = parse_atc_words(words, out, flags, line)
        parsed.append(cmd)
        ctx = CommandContext(out, tbl, flags, profile, model, model_path)
        _run("duplicate-atc-flag", cmd, ctx)
        _run("unresolved-placeholder", cmd, ctx)
        _run("missing-required-flag", cmd, ctx)
        _check_enums(cmd, out, flags, profile)
        named = cmd.value("--model") or ""
        model_ctx = replace(ctx, onnx_model=onnx_model or named.endswith(".onnx"))
        _run("wrong-framework", cmd, model_ctx)
        _run("nhwc-for-onnx", cmd, model_ctx)
        _run("output-not-a-base-name", cmd, ctx)
        chip = _check_soc(cmd, out, tbl, profile) or fallback_soc
        _check_shapes(cmd, out, model, chip, profile, tbl)
        _run("precision-mode-conflict", cmd, replace(ctx, soc=chip))
        _run("model-path-mismatch", cmd, ctx)
    return LintResult(tuple(parsed), tuple(out.findings))
