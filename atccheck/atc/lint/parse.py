"""How the shell and ATC's option parser read an ``atc`` command: words, flags, and what they saw.

The shell layer (``atccheck.atc.shell``) splits the text; :func:`atc_commands` finds each atc
command in it, re-joining a command an unquoted separator cut (a :class:`SeparatorCut`), and
drops redirections. :func:`parse_atc_words` then walks the words as ATC's parser does (hicann/ge
``api/atc/cmd_flag_info.cc``): ``-name`` is rewritten to ``--name`` when two letters follow,
``-`` inside a name becomes ``_``, getopt_long takes ``--name=value`` or ``--name value`` (the
next word, even one starting with ``--``), accepts a unique prefix of a flag, and stops at an
unknown flag; words that belong to no flag are rejected last.

Nothing here reports: the walk records what ATC's parser would meet as events (a glued flag,
a unicode dash, a stray word, ...), in the order it meets them, and the command rules of the
``shell`` and ``parser`` stages judge them (``atccheck/atc/lint/rules/``). Where the user's
intent is clear (two flags glued together, a space after ``=``, a unicode dash), the parsed
command holds what was meant, so the value checks judge that and one mistake gives one finding.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from dataclasses import dataclass

from atccheck.atc.facts import FlagInfo, required_flags
from atccheck.atc.shell import Command, Word

UNICODE_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
WRAPPERS = ("sudo", "nohup", "time", "exec", "command", "env")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PLACEHOLDER = re.compile(r"<[^<>\s]*[A-Za-z][^<>]*>")  # a '<name>' left from a template
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


# --------------------------------------------------------------------------- what the parser meets


@dataclass(frozen=True)
class SeparatorCut:
    """The shell ended the atc command at an unquoted ``;``, ``|`` or ``&`` inside a value."""

    separator: str
    cut: str  # the last word ATC gets
    flag: str  # the flag the cut word belongs to, or "the command"
    first: str  # the first word of the piece the shell runs as another command
    lost: tuple[str, ...]  # the flags of that piece, lost to ATC
    line: int


@dataclass(frozen=True)
class UnicodeDash:
    """A word starting with a unicode dash: ATC reads a stray word, the user meant ``fixed``."""

    text: str
    fixed: str  # the flag meant, with ASCII dashes


@dataclass(frozen=True)
class PromotedFlag:
    """``-name`` with two letters after one dash: ATC rewrites it to ``--name``."""

    text: str
    name: str
    canonical: str | None


@dataclass(frozen=True)
class ShortOption:
    """One dash and fewer than two letters: getopt reads short options, of which ATC has only -h."""

    flag: str
    short: str


@dataclass(frozen=True)
class UnknownFlag:
    """A name that is neither a flag nor the unique prefix of one."""

    name: str
    candidates: tuple[str, ...]  # the flags it is a prefix of (ambiguous), if any


@dataclass(frozen=True)
class Abbreviation:
    """A unique prefix getopt_long accepts for ``canonical``."""

    name: str
    canonical: str


@dataclass(frozen=True)
class MissingValue:
    """A flag that takes a value is the last word (``swallowed`` None), or takes the next ``--flag``."""

    flag: str
    text: str
    next_text: str | None = None
    swallowed: str | None = None


@dataclass(frozen=True)
class GluedFlags:
    """Another known flag glued to the value of ``flag``."""

    flag: str
    other: str
    head: str  # the value meant
    rest: str  # the glued flag with its value
    value: str  # what ATC takes as the value


@dataclass(frozen=True)
class SpaceAfterEquals:
    """``--name= value``: an empty value, and the value as a stray word."""

    flag: str
    text: str
    next_text: str


@dataclass(frozen=True)
class StrayWord:
    """A word that belongs to no flag; ``previous`` is the flag written just before it."""

    text: str
    previous: Occurrence | None


Event = SeparatorCut | UnicodeDash | PromotedFlag | ShortOption | UnknownFlag | Abbreviation | MissingValue \
    | GluedFlags | SpaceAfterEquals | StrayWord


@dataclass(frozen=True)
class ParsedCommand:
    argv: tuple[str, ...]  # what the atc process receives (expansions left as written)
    occurrences: tuple[Occurrence, ...]
    line: int
    events: tuple[Event, ...] = ()  # what ATC's parser met, in order (shell cuts are apart)

    def last(self, flag: str) -> Occurrence | None:
        found = [o for o in self.occurrences if o.flag == flag]
        return found[-1] if found else None

    def value(self, flag: str) -> str | None:
        occurrence = self.last(flag)
        return occurrence.value if occurrence else None

    def has(self, flag: str) -> bool:
        return any(o.flag == flag for o in self.occurrences)


@functools.lru_cache(maxsize=1024)
def close_matches(word: str, choices: tuple[str, ...], cutoff: float) -> tuple[str, ...]:
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


def atc_commands(commands: list[Command]) -> tuple[list[tuple[list[Word], int]], list[SeparatorCut]]:
    """Each atc command's argument words and line, with unquoted-separator continuations re-joined,
    and the cuts the shell made."""
    found: list[tuple[list[Word], int]] = []
    cuts: list[SeparatorCut] = []
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
            lost = tuple(sorted({w.text.split("=", 1)[0] for w in following.words if w.text.startswith("--")}))
            cuts.append(SeparatorCut(end, cut, flag, first, lost, command.line))
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
    return found, cuts


def lost_required(cut: SeparatorCut) -> list[str]:
    """The required flags among those a cut lost."""
    return [f for f in cut.lost if f in dict(required_flags())]


# A shell redirection word: '>', '>>', '2>', '<', '>|', '2>&1', '&>log', '>atc.log', ... (POSIX 2.7).
# A whole-word '<name>' is left alone: it is a placeholder the value checks report.
_REDIRECTION = re.compile(r"^(?:[0-9]*(?:>>|>&|>\||<&|<>|>|<)|&>>?)")
_FD_TARGET = re.compile(r"^(?:[0-9]+-?|-)$")


def _is_redirection(word: Word) -> bool:
    return not word.quoted and bool(_REDIRECTION.match(word.text)) and not PLACEHOLDER.fullmatch(word.text)


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


def parse_atc_words(words: list[Word], flags: dict[str, FlagInfo], line: int) -> ParsedCommand:
    """Walk the words as getopt_long does; each helper reads one flag and says where the next word is."""
    occurrences: list[Occurrence] = []
    events: list[Event] = []
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
            occurrences.extend(_unicode_dash_flag(word, events, flags))
        else:
            normalized, promoted = _normalize(text)
            if normalized.startswith("--"):
                found, i = _long_flag(word, normalized, promoted, words, i, events, flags)
                occurrences.extend(found)
            elif normalized == "-h":  # getopt's short options: only -h exists
                occurrences.append(Occurrence("--help", None, text, word))
            else:
                flag = normalized.split("=", 1)[0]
                events.append(ShortOption(flag, normalized.lstrip("-").split("=", 1)[0]))
    events.extend(_stray_words(words, stray, occurrences))
    return ParsedCommand(tuple(w.text for w in words), tuple(occurrences), line, tuple(events))


def _unicode_dash_flag(word: Word, events: list[Event], flags: dict[str, FlagInfo]) -> list[Occurrence]:
    """A flag typed with an en/em dash: ATC sees a stray word; the value checks run on what was meant."""
    text = word.text
    fixed = "--" + text.lstrip("-" + UNICODE_DASHES)
    events.append(UnicodeDash(text, fixed.split("=", 1)[0]))
    normalized, _ = _normalize(fixed)
    name, eq, value = normalized.partition("=")
    canonical, _ = _resolve_flag(name, flags)
    return [Occurrence(canonical, value if eq else None, text, word, True)] if canonical else []


def _long_flag(word: Word, normalized: str, promoted: bool, words: list[Word], i: int, events: list[Event],
               flags: dict[str, FlagInfo]) -> tuple[list[Occurrence], int]:
    """``--name``, ``--name=value`` or ``--name value`` (``words[i]`` is the word after it)."""
    text = word.text
    name, eq, value = normalized.partition("=")
    canonical, candidates = _resolve_flag(name, flags)
    if promoted:
        events.append(PromotedFlag(text, name, canonical))
    if canonical is None:
        events.append(UnknownFlag(name, tuple(candidates)))
        if not eq and i < len(words) and not words[i].text.startswith("-"):
            i += 1  # its value, most likely
        return [], i
    if canonical != name:
        events.append(Abbreviation(name, canonical))
    if eq:
        return _value_after_equals(word, canonical, value, words, i, events, flags)
    if not flags[canonical].takes_value:
        return [Occurrence(canonical, None, text, word)], i
    if i >= len(words):
        events.append(MissingValue(canonical, text))
        return [], i
    nxt = words[i]
    if nxt.text.startswith("--"):
        events.append(MissingValue(canonical, text, nxt.text, nxt.text.split("=", 1)[0]))
    return [Occurrence(canonical, nxt.text, f"{text} {nxt.raw}", nxt)], i + 1


def _value_after_equals(word: Word, canonical: str, value: str, words: list[Word], i: int, events: list[Event],
                        flags: dict[str, FlagInfo]) -> tuple[list[Occurrence], int]:
    """``--name=value``, unless another flag is glued to the value or a space follows the '='."""
    text = word.text
    glued = _glued(value, flags)
    if glued is not None:
        head, rest = glued
        other = rest.split("=", 1)[0]
        events.append(GluedFlags(canonical, other, head, rest, value))
        found = [Occurrence(canonical, head, text, word, True)]
        other_name, _, other_value = rest.partition("=")
        other_canonical, _ = _resolve_flag(other_name, flags)
        if other_canonical:
            found.append(Occurrence(other_canonical, other_value, text, word, True))
        return found, i
    if value == "" and i < len(words) and not words[i].text.startswith("-") and flags[canonical].takes_value:
        nxt = words[i]
        events.append(SpaceAfterEquals(canonical, text, nxt.text))
        return [Occurrence(canonical, nxt.text, f"{text} {nxt.raw}", nxt, True)], i + 1
    return [Occurrence(canonical, value, text, word)], i


def _stray_words(words: list[Word], stray: list[Word], occurrences: list[Occurrence]) -> list[StrayWord]:
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
    return [StrayWord(word.text, preceding[id(word)]) for word in stray]
