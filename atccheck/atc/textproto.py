"""Protocol Buffers text format, read against a small schema: what ``--insert_op_conf`` files are.

ATC reads the AIPP file with ``google::protobuf::TextFormat::Parse`` into ``domi.InsertNewOps``
(hicann/ge ``base/common/proto_util/proto_util.cc``). This reader accepts what that parser accepts
and refuses what it refuses, for the scalar, enum and message fields such a schema has:

- ``name: value`` for scalars (the ``:`` is required), ``name { ... }`` / ``name: { ... }`` /
  ``name < ... >`` for messages, ``name: [v1, v2]`` for repeated fields; an optional ``,`` or ``;``
  after each field; ``#`` starts a comment;
- integers in decimal, hex (``0x``) or octal (leading ``0``), range-checked for int32 / uint32;
  a float for an integer field is an error; floats take decimal integers (not hex or octal),
  exponents, an ``f`` suffix, ``inf`` and ``nan``; booleans are ``true``/``false``/``True``/``False``/``t``/``f``/``1``/``0``;
  an enum takes a value name, or any int32 number (proto3 enums are open);
- an unknown field name is an error;
- a singular field given twice is an error when its first value was not the default (proto3
  fields without presence: ``HasField`` is "not the default value"); a message field given twice
  is always an error. Repeated fields take any number of values.

The facts: protocolbuffers/protobuf ``src/google/protobuf/text_format.cc`` (ParserImpl::ConsumeField,
"Non-repeated field ... is specified multiple times"; the same rule in
``python/google/protobuf/text_format.py`` ``_MergeScalarField``). The schema itself is data
(``op_tables/aipp.json``, from ``insert_op.proto``); this module knows the format only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

SCALAR_KINDS = ("int32", "uint32", "float", "bool", "string", "enum")
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "enum": (-(2**31), 2**31 - 1)}
TRUE_WORDS = ("true", "True", "t", "1")
FALSE_WORDS = ("false", "False", "f", "0")


@dataclass(frozen=True)
class FieldSchema:
    """One field of a message: ``kind`` is a scalar kind, ``enum`` or ``message``."""

    name: str
    number: int
    kind: str
    repeated: bool = False
    enum: Mapping[str, int] | None = None  # value name -> number
    message: str | None = None  # the message type of a message field


@dataclass(frozen=True)
class MessageSchema:
    name: str  # full name, as the parser's errors print it (domi.AippOpParams)
    fields: Mapping[str, FieldSchema]


Schema = Mapping[str, MessageSchema]  # full message name -> its schema


@dataclass(frozen=True)
class TextField:
    """One occurrence of a field in the file, with where it stands."""

    name: str
    value: "int | float | bool | str | TextMessage"
    line: int
    column: int
    written: str = ""  # the token as written (an enum name, a number's spelling)


@dataclass(frozen=True)
class TextMessage:
    """A parsed message: every field occurrence in file order (repeated fields once per value)."""

    type_name: str
    fields: tuple[TextField, ...]
    line: int = 1

    def all(self, name: str) -> tuple[TextField, ...]:
        return tuple(f for f in self.fields if f.name == name)

    def last(self, name: str) -> TextField | None:
        found = self.all(name)
        return found[-1] if found else None

    def has(self, name: str) -> bool:
        return any(f.name == name for f in self.fields)


@dataclass(frozen=True)
class TextFormatError:
    """Where and why the parser stops (TextFormat::Parse reports the first error only)."""

    line: int
    column: int
    message: str


@dataclass(frozen=True)
class ParseResult:
    message: TextMessage | None
    error: TextFormatError | None

    @property
    def ok(self) -> bool:
        return self.error is None


class _Stop(Exception):
    def __init__(self, error: TextFormatError) -> None:
        super().__init__(error.message)
        self.error = error


# --------------------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\f\v]+)
      | (?P<newline>\n)
      | (?P<comment>\#[^\n]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<number>(?:0[xX][0-9A-Fa-f]+|\d+\.?\d*(?:[eE][+-]?\d+)?[fF]?|\.\d+(?:[eE][+-]?\d+)?[fF]?))
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<symbol>[{}<>\[\]:,;\-.])
    """,
    re.VERBOSE,
)
_OPEN_QUOTE = re.compile(r"""["']""")


@dataclass(frozen=True)
class _Token:
    kind: str  # string, number, ident, symbol, end
    text: str
    line: int
    column: int


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        column = pos - line_start + 1
        if match is None:
            shown = text[pos]
            if _OPEN_QUOTE.match(shown):
                raise _Stop(TextFormatError(line, column, "String literals cannot cross line boundaries."))
            raise _Stop(TextFormatError(line, column, f"Invalid character {shown!r}."))
        kind = match.lastgroup or ""
        if kind == "newline":
            line += 1
            line_start = match.end()
        elif kind not in ("space", "comment"):
            found.append(_Token(kind, match.group(), line, column))
        pos = match.end()
    found.append(_Token("end", "", line, pos - line_start + 1))
    return found


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", "'": "'",
            '"': '"', "?": "?"}


def _unquote(token: _Token) -> str:
    body = token.text[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i + 1:]).group()  # type: ignore[union-attr]
            out.append(chr(int(digits, 8)))
            i += 1 + len(digits)
        elif nxt == "x" and re.match(r"[0-9A-Fa-f]", body[i + 2:i + 3]):
            digits = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2:]).group()  # type: ignore[union-attr]
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
        else:
            raise _Stop(TextFormatError(token.line, token.column, f"Invalid escape sequence in string literal: \\{nxt}"))
    return "".join(out)


# --------------------------------------------------------------------------- the parser


class _Parser:
    def __init__(self, text: str, schema: Schema) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.schema = schema

    # token helpers
    @property
    def current(self) -> _Token:
        return self.tokens[self.pos]

    def stop(self, message: str, token: _Token | None = None) -> _Stop:
        token = token or self.current
        return _Stop(TextFormatError(token.line, token.column, message))

    def looking_at(self, text: str) -> bool:
        return self.current.kind in ("symbol", "ident") and self.current.text == text

    def try_consume(self, text: str) -> bool:
        if self.looking_at(text):
            self.pos += 1
            return True
        return False

    def consume(self, text: str) -> None:
        if not self.try_consume(text):
            shown = self.current.text or "end of input"
            raise self.stop(f'Expected "{text}", found "{shown}".')

    # grammar
    def message(self, type_name: str, close: str | None, line: int) -> TextMessage:
        schema = self.schema[type_name]
        fields: list[TextField] = []
        while True:
            if close is not None and self.try_consume(close):
                break
            if self.current.kind == "end":
                if close is not None:
                    raise self.stop(f'Expected "{close}".')
                break
            self.field(schema, fields)
            if not self.try_consume(";"):
                self.try_consume(",")
        return TextMessage(type_name, tuple(fields), line)

    def field(self, schema: MessageSchema, fields: list[TextField]) -> None:
        token = self.current
        if token.kind != "ident":
            shown = token.text or "end of input"
            raise self.stop(f'Expected identifier, got: {shown}')
        self.pos += 1
        spec = schema.fields.get(token.text)
        if spec is None:
            raise self.stop(f'Message type "{schema.name}" has no field named "{token.text}".', token)
        if not spec.repeated and _already_set(fields, spec):
            raise self.stop(f'Non-repeated field "{spec.name}" is specified multiple times.', token)
        if spec.kind == "message":
            self.try_consume(":")
            if spec.repeated and self.try_consume("["):
                while not self.try_consume("]"):
                    fields.append(self.message_value(spec, token))
                    if not self.looking_at("]"):
                        self.consume(",")
                return
            fields.append(self.message_value(spec, token))
            return
        self.consume(":")
        if spec.repeated and self.try_consume("["):
            if self.try_consume("]"):
                return
            while True:
                fields.append(self.scalar(spec, token))
                if self.try_consume("]"):
                    return
                self.consume(",")
        fields.append(self.scalar(spec, token))

    def message_value(self, spec: FieldSchema, name: _Token) -> TextField:
        opener = self.current
        if self.try_consume("{"):
            close = "}"
        elif self.try_consume("<"):
            close = ">"
        else:
            raise self.stop(f'Expected "{{", found "{opener.text or "end of input"}".')
        assert spec.message is not None
        return TextField(spec.name, self.message(spec.message, close, opener.line), name.line, name.column)

    def scalar(self, spec: FieldSchema, name: _Token) -> TextField:
        negative = self.try_consume("-")
        token = self.current
        if spec.kind == "string":
            if token.kind != "string":
                raise self.stop(f"Expected string, got: {token.text or 'end of input'}")
            parts = []
            while self.current.kind == "string":
                parts.append(_unquote(self.current))
                self.pos += 1
            return TextField(spec.name, "".join(parts), name.line, name.column, token.text)
        self.pos += 1
        written = ("-" if negative else "") + token.text
        if spec.kind == "bool":
            if negative or token.kind not in ("ident", "number") or token.text not in TRUE_WORDS + FALSE_WORDS:
                raise self.stop(f'Invalid value for boolean field "{spec.name}". Value: "{written}".', token)
            return TextField(spec.name, token.text in TRUE_WORDS, name.line, name.column, written)
        if spec.kind == "float":
            return TextField(spec.name, self.float_value(token, negative, spec), name.line, name.column, written)
        if spec.kind == "enum" and token.kind == "ident":
            assert spec.enum is not None
            if negative or token.text not in spec.enum:
                raise self.stop(f'Unknown enumeration value of "{token.text}" for field "{spec.name}".', token)
            return TextField(spec.name, spec.enum[token.text], name.line, name.column, written)
        value = self.integer(token, negative, spec)
        return TextField(spec.name, value, name.line, name.column, written)

    def integer(self, token: _Token, negative: bool, spec: FieldSchema) -> int:
        text = token.text
        if token.kind != "number" or re.search(r"[.eEfF]", text) and not text.lower().startswith("0x"):
            raise self.stop(f"Expected integer, got: {('-' if negative else '') + (text or 'end of input')}", token)
        if text.lower().startswith("0x"):
            value = int(text, 16)
        elif len(text) > 1 and text.startswith("0"):
            if re.search(r"[89]", text):
                raise self.stop(f"Expected integer, got: {text}", token)
            value = int(text, 8)
        else:
            value = int(text)
        value = -value if negative else value
        low, high = INT_RANGES.get(spec.kind, INT_RANGES["int32"])
        if not low <= value <= high:
            raise self.stop(f"Integer out of range ({('-' if negative else '') + text})", token)
        return value

    def float_value(self, token: _Token, negative: bool, spec: FieldSchema) -> float:
        text = token.text
        if token.kind == "ident" and text.lower() in ("inf", "infinity", "nan"):
            value = math.nan if text.lower() == "nan" else math.inf
        elif token.kind == "number":
            if text.lower().startswith("0x") or (len(text) > 1 and text.startswith("0") and text.isdigit()):
                raise self.stop(f"Expect a decimal number, got: {text}", token)  # ConsumeUnsignedDecimalAsDouble
            value = float(text.rstrip("fF"))
        else:
            raise self.stop(f"Expected double, got: {text or 'end of input'}", token)
        return -value if negative else value


def _already_set(fields: list[TextField], spec: FieldSchema) -> bool:
    """protobuf's HasField: a message field once given; a proto3 scalar holding a non-default value."""
    previous = [f for f in fields if f.name == spec.name]
    if not previous:
        return False
    if spec.kind == "message":
        return True
    value = previous[-1].value
    return not (value == 0 or value == "" or value is False)


def parse_text(text: str, schema: Schema, root: str) -> ParseResult:
    """Parse ``text`` as message ``root`` of ``schema``: the message, or the first error and where."""
    try:
        parser = _Parser(text, schema)
        return ParseResult(parser.message(root, None, 1), None)
    except _Stop as stop:
        return ParseResult(None, stop.error)


def walk(message: TextMessage) -> Iterator[TextField]:
    """Every field occurrence, depth first."""
    for item in message.fields:
        yield item
        if isinstance(item.value, TextMessage):
            yield from walk(item.value)


def render_scalar(spec: FieldSchema, value: "int | float | bool | str") -> str:
    """A value as the text format writes it (enum by name, floats without exponent noise)."""
    if spec.kind == "enum" and spec.enum is not None:
        names = {number: name for name, number in spec.enum.items()}
        return names.get(int(value), str(int(value)))
    if spec.kind == "bool":
        return "true" if value else "false"
    if spec.kind == "string":
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if spec.kind == "float":
        return repr(float(value)) if math.isfinite(float(value)) else ("nan" if math.isnan(float(value)) else "inf")
    return str(int(value))


__all__ = ["FieldSchema", "MessageSchema", "ParseResult", "Schema", "TextField", "TextFormatError", "TextMessage",
           "parse_text", "render_scalar", "walk"]
