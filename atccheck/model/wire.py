"""Read an ONNX file's graph without the bulk data of its large tensors.

An ONNX file is one protobuf ``ModelProto``. Nearly all of its bytes are tensor payloads
(``TensorProto.raw_data`` and the typed ``*_data`` fields), which ``check`` never reads.
:func:`strip_large_tensors` walks the protobuf wire format over the file's bytes (an ``mmap``
in :mod:`atccheck.model.loading`, so skipped payloads are never paged in) and returns the same
message without the payload fields of every tensor holding more than ``keep_elements``
elements. Everything else is copied byte for byte: names, dims, data types, external-data
records, attributes, value infos, unknown fields, and the data of small tensors. The result
is small and goes to the ordinary protobuf parser.

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

from typing import Callable, Union

Buffer = Union[bytes, bytearray, memoryview]

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


def strip_large_tensors(data: Buffer, keep_elements: int) -> bytes:
    """The ModelProto in ``data`` without the payloads of tensors of more than ``keep_elements`` elements."""
    view = memoryview(data)
    problem = None
    try:
        pieces = _Walker(view, keep_elements).message(0, len(view), MODEL)
        result = bytes(view) if pieces is None else b"".join(pieces)
    except WireError as exc:
        problem = str(exc)
    except RecursionError:
        problem = "messages nested too deeply"
    # Only now, with the walk's frames gone, no slice of the buffer is left and it can be released
    # (an mmap cannot be closed while one is).
    pieces = None
    view.release()
    if problem is not None:
        raise WireError(problem)
    return result


def read_varint(buf: Buffer, pos: int, end: int) -> tuple[int, int]:
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


class _Walker:
    def __init__(self, buf: memoryview, keep_elements: int) -> None:
        self.buf = buf
        self.keep = keep_elements
        self.small = (keep_elements + 1) // 2  # shorter messages cannot hold a tensor to strip
        self.handlers: dict[str, Callable[[int, int], list | None]] = {
            name: (lambda start, end, schema=schema: self.message(start, end, schema)) for name, schema in SCHEMAS.items()
        }
        self.handlers["tensor"] = self.tensor

    def field(self, pos: int, end: int) -> tuple[int, int, int, int]:
        """(number, wire type, start of the value, end of the field) of the field at pos."""
        key, pos = read_varint(self.buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0 or key >> 32:
            raise WireError("invalid field number")
        if wire == VARINT:
            return number, wire, pos, read_varint(self.buf, pos, end)[1]
        if wire == LENGTH:
            length, start = read_varint(self.buf, pos, end)
            stop = start + length
        elif wire == FIXED64:
            start, stop = pos, pos + 8
        elif wire == FIXED32:
            start, stop = pos, pos + 4
        elif wire == START_GROUP:
            start, stop = pos, self.skip_group(pos, end, number)
        else:
            raise WireError(f"invalid wire type {wire}")
        if stop > end:
            raise WireError("field runs past the end of its message")
        return number, wire, start, stop

    def skip_group(self, pos: int, end: int, number: int) -> int:
        """The position after the END_GROUP that closes group ``number`` (groups only appear as unknown fields)."""
        while pos < end:
            key, after = read_varint(self.buf, pos, end)
            if key & 7 == END_GROUP:
                if key >> 3 != number:
                    raise WireError("mismatched end of group")
                return after
            pos = self.field(pos, end)[3]
        raise WireError("unterminated group")

    def message(self, pos: int, end: int, schema: dict[str, str]) -> list | None:
        """The pieces of the message in buf[pos:end] once stripped, or None when nothing changes."""
        if end - pos < self.small:
            return None
        pieces: list = []
        copied = pos  # start of the bytes not yet put in pieces
        while pos < end:
            number, wire, start, stop = self.field(pos, end)
            kind = schema.get(number) if wire == LENGTH else None
            if kind is not None:
                inner = self.handlers[kind](start, stop)
                if inner is not None:
                    pieces.append(self.buf[copied:pos])
                    pieces.append(encode_varint(number << 3 | LENGTH))
                    pieces.append(encode_varint(sum(len(p) for p in inner)))
                    pieces.extend(inner)
                    copied = stop
            elif wire == END_GROUP:
                raise WireError("end of group outside a group")
            pos = stop
        if not pieces:
            return None
        pieces.append(self.buf[copied:end])
        return pieces

    def tensor(self, pos: int, end: int) -> list | None:
        """A TensorProto without its payload fields when it holds more than keep elements."""
        if end - pos < self.small:
            return None
        count, seen = 1, pos
        while seen < end:
            number, wire, start, stop = self.field(seen, end)
            if number == TENSOR_DIMS and wire == VARINT:
                count *= _signed(read_varint(self.buf, start, stop)[0])
            elif number == TENSOR_DIMS and wire == LENGTH:
                while start < stop:
                    dim, start = read_varint(self.buf, start, stop)
                    count *= _signed(dim)
            seen = stop
        if count <= self.keep:
            return None
        pieces: list = []
        copied = pos
        while pos < end:
            number, wire, start, stop = self.field(pos, end)
            payload = TENSOR_PAYLOAD.get(number)
            if payload is not None and (wire == LENGTH or wire == payload[0]):
                if wire == LENGTH:
                    self.check_packed(start, stop, payload[1], number)
                pieces.append(self.buf[copied:pos])
                copied = stop
            pos = stop
        pieces.append(self.buf[copied:end])
        return pieces

    def check_packed(self, start: int, stop: int, size: int, number: int) -> None:
        """The cheap part of validating a packed payload that is skipped."""
        if number in (6, 9) or start == stop:
            return  # bytes fields
        if size and (stop - start) % size:
            raise WireError("packed fixed-width field of a length that is not a multiple of its element size")
        if not size and self.buf[stop - 1] >= 0x80:
            raise WireError("packed varint field ends inside a varint")


def _signed(value: int) -> int:
    """A varint read as int64, as protobuf reads ``dims``."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value
