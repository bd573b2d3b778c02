"""Split shell text into commands and words the way a POSIX shell would, keeping what it hides.

``shlex`` gives the words but forgets where an unquoted ``;`` cut a command in two and which
parts of a word came from ``$VAR`` expansions. The linter needs both: an unquoted ``;`` in
``--input_shape=a:1,3;b:1,128`` ends the atc command, and ``${chip_name}`` is empty when the
variable is unset. Expansions are kept literally in ``Word.text`` and listed in
``Word.expansions``; nothing is executed or expanded.
"""

from __future__ import annotations

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


def split_commands(text: str) -> list[Command]:
    """Commands of a shell text (a one-liner or a script), each a list of words."""
    commands: list[Command] = []
    words: list[Word] = []
    current: Word | None = None
    line = 1
    start_line = 1
    i = 0
    n = len(text)

    def word() -> Word:
        nonlocal current
        if current is None:
            current = Word("", "")
        return current

    def end_word() -> None:
        nonlocal current
        if current is not None:
            words.append(current)
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
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":  # line continuation
                i += 2
                line += 1
                continue
            w = word()
            if i + 1 < n:
                w.text += text[i + 1]
                w.raw += text[i:i + 2]
                w.quoted = True
            i += 2
            continue
        if ch == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise ShellSyntaxError("unterminated single quote")
            w = word()
            w.text += text[i + 1:j]
            w.raw += text[i:j + 1]
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
                c = text[j]
                if c == '"':
                    break
                if c == "\\" and j + 1 < n and text[j + 1] in '$`"\\\n':
                    if text[j + 1] != "\n":
                        w.text += text[j + 1]
                    j += 2
                    continue
                if c == "$":
                    expansion, k = _read_expansion(text, j)
                    if expansion:
                        w.expansions.append(expansion)
                        w.text += expansion
                        j = k
                        continue
                if c == "\n":
                    line += 1
                w.text += c
                j += 1
            w.raw += text[i:j + 1]
            i = j + 1
            continue
        if ch == "$":
            expansion, k = _read_expansion(text, i)
            w = word()
            if expansion:
                w.expansions.append(expansion)
                w.text += expansion
                w.raw += expansion
                i = k
            else:
                w.text += ch
                w.raw += ch
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
        sep = next((s for s in SEPARATORS if text.startswith(s, i)), None)
        if sep is not None:
            end_command(sep)
            if sep == "\n":
                line += 1
                start_line = line
            i += len(sep)
            continue
        w = word()
        w.text += ch
        w.raw += ch
        i += 1
    end_command("")
    return commands
