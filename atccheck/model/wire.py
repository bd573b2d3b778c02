"""Read an ONNX file's graph without the bulk data of its large tensors.

An ONNX file is one protobuf ``ModelProto``. Nearly all of its bytes are tensor payloads
(``TensorProto.raw_data`` and the typed ``*_data`` fields), which ``check`` never reads.
:func:`strip_large_tensors` walks the protobuf wire format over the file's bytes (through
:class:`FileBytes`, which reads the file a window at a time, so skipped payloads are never
read) and returns the same message without the payload fields of every tensor holding more
than ``keep_elements`` elements. Everything else is copied byte for byte: names, dims, data
types, external-data records, attributes, value infos, unknown fields, and the data of small
tensors. The result is small and goes to the ordinary protobuf parser.

Tensors are found wherever ONNX puts them: graph initializers and sparse initializers,
tensor attributes (Constant ``value``, ConstantOfShape ...), subgraph attributes (If, Loop,
Scan bodies, at any depth), functions, and training graphs.

The element count is the product of ``dims``, the same count the rules and shape inference
use to decide that a constant is small enough to read. A message shorter than
``(keep_elements + 1) // 2`` bytes is copied whole without looking inside: it cannot hold the
data of a well-formed tensor of more than ``keep_elements`` elements (the densest data type,
4-bit, packs two per byte).

Bytes that are skipped are not validated, except what costs nothing: the length of every
field, packed fixed-width lengths, and the last byte of packed varints. Everything that is
copied is validated by the protobuf parser afterwards. Malformed input raises
:class:`WireError`.

Field numbers are those of onnx/onnx.proto (onnx-ml); the tests check them against the
descriptors of the installed onnx package.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import BinaryIO

VARINT, FIXED64, LENGTH, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5

# TensorProto: dims, and the payload fields with the wire types an element may use when it is
# not packed (packed fields and bytes fields use LENGTH).
TENSOR_DIMS = 1
TENSOR_PAYLOAD = {
    4: (FIXED32, 4),  # float_data
    5: (VARINT, 0),  # int32_data
    6: (None, 0),  # string_data (bytes, never packed)
    7: (VARINT, 0),  # int64_data
    9: (None, 0),  # raw_data (bytes)
    10: (FIXED64, 8),  # double_data
    11: (VARINT, 0),  # uint64_data
}

# Which length-delimited fields of each message hold messages that may contain tensors.
MODEL = {7: "graph", 20: "training_info", 25: "function"}
TRAINING_INFO = {1: "graph", 2: "graph"}  # initialization, algorithm
GRAPH = {1: "node", 5: "tensor", 15: "sparse_tensor"}  # node, initializer, sparse_initializer
FUNCTION = {7: "node", 11: "attribute"}  # node, attribute_proto
NODE = {5: "attribute"}
ATTRIBUTE = {5: "tensor", 6: "graph", 10: "tensor", 11: "graph", 22: "sparse_tensor", 23: "sparse_tensor"}
SPARSE_TENSOR = {1: "tensor", 2: "tensor"}  # values, indices
SCHEMAS = {
    "graph": GRAPH,
    "training_info": TRAINING_INFO,
    "function": FUNCTION,
    "node": NODE,
    "attribute": ATTRIBUTE,
    "sparse_tensor": SPARSE_TENSOR,
}


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


class FileBytes:
    """Random access to an open binary file by slice and by window, read a window at a time.

    Used instead of an ``mmap``: on recent kernels a fault in a mapped file maps a whole large
    page-cache folio (up to megabytes) into the process, so touching one tag per tensor put a
    third of a 330 MB model in the resident set. Reads here leave the file in the page cache
    only; at most one window is held.
    """

    WINDOW = 1 << 16

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle, self.size = handle, size
        self.start, self.window = 0, b""

    def __len__(self) -> int:
        return self.size

    def read(self, start: int, stop: int) -> bytes:
        self.handle.seek(start)
        data = self.handle.read(stop - start)
        if len(data) != stop - start:
            raise WireError("the file ended early (changed while it was read?)")
        return data

    def __getitem__(self, index: slice) -> bytes:
        start, stop = index.start, index.stop
        if self.start <= start and stop <= self.start + len(self.window):
            return self.window[start - self.start : stop - self.start]
        return self.read(start, stop)

    def at(self, pos: int, stop: int) -> tuple[bytes, int]:
        """(window, its offset in the file) with window covering the file's bytes pos to stop."""
        if pos < self.start or stop > self.start + len(self.window):
            self.start, self.window = pos, self.read(pos, min(max(stop, pos + self.WINDOW), self.size))
        return self.window, self.start


Bytes = bytes | bytearray | memoryview  # bytes in memory, indexable by position
Buffer = Bytes | FileBytes


def strip_large_tensors(data: Buffer, keep_elements: int) -> bytes:
    """The ModelProto in ``data`` without the payloads of tensors of more than ``keep_elements`` elements."""
    view = data if isinstance(data, FileBytes) else memoryview(data)
    problem = None
    try:
        pieces = _Walker(view, keep_elements).message(0, len(view), MODEL)
        if pieces is None:  # nothing to leave out
            result = view[0 : len(view)] if isinstance(view, FileBytes) else bytes(view)
        else:
            result = b"".join(pieces)
    except WireError as exc:
        problem = str(exc)
    except RecursionError:
        problem = "messages nested too deeply"
    # Only now, with the walk's frames gone, no slice of a memoryview is left and it can be
    # released (an mmap cannot be closed while one is).
    pieces = None
    if isinstance(view, memoryview):
        view.release()
    if problem is not None:
        raise WireError(problem)
    return result


def read_varint(buf: Bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, position after it) of the base-128 varint at pos."""
    if pos >= end:
        raise WireError("truncated varint")
    byte = buf[pos]
    if byte < 0x80:
        return byte, pos + 1
    result, shift = byte & 0x7F, 7
    while True:
        pos += 1
        if pos >= end:
            raise WireError("truncated varint")
        byte = buf[pos]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos + 1
        shift += 7
        if shift >= 70:
            raise WireError("varint longer than 10 bytes")


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def replace_field(data: bytes, number: int, payloads: "list[bytes]") -> bytes:
    """A serialized message with its top-level field ``number`` replaced by these length-delimited
    payloads (a repeated message field's new entries, appended last). Only the top level is walked:
    the cost is one copy of ``data``, far less than serializing the message again."""
    walker = _Walker(data, 0)
    kept: list[bytes | memoryview] = []
    view = memoryview(data)
    pos, end, start = 0, len(data), 0
    while pos < end:
        field, _, _, stop = walker.field(pos, end)
        if field == number:
            kept.append(view[start:pos])
            start = stop
        pos = stop
    kept.append(view[start:end])
    key = encode_varint(number << 3 | LENGTH)
    for payload in payloads:
        kept.extend((key, encode_varint(len(payload)), payload))
    return b"".join(kept)


class _Walker:
    def __init__(self, buf: Buffer, keep_elements: int) -> None:
        self.buf = buf
        self.at: Callable[[int, int], tuple[Bytes, int]]
        if isinstance(buf, FileBytes):
            self.at = buf.at
        else:
            memory = buf
            self.at = lambda pos, stop: (memory, 0)
        self.keep = keep_elements
        self.small = (keep_elements + 1) // 2  # shorter messages cannot hold a tensor to strip
        self.handlers: dict[str, Callable[[int, int], list | None]] = {
            name: functools.partial(self.message, schema=schema) for name, schema in SCHEMAS.items()
        }
        self.handlers["tensor"] = self.tensor

    def field(self, pos: int, end: int) -> tuple[int, int, int, int]:
        """(number, wire type, start of the value, end of the field) of the field at pos."""
        head = min(end, pos + 20)  # a key and a length or value: two varints of at most 10 bytes
        buf, base = self.at(pos, head)
        index, limit = pos - base, head - base
        key = buf[index] if index < limit else 0x80  # one-byte varints (most keys) read inline
        key, index = (key, index + 1) if key < 0x80 else read_varint(buf, index, limit)
        number, wire = key >> 3, key & 7
        if number == 0 or key >> 32:
            raise WireError("invalid field number")
        if wire == LENGTH:
            length = buf[index] if index < limit else 0x80
            length, index = (length, index + 1) if length < 0x80 else read_varint(buf, index, limit)
            start = index + base
            stop = start + length
        elif wire == VARINT:
            return number, wire, index + base, read_varint(buf, index, limit)[1] + base
        elif wire == FIXED64:
            start, stop = index + base, index + base + 8
        elif wire == FIXED32:
            start, stop = index + base, index + base + 4
        elif wire == START_GROUP:
            start = index + base
            stop = self.skip_group(start, end, number)
        else:
            raise WireError(f"invalid wire type {wire}")
        if stop > end:
            raise WireError("field runs past the end of its message")
        return number, wire, start, stop

    def skip_group(self, pos: int, end: int, number: int) -> int:
        """The position after the END_GROUP that closes group ``number`` (groups only appear as unknown fields)."""
        while pos < end:
            head = min(end, pos + 10)
            buf, base = self.at(pos, head)
            key, after = read_varint(buf, pos - base, head - base)
            if key & 7 == END_GROUP:
                if key >> 3 != number:
                    raise WireError("mismatched end of group")
                return after + base
            pos = self.field(pos, end)[3]
        raise WireError("unterminated group")

    def message(self, pos: int, end: int, schema: dict[int, str]) -> list | None:
        """The pieces of the message in buf[pos:end] once stripped, or None when nothing changes."""
        if end - pos < self.small:
            return None
        pieces: list = []
        copied = pos  # start of the bytes not yet put in pieces
        small, handlers = self.small, self.handlers
        while pos < end:
            number, wire, start, stop = self.field(pos, end)
            kind = schema.get(number) if wire == LENGTH and stop - start >= small else None
            if kind is not None:
                inner = handlers[kind](start, stop)
                if inner is not None:
                    pieces.append(self.buf[copied:pos])
                    pieces.append(encode_varint(number << 3 | LENGTH))
                    pieces.append(encode_varint(sum(len(p) for p in inner)))
                    pieces.extend(inner)
                    copied = stop
            pos = stop
        if not pieces:
            return None
        pieces.append(self.buf[copied:end])
        return pieces

    def tensor(self, pos: int, end: int) -> list | None:
        """A TensorProto without its payload fields when it holds more than keep elements."""
        count, payloads, field_start = 1, [], pos
        while field_start < end:
            number, wire, start, stop = self.field(field_start, end)
            if number == TENSOR_DIMS and wire in (VARINT, LENGTH):  # one dim, or packed dims
                buf, base = self.at(start, stop)
                index, limit = start - base, stop - base
                while index < limit:
                    dim, index = read_varint(buf, index, limit)
                    count *= _signed(dim)
            elif number in TENSOR_PAYLOAD and (wire == LENGTH or wire == TENSOR_PAYLOAD[number][0]):
                payloads.append((number, wire, field_start, start, stop))
            field_start = stop
        if count <= self.keep:
            return None
        pieces: list = []
        copied = pos
        for number, wire, field_start, start, stop in payloads:
            if wire == LENGTH:
                self.check_packed(start, stop, TENSOR_PAYLOAD[number][1], number)
            pieces.append(self.buf[copied:field_start])
            copied = stop
        pieces.append(self.buf[copied:end])
        return pieces

    def check_packed(self, start: int, stop: int, size: int, number: int) -> None:
        """The cheap part of validating a packed payload that is skipped."""
        if number in (6, 9) or start == stop:
            return  # bytes fields
        if size and (stop - start) % size:
            raise WireError("packed fixed-width field of a length that is not a multiple of its element size")
        buf, base = self.at(stop - 1, stop)
        if not size and buf[stop - 1 - base] >= 0x80:
            raise WireError("packed varint field ends inside a varint")


def _signed(value: int) -> int:
    """A varint read as int64, as protobuf reads ``dims``."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value
