"""Split shell text into commands and words the way a POSIX shell would, keeping what it hides.

``shlex`` gives the words but forgets where an unquoted ``;`` cut a command in two and which
parts of a word came from ``$VAR`` expansions. The linter needs both: an unquoted ``;`` in
``--input_shape=a:1,3;b:1,128`` ends the atc command, and ``${chip_name}`` is empty when the
variable is unset. Expansions are kept literally in ``Word.text`` and listed in
``Word.expansions``; nothing is executed or expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SEPARATORS = ("&&", "||", ";", "&", "|", "\n")


@dataclass
class Word:
    text: str  # after quote removal; $expansions kept as written
    raw: str  # the source text of the word
    expansions: list[str] = field(default_factory=list)  # ${x}, $x, $(cmd) that the shell would expand
    quoted: bool = False


@dataclass
class Command:
    words: list[Word]
    end: str  # the separator that ended it ('' at the end of the text)
    line: int  # 1-based line of its first word


class ShellSyntaxError(ValueError):
    """Unbalanced quotes or $( ... ): the text is not a complete shell command."""


def _read_expansion(text: str, i: int) -> tuple[str, int]:
    """The $-expansion starting at text[i] == '$' and the index after it ('' if '$' is literal)."""
    if i + 1 >= len(text):
        return "", i + 1
    nxt = text[i + 1]
    if nxt in "{(":
        close = "}" if nxt == "{" else ")"
        depth, j = 0, i + 1
        while j < len(text):
            if text[j] == nxt:
                depth += 1
            elif text[j] == close:
                depth -= 1
                if depth == 0:
                    return text[i:j + 1], j + 1
            j += 1
        raise ShellSyntaxError(f"unbalanced '${nxt}' in: {text[i:i + 40]}")
    if nxt.isalpha() or nxt == "_":
        j = i + 1
        while j < len(text) and (text[j].isalnum() or text[j] == "_"):
            j += 1
        return text[i:j], j
    if nxt.isdigit() or nxt in "@*#?$!-":
        return text[i:i + 2], i + 2
    return "", i + 1


# Runs of characters that stand for themselves: outside quotes, and inside double quotes.
_PLAIN_RUN = re.compile(r"[^\\'\"$# \t\r\n;&|]+")
_DOUBLE_RUN = re.compile(r'[^"\\$\n]+')


class _WordBuilder:
    """One word being read: its pieces are joined once at the end (linear in the word's length)."""

    __slots__ = ("text", "raw", "expansions", "quoted")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.raw: list[str] = []
        self.expansions: list[str] = []
        self.quoted = False

    def add(self, text: str, raw: str | None = None) -> None:
        self.text.append(text)
        self.raw.append(text if raw is None else raw)

    def word(self) -> Word:
        return Word("".join(self.text), "".join(self.raw), self.expansions, self.quoted)


def split_commands(text: str) -> list[Command]:
    """Commands of a shell text (a one-liner or a script), each a list of words.

    One pass over the text, taking runs of ordinary characters at a time: the cost is linear
    in the length of the script.
    """
    commands: list[Command] = []
    words: list[Word] = []
    current: _WordBuilder | None = None
    line = 1
    start_line = 1
    i = 0
    n = len(text)

    def word() -> _WordBuilder:
        nonlocal current
        if current is None:
            current = _WordBuilder()
        return current

    def end_word() -> None:
        nonlocal current
        if current is not None:
            words.append(current.word())
            current = None

    def end_command(sep: str) -> None:
        nonlocal words, start_line
        end_word()
        if words:
            commands.append(Command(words, sep, start_line))
        elif commands and sep and not commands[-1].end:
            commands[-1].end = sep
        words = []
        start_line = line

    while i < n:
        run = _PLAIN_RUN.match(text, i)
        if run is not None:
            word().add(run.group())
            i = run.end()
            continue
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":  # line continuation
                i += 2
                line += 1
                continue
            w = word()
            if i + 1 < n:
                w.add(text[i + 1], text[i:i + 2])
                w.quoted = True
            i += 2
            continue
        if ch == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise ShellSyntaxError("unterminated single quote")
            w = word()
            w.add(text[i + 1:j], text[i:j + 1])
            w.quoted = True
            line += text.count("\n", i, j)
            i = j + 1
            continue
        if ch == '"':
            w = word()
            w.quoted = True
            j = i + 1
            while True:
                if j >= n:
                    raise ShellSyntaxError("unterminated double quote")
                inner = _DOUBLE_RUN.match(text, j)
                if inner is not None:
                    w.text.append(inner.group())
                    j = inner.end()
                    continue
                c = text[j]
                if c == '"':
                    break
                if c == "\\" and j + 1 < n and text[j + 1] in '$`"\\\n':
                    if text[j + 1] != "\n":
                        w.text.append(text[j + 1])
                    j += 2
                    continue
                if c == "$":
                    expansion, k = _read_expansion(text, j)
                    if expansion:
                        w.expansions.append(expansion)
                        w.text.append(expansion)
                        j = k
                        continue
                if c == "\n":
                    line += 1
                w.text.append(c)
                j += 1
            w.raw.append(text[i:j + 1])
            i = j + 1
            continue
        if ch == "$":
            expansion, k = _read_expansion(text, i)
            w = word()
            if expansion:
                w.expansions.append(expansion)
                w.add(expansion)
                i = k
            else:
                w.add(ch)
                i += 1
            continue
        if ch == "#" and current is None:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in " \t\r":
            end_word()
            i += 1
            continue
        if ch in ";&|\n":
            sep = text[i:i + 2] if text[i:i + 2] in ("&&", "||") else ch
            end_command(sep)
            if sep == "\n":
                line += 1
                start_line = line
            i += len(sep)
            continue
        word().add(ch)  # '#' inside a word
        i += 1
    end_command("")
    return commands


# --------------------------------------------------------------------------- variables set in the script

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE_EXPANSION = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")
_DECLARING = ("export", "readonly")


def _assignment(word: Word) -> tuple[str, Word] | None:
    """(name, value) of a ``NAME=value`` word (the name and '=' unquoted), else None."""
    name, eq, _ = word.raw.partition("=")
    if not eq or not _NAME.fullmatch(name):
        return None
    value = word.text[len(name) + 1:]
    return name, Word(value, word.raw[len(name) + 1:], list(word.expansions), word.quoted)


def _substitute(word: Word, known: dict[str, str]) -> Word:
    """The word with each ``$NAME`` / ``${NAME}`` of a known variable replaced by its value."""
    def value(expansion: str) -> str | None:
        match = _SIMPLE_EXPANSION.fullmatch(expansion)
        return known.get(match.group(1) or match.group(2)) if match else None

    resolved = [e for e in word.expansions if value(e) is not None]
    if not resolved:
        return word
    text = word.text
    for expansion in sorted(set(resolved), key=len, reverse=True):
        text = text.replace(expansion, value(expansion) or "")
    return Word(text, word.raw, [e for e in word.expansions if e not in resolved], word.quoted)


def resolve_variables(commands: list[Command]) -> list[Command]:
    """The commands with ``$NAME`` / ``${NAME}`` replaced where the script itself set ``NAME`` on a
    line of its own before (``NAME=value``, ``export NAME=value``), as the shell would expand them.

    Only plain values count: a value that holds an expansion the script does not resolve, a
    variable that is ``unset`` or set by ``read``, ``for`` or ``local``, or one set as a prefix of another command (``NAME=x cmd``, which
    sets it for that command only) is left unknown, and its expansions stay as they are. Branches
    are not followed: an assignment counts from its line on, as a script read top to bottom.
    """
    known: dict[str, str] = {}
    out: list[Command] = []
    for command in commands:
        words = [_substitute(w, known) for w in command.words]
        out.append(Command(words, command.end, command.line))
        if not words:
            continue
        if words[0].text in ("unset", "read", "for", "local"):  # unset, or set from what the script does not say
            for word in words[1:]:
                known.pop(word.text.partition("=")[0], None)
            continue
        body = words[1:] if words[0].text in _DECLARING and not words[0].quoted else words
        pairs = [_assignment(w) for w in body]
        if not body or any(p is None for p in pairs):
            continue  # a command (its own prefix assignments do not outlive it)
        for name, value in (p for p in pairs if p is not None):
            if value.expansions:
                known.pop(name, None)  # set from something the script does not say: unknown
            else:
                known[name] = value.text
    return out
