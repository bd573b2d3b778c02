"""AIPP files (``atc --insert_op_conf``): read them, judge them as ATC does against the model, write one.

AIPP is the on-chip image pre-processing ATC inserts in front of a model input: color
conversion (CSC), crop, padding and per-channel normalization of uint8 images. Its file is
Protocol Buffers text of ``domi.InsertNewOps``, one ``aipp_op { ... }`` block per input.

- :func:`parse_aipp` reads a file as ATC's text parser does (``textproto``, against the schema
  in ``op_tables/aipp.json``) into an :class:`AippConfig`, or says where and why it stops;
- the ``*_problems`` functions judge a config, each one stage of ATC's own checks, and return
  typed :class:`AippProblem` records: GE's parameter validation (``param``), the AIPP kernel's
  value ranges (``value``), the model input it targets (``input``), crop/padding sizes
  (``size``), clashes with other options (``option``), color conversion (``color``) and the
  image formats of the chip (``chip``). :func:`validate` runs them all. Each command rule
  ``atccheck/atc/lint/rules/aipp_*.py`` reports one of them;
- :func:`generate_aipp` writes the config for the common case (a camera or decoder image in,
  normalized with a mean and std) and checks it with :func:`validate`.

Every fact (schema, checks, codes, ranges, channel counts, documented conversions, formats per
chip) comes from ``op_tables/aipp.json``, built from ``op_tables/curated/aipp_*.json``.
Nothing here prints.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field as dataclass_field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from atccheck.atc.textproto import (
    FieldSchema,
    MessageSchema,
    TextFormatError,
    TextMessage,
    parse_text,
    render_scalar,
)

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    from atccheck.tables import Tables

AIPP_TABLE = "op_tables/aipp.json"
MODE_STATIC = 1
MODE_DYNAMIC = 2
MATRIX = tuple(f"matrix_r{r}c{c}" for r in range(3) for c in range(3))
INPUT_BIAS = ("input_bias_0", "input_bias_1", "input_bias_2")
OUTPUT_BIAS = ("output_bias_0", "output_bias_1", "output_bias_2")
PADDINGS = ("left_padding_size", "right_padding_size", "top_padding_size", "bottom_padding_size")


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class AippCheck:
    """One check ATC makes (GE, the Aipp op's shape inference, the kernel, or a documented rule)."""

    id: str
    topic: str
    error: str | None
    severity: str
    message: str
    profiles: tuple[str, ...]
    source: str
    fields: tuple[str, ...] = ()
    max: int | None = None
    chips: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class AippRange:
    field: str
    min: float
    max: float
    zero_allowed: bool
    when: str | None  # "csc_switch": checked only with CSC on
    error: str
    source: str


@dataclass(frozen=True)
class AippFormat:
    name: str
    number: int
    image_channels: int
    model_channels: tuple[int, ...]  # what the documented conversions give the network (empty: none documented)
    yuv: bool
    source: str


@dataclass(frozen=True)
class CscPreset:
    """A documented conversion: the settings of one aipp_op block of the docs or the package."""

    name: str
    image: str
    model_image: str
    standard: str | None
    input_format: str
    csc_switch: bool
    rbuv_swap_switch: bool
    ax_swap_switch: bool
    matrix: tuple[int, ...] | None
    input_bias: tuple[int, ...] | None
    output_bias: tuple[int, ...] | None
    channels: int
    source: str


@dataclass(frozen=True)
class ChipFormats:
    short_soc: str
    release: str
    formats: tuple[str, ...]
    odd_crop: bool
    source: str


@dataclass(frozen=True)
class ParseErrorCode:
    code: str
    profiles: tuple[str, ...]
    source: str
    note: str


@dataclass(frozen=True)
class AippFacts:
    schema: Mapping[str, MessageSchema]
    root: str
    schema_source: str
    checks: Mapping[str, AippCheck]
    ranges: tuple[AippRange, ...]
    model_size: Mapping[str, Any]
    formats: Mapping[str, AippFormat]
    presets: tuple[CscPreset, ...]
    chips: Mapping[tuple[str, str], ChipFormats]
    parse_errors: tuple[ParseErrorCode, ...]
    uncatalogued_errors: Mapping[str, Mapping[str, str]]
    path_rule: Mapping[str, Any]
    normalization: Mapping[str, Any]

    def parse_error(self, profile: str | None) -> ParseErrorCode:
        for item in self.parse_errors:
            if profile in item.profiles:
                return item
        return self.parse_errors[-1]

    def check(self, check_id: str) -> AippCheck:
        return self.checks[check_id]

    def format_name(self, number: int) -> str:
        for item in self.formats.values():
            if item.number == number:
                return item.name
        return str(number)


def _load_facts(doc: Mapping[str, Any]) -> AippFacts:
    raw = doc["message_schema"]
    enums = raw["enums"]
    schema: dict[str, MessageSchema] = {}
    for name, fields in raw["messages"].items():
        specs = {}
        for f in fields:
            enum = enums[f["enum"]] if f["kind"] == "enum" else None
            specs[f["name"]] = FieldSchema(f["name"], f["number"], f["kind"], f["repeated"], enum, f.get("message"))
        schema[name] = MessageSchema(name, specs)
    checks: dict[str, AippCheck] = {}
    ranges: list[AippRange] = []
    formats: dict[str, AippFormat] = {}
    presets: list[CscPreset] = []
    chips: dict[tuple[str, str], ChipFormats] = {}
    parse_errors: list[ParseErrorCode] = []
    uncatalogued: dict[str, Mapping[str, str]] = {}
    model_size: Mapping[str, Any] = {}
    for e in doc["entries"]:
        kind = e["kind"]
        if kind == "check":
            checks[e["name"]] = AippCheck(e["name"], e["topic"], e["error"], e["severity"], e["message"],
                                          tuple(e["profiles"]), e["source"], tuple(e.get("fields", ())),
                                          e.get("max"), tuple(e.get("chips", ())), e.get("note", ""))
        elif kind == "range":
            ranges.append(AippRange(e["name"], e["min"], e["max"], e["zero_allowed"], e["when"], e["error"],
                                    e["source"]))
        elif kind == "format":
            formats[e["name"]] = AippFormat(e["name"], e["number"], e["image_channels"], tuple(e["model_channels"]),
                                            e["yuv"], e["source"])
        elif kind == "preset":
            presets.append(CscPreset(
                e["name"], e["image"], e["model_image"], e["standard"], e["input_format"], e["csc_switch"],
                e["rbuv_swap_switch"], e["ax_swap_switch"], _tuple_or_none(e["matrix"]),
                _tuple_or_none(e["input_bias"]), _tuple_or_none(e["output_bias"]), e["channels"], e["source"]))
        elif kind == "chip":
            chips[(e["short_soc"], e["release"])] = ChipFormats(e["short_soc"], e["release"], tuple(e["formats"]),
                                                                e["odd_crop"], e["source"])
        elif kind == "parse-error":
            parse_errors.append(ParseErrorCode(e["name"], tuple(e["profiles"]), e["source"], e["note"]))
        elif kind == "error":
            uncatalogued[e["name"]] = {"message": e["message"], "meaning": e["meaning"], "source": e["source"]}
        elif kind == "model-size":
            model_size = e
    return AippFacts(schema, raw["root"], raw["source"], checks, tuple(ranges), model_size, formats, tuple(presets),
                     chips, tuple(sorted(parse_errors, key=lambda p: p.profiles)), uncatalogued, doc["path_rule"],
                     doc["normalization"])


def _tuple_or_none(value: Any) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


@lru_cache(maxsize=4)
def aipp_facts(tbl: "Tables | None" = None) -> AippFacts:
    """The AIPP facts of this installation's tables (parsed once)."""
    from atccheck.tables import tables

    return _load_facts((tbl or tables()).docs["aipp.json"])


# --------------------------------------------------------------------------- the config


@dataclass(frozen=True)
class AippOp:
    """One ``aipp_op`` block: every field occurrence, with the effective value of each field."""

    index: int
    line: int
    message: TextMessage
    schema: MessageSchema = dataclass_field(repr=False, compare=False)

    def values(self, name: str) -> tuple[Any, ...]:
        return tuple(f.value for f in self.message.all(name))

    def given(self, name: str) -> bool:
        return self.message.has(name)

    def value(self, name: str) -> Any:
        """The value ATC uses: the last one given, else proto3's default (0, false, '')."""
        found = self.message.last(name)
        if found is not None:
            return found.value
        kind = self.schema.fields[name].kind
        return {"bool": False, "string": "", "float": 0.0}.get(kind, 0)

    def line_of(self, name: str) -> int:
        found = self.message.last(name)
        return found.line if found is not None else self.line

    @property
    def mode(self) -> int:
        return int(self.value("aipp_mode"))

    @property
    def static(self) -> bool:
        return self.mode == MODE_STATIC

    @property
    def dynamic(self) -> bool:
        return self.mode == MODE_DYNAMIC

    @property
    def rank(self) -> int:
        return int(self.value("related_input_rank"))

    def switch(self, name: str) -> bool:
        return bool(self.value(name))


@dataclass(frozen=True)
class AippConfig:
    ops: tuple[AippOp, ...]


@dataclass(frozen=True)
class AippParse:
    """A parsed file, or where the parser stops (``error``) and a hint when the cause is a common one."""

    config: AippConfig | None
    error: TextFormatError | None = None
    hint: str = ""


def parse_aipp(text: str, facts: AippFacts | None = None) -> AippParse:
    """Read ``text`` as ATC reads an ``--insert_op_conf`` file."""
    facts = facts or aipp_facts()
    result = parse_text(text, facts.schema, facts.root)
    if result.error is not None:
        return AippParse(None, result.error, _parse_hint(result.error, text, facts))
    assert result.message is not None
    op_type = facts.schema[facts.root].fields["aipp_op"].message
    assert op_type is not None
    op_schema = facts.schema[op_type]
    blocks = [(f.line, f.value) for f in result.message.fields
              if f.name == "aipp_op" and isinstance(f.value, TextMessage)]
    ops = tuple(AippOp(i, line, block, op_schema) for i, (line, block) in enumerate(blocks))
    return AippParse(AippConfig(ops))


def _parse_hint(error: TextFormatError, text: str, facts: AippFacts) -> str:
    message = error.message
    op_type = facts.schema[facts.root].fields["aipp_op"].message
    op_fields = facts.schema[op_type].fields if op_type else {}
    root_name = facts.root
    if f'Message type "{root_name}" has no field named' in message:
        name = message.rsplit('"', 2)[-2]
        if name in op_fields:
            return f"'{name}' belongs inside an 'aipp_op {{ ... }}' block: wrap the fields in one"
    if "has no field named" in message:
        name = message.rsplit('"', 2)[-2]
        return f"'{name}' is not a field of insert_op.proto ({facts.schema_source}): remove it"
    if message.startswith("Expected integer"):
        lines = text.splitlines()
        written = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
        if "mean_chn" in written:
            return ("mean_chn_i takes an integer: put the whole part there and the fraction in min_chn_i (the "
                    "normalization subtracts both)")
        return "this field takes an integer"
    if "is specified multiple times" in message:
        return "give each parameter once"
    return ""


# --------------------------------------------------------------------------- the model side


@dataclass(frozen=True)
class AippInput:
    """A real model input as ATC builds it (``--input_shape`` applied): its Data index and consumers."""

    name: str
    index: int
    dims: tuple[int, ...] | None  # ATC dims (-1: dynamic); None when the model gives no shape
    consumers: int  # input slots that read it in the root graph (the Data node's out edges)
    has_range: bool = False  # a '~' range, or a -1 without a gear option


@dataclass(frozen=True)
class AippTarget:
    """What a config is judged against: the model inputs and the command's other options."""

    inputs: tuple[AippInput, ...]
    profile: str | None = None
    kernel_release: str | None = None
    short_soc: str | None = None
    input_format: str | None = None  # --input_format as given (None: ATC's default, NCHW for ONNX)
    dynamic_dims: bool = False
    dynamic_image_size: bool = False
    fp16_nodes: tuple[str, ...] = ()

    def input_at(self, rank: int) -> AippInput | None:
        return self.inputs[rank] if 0 <= rank < len(self.inputs) else None


def model_aipp_inputs(model: "onnx.ModelProto", shapes: Mapping[str, tuple[int | tuple[int, int], ...]] | None = None,
                      gears: bool = False) -> tuple[AippInput, ...]:
    """The model's real inputs in Data-index order, with ``shapes`` (``--input_shape`` entries) applied."""
    from atccheck.model.input_shape import model_inputs

    consumers: dict[str, int] = {}
    for node in model.graph.node:
        for name in node.input:
            if name:
                consumers[name] = consumers.get(name, 0) + 1
    found = []
    for index, item in enumerate(model_inputs(model)):
        given = (shapes or {}).get(item.name)
        has_range = False
        dims: tuple[int, ...] | None
        if given is not None:
            has_range = any(isinstance(d, tuple) for d in given) or (not gears and any(d == -1 for d in given))
            dims = tuple(-1 if isinstance(d, tuple) else int(d) for d in given)
        else:  # a symbolic dim left unset is missing-input-shape's finding (ATC stops there first)
            dims = item.atc_dims if item.dims is not None else None
        found.append(AippInput(item.name, index, dims, consumers.get(item.name, 0), has_range))
    return tuple(found)


# --------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class AippProblem:
    """One defect of an AIPP config, as the stage of ATC that meets it reports it."""

    topic: str  # param, value, input, size, option, color, chip
    check: str  # the check's id in op_tables/aipp.json
    message: str
    severity: str  # error, warning, info
    atc_error: str | None
    source: str
    hint: str
    op: int | None = None  # the aipp_op block (0-based)
    field: str | None = None
    line: int | None = None  # line in the AIPP file
    data: Mapping[str, Any] = dataclass_field(default_factory=dict)
    option: str | None = None  # the command flag to change, when it is not --insert_op_conf


def _problem(facts: AippFacts, check_id: str, message: str, hint: str, op: AippOp | None = None,
             name: str | None = None, *, severity: str | None = None, atc_error: str | None = "check",
             data: Mapping[str, Any] | None = None, option: str | None = None) -> AippProblem:
    check = facts.check(check_id)
    where = f"aipp_op #{op.index + 1}: " if op is not None else ""
    return AippProblem(
        check.topic, check_id, where + message, severity or check.severity,
        check.error if atc_error == "check" else atc_error, check.source, hint,
        op.index if op is not None else None, name,
        (op.line_of(name) if name else op.line) if op is not None else None, dict(data or {}), option)


def _applies(facts: AippFacts, check_id: str, profile: str | None) -> bool:
    return profile is None or profile in facts.check(check_id).profiles


def param_problems(config: AippConfig, facts: AippFacts, profile: str | None = None) -> list[AippProblem]:
    """GE's parameter validation (AippOp::ValidateParams), before the model is looked at."""
    found: list[AippProblem] = []
    if not config.ops:
        found.append(_problem(facts, "no-aipp-op", "the file holds no aipp_op block: ATC inserts no AIPP and converts "
                              "the model as it is", "put the parameters inside 'aipp_op { ... }'"))
    for op in config.ops:
        if op.mode not in (MODE_STATIC, MODE_DYNAMIC):
            shown = "not set" if not op.given("aipp_mode") else f"{op.mode}"
            found.append(_problem(facts, "aipp-mode-set", f"aipp_mode is {shown}: it must be static or dynamic",
                                  "add 'aipp_mode: static' (or dynamic)", op, "aipp_mode" if op.given("aipp_mode") else None))
        for check_id in ("repeated-once", "repeated-once-edge"):
            if not _applies(facts, check_id, profile):
                continue
            for name in facts.check(check_id).fields:
                count = len(op.values(name))
                if count > 1:
                    found.append(_problem(facts, check_id, f"{name} is given {count} times; ATC takes it once",
                                          f"keep one {name}", op, name))
        if op.dynamic and int(op.value("max_src_image_size")) <= 0:
            found.append(_problem(facts, "dynamic-max-src-image-size",
                                  "dynamic AIPP needs max_src_image_size greater than 0",
                                  "set max_src_image_size to the largest image's bytes (N*W*H*channels; 1.5 per "
                                  "pixel for YUV420SP_U8)", op, "max_src_image_size" if op.given("max_src_image_size")
                                  else None))
        if op.static:
            if int(op.value("input_format")) == 0:
                found.append(_problem(facts, "static-input-format", "static AIPP needs input_format",
                                      "add 'input_format: RGB888_U8' (or the format the images arrive in)", op))
            for name in facts.check("not-negative").fields:
                value = op.value(name)
                if value < 0:
                    found.append(_problem(facts, "not-negative", f"{name} is {value}: it must not be negative",
                                          f"give {name} a size of 0 or more", op, name))
    return found


def value_problems(config: AippConfig, facts: AippFacts) -> list[AippProblem]:
    """The AIPP kernel's value ranges (static AIPP), checked when it compiles."""
    found: list[AippProblem] = []
    not_negative = set(facts.check("not-negative").fields)
    padding_max = facts.check("padding-max")
    for op in (o for o in config.ops if o.static):
        csc = op.switch("csc_switch")
        for item in facts.ranges:
            if not op.given(item.field) or (item.when == "csc_switch" and not csc):
                continue
            value = op.value(item.field)
            if item.field in not_negative and value < 0:
                continue  # GE refuses it first (not-negative)
            if item.zero_allowed and value == 0:
                continue
            if isinstance(value, float) and math.isnan(value) or not item.min <= value <= item.max:
                shown = f"[{_num(item.min)}, {_num(item.max)}]" + (" or 0" if item.zero_allowed else "")
                found.append(AippProblem("value", "range", f"aipp_op #{op.index + 1}: {item.field} is {_num(value)}, "
                                         f"outside {shown}", "error", item.error, item.source,
                                         f"give {item.field} a value in {shown}", op.index, item.field,
                                         op.line_of(item.field)))
        if op.switch("padding"):
            for name in padding_max.fields:
                value = op.value(name)
                if padding_max.max is not None and value > padding_max.max:
                    found.append(_problem(facts, "padding-max", f"{name} is {value}; AIPP pads at most "
                                          f"{padding_max.max} pixels per side", f"keep {name} at {padding_max.max} "
                                          "or less", op, name))
        if op.given("raw_rgbir_to_f16_n"):
            found.append(_problem(facts, "raw-rgbir-unsupported", "raw_rgbir_to_f16_n is not supported by this "
                                  "version's AIPP", "remove raw_rgbir_to_f16_n", op, "raw_rgbir_to_f16_n"))
    return found


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _layout(target: AippTarget) -> str:
    return "NHWC" if (target.input_format or "NCHW") == "NHWC" else "NCHW"


def _chw(item: AippInput, target: AippTarget) -> tuple[int, int, int] | None:
    """(C, H, W) of a 4-D input in the command's layout, or None."""
    if item.dims is None or len(item.dims) != 4:
        return None
    if _layout(target) == "NHWC":
        return item.dims[3], item.dims[1], item.dims[2]
    return item.dims[1], item.dims[2], item.dims[3]


def input_problems(config: AippConfig, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    """The model input each aipp_op names: that it exists, once, and has a shape AIPP can feed."""
    found: list[AippProblem] = []
    names = ", ".join(f"{i.index}: {i.name}" for i in target.inputs) or "none"
    seen: dict[int, AippOp] = {}
    by_name = bool(config.ops) and bool(config.ops[0].value("related_input_name"))
    for op in config.ops:
        if op.value("related_input_name"):
            found.append(_problem(facts, "related-input-name", f"related_input_name '{op.value('related_input_name')}' "
                                  "works for Caffe models only; ATC cannot map it for ONNX",
                                  f"use related_input_rank instead (inputs: {names})", op, "related_input_name"))
        elif by_name:
            found.append(_problem(facts, "position-repeated", "the first aipp_op uses related_input_name, this one "
                                  "related_input_rank: ATC takes one kind for all", "use related_input_rank in "
                                  "every aipp_op", op, "related_input_rank" if op.given("related_input_rank") else None))
        item = target.input_at(op.rank)
        if item is None:
            found.append(_problem(facts, "related-input-rank", f"related_input_rank {op.rank} names no input; the "
                                  f"model has {len(target.inputs)} (inputs: {names})",
                                  "count the inputs from 0, initializers excluded", op,
                                  "related_input_rank" if op.given("related_input_rank") else None))
            continue
        earlier = seen.get(op.rank)
        if earlier is not None and not by_name:
            found.append(_problem(facts, "position-repeated", f"aipp_op #{earlier.index + 1} already feeds input "
                                  f"{op.rank} ('{item.name}'): ATC inserts one AIPP per input",
                                  "merge the two blocks or point this one at another input", op,
                                  "related_input_rank" if op.given("related_input_rank") else None))
        seen.setdefault(op.rank, op)
        found.extend(_edge_problems(op, item, target, facts))
        found.extend(_shape_problems(op, item, target, facts))
    return found


def _edge_problems(op: AippOp, item: AippInput, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    edges = op.values("input_edge_idx")
    if not edges:
        return []
    if _applies(facts, "input-edge-idx-bound", target.profile):
        return [_problem(facts, "input-edge-idx-bound", f"input_edge_idx {e} is not below the {item.consumers} "
                         f"edge(s) of input '{item.name}'", f"use an edge index below {item.consumers}", op,
                         "input_edge_idx") for e in edges if e >= item.consumers]
    if _applies(facts, "input-edge-idx-ignored", target.profile):
        return [_problem(facts, "input-edge-idx-ignored", f"input_edge_idx is ignored in CANN {target.profile}: AIPP "
                         f"goes on all {item.consumers} edge(s) of input '{item.name}'",
                         "remove input_edge_idx, or split the input in the model", op, "input_edge_idx")]
    return []


def _shape_problems(op: AippOp, item: AippInput, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    if item.dims is None:
        return []
    rank = len(item.dims)
    if op.dynamic:
        if rank not in (3, 4):
            return [_problem(facts, "dynamic-rank", f"input '{item.name}' has rank {rank}; dynamic AIPP needs "
                             "3 or 4 dims", "point AIPP at an image input", op)]
        return []
    if not op.static:
        return []
    if rank != 4:
        return [_problem(facts, "static-rank", f"input '{item.name}' has rank {rank}; static AIPP needs a 4-D "
                         f"{_layout(target)} image input", "point related_input_rank at the image input", op)]
    chw = _chw(item, target)
    assert chw is not None
    channels = chw[0]
    if channels < 0:
        return []
    c0 = facts.check("model-channels-c0")
    if c0.max is not None and channels > c0.max:
        return [_problem(facts, "model-channels-c0", f"input '{item.name}' has {channels} channels; AIPP fills at "
                         f"most {c0.max}", "AIPP suits image inputs of 1, 3 or 4 channels", op)]
    fmt = facts.formats.get(facts.format_name(int(op.value("input_format"))))
    if fmt is None:
        return []
    # the conversion the settings match gives a channel count; unmatched settings, any of the format's
    matched = sorted((p for p in facts.presets if p.input_format == fmt.name and _matches(op, p)),
                     key=lambda p: (p.image != fmt.name, p.name))  # the format's own image first
    given = tuple(sorted({p.channels for p in matched})) or fmt.model_channels
    if given and channels not in given:
        what = f"the {matched[0].name.split(' (')[0]} conversion gives" if matched else \
            f"the documented conversions of {fmt.name} give"
        return [_problem(facts, "model-channels-format", f"input '{item.name}' has {channels} channels, but "
                         f"{what} {' or '.join(str(c) for c in given)}", "check the input_format and color settings "
                         "against the network's input, or the input AIPP feeds", op, "input_format",
                         data={"channels": channels, "documented": list(given)})]
    return []


def _output_size(op: AippOp, h: int, w: int) -> tuple[int, int]:
    """The Aipp op's shape inference: crop or resize size, else the source size, plus paddings."""
    out_h, out_w = h, w
    if op.switch("crop"):
        out_h = int(op.value("crop_size_h")) or out_h
        out_w = int(op.value("crop_size_w")) or out_w
    if op.switch("resize"):
        out_h = int(op.value("resize_output_h")) or out_h
        out_w = int(op.value("resize_output_w")) or out_w
    if not op.switch("crop") and not op.switch("resize"):
        out_h = int(op.value("src_image_size_h")) or out_h
        out_w = int(op.value("src_image_size_w")) or out_w
    if op.switch("padding"):
        out_h += int(op.value("top_padding_size")) + int(op.value("bottom_padding_size"))
        out_w += int(op.value("left_padding_size")) + int(op.value("right_padding_size"))
    return out_h, out_w


def size_problems(config: AippConfig, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    """Crop, resize and padding against the source image and the model input's H and W (static AIPP)."""
    found: list[AippProblem] = []
    for op in (o for o in config.ops if o.static):
        item = target.input_at(op.rank)
        chw = _chw(item, target) if item is not None else None
        if item is None or chw is None:
            continue
        _, h, w = chw
        crop, resize, padding = op.switch("crop"), op.switch("resize"), op.switch("padding")
        src_w, src_h = int(op.value("src_image_size_w")), int(op.value("src_image_size_h"))
        if min(src_w, src_h) < 0:
            continue  # not-negative reports it
        if (crop or resize or padding) and (src_w <= 0 or src_h <= 0):
            on = ", ".join(n for n, v in (("crop", crop), ("resize", resize), ("padding", padding)) if v)
            found.append(_problem(facts, "src-size-needed", f"{on} is on, so src_image_size_w and src_image_size_h "
                                  f"must be set (they are {src_w} and {src_h})", "give the source image's width "
                                  "and height", op, "src_image_size_w" if src_w <= 0 else "src_image_size_h"))
        if crop:
            found.extend(_crop_problems(op, h, w, src_h, src_w, resize or padding, facts))
        if h > 0 and w > 0:
            out_h, out_w = _output_size(op, h, w)
            if (out_h, out_w) != (h, w):
                found.append(_problem(facts, "output-size", f"AIPP would output {out_h}x{out_w} (HxW) but input "
                                      f"'{item.name}' is {h}x{w}", _size_hint(op, h, w), op,
                                      data={"aipp_output": [out_h, out_w], "model": [h, w]}))
            size = facts.model_size
            if src_h == 0 and not size["h_min"] <= h <= size["max"] or src_w == 0 and not size["w_min"] <= w <= size["max"]:
                found.append(AippProblem("size", "model-size", f"aipp_op #{op.index + 1}: without src_image_size, "
                                         f"AIPP takes the model's {h}x{w}, outside H [{size['h_min']}, {size['max']}] "
                                         f"W [{size['w_min']}, {size['max']}]", "error", size["error"], size["source"],
                                         "AIPP suits images up to 4096 pixels a side", op.index, None, op.line))
        found.extend(_yuv420_problems(op, target, h, w, crop or resize or padding, facts))
    return found


def _crop_problems(op: AippOp, h: int, w: int, src_h: int, src_w: int, resize_or_padding: bool,
                   facts: AippFacts) -> list[AippProblem]:
    found = []
    crop_h, crop_w = int(op.value("crop_size_h")), int(op.value("crop_size_w"))
    if (crop_h == 0 or crop_w == 0) and resize_or_padding:
        found.append(_problem(facts, "crop-within-source", "a crop size of 0 (the model's size) cannot go with "
                              "resize or padding", "give crop_size_w and crop_size_h", op,
                              "crop_size_h" if crop_h == 0 else "crop_size_w"))
    crop_h, crop_w = crop_h or h, crop_w or w
    for axis, start, size, src in (("w", int(op.value("load_start_pos_w")), crop_w, src_w),
                                   ("h", int(op.value("load_start_pos_h")), crop_h, src_h)):
        if src > 0 and size > 0 and start >= 0 and start + size > src:
            found.append(_problem(facts, "crop-within-source", f"load_start_pos_{axis} {start} + crop_size_{axis} "
                                  f"{size} = {start + size} passes src_image_size_{axis} {src}",
                                  f"keep load_start_pos_{axis} + crop_size_{axis} <= {src}", op, f"crop_size_{axis}"
                                  if op.given(f"crop_size_{axis}") else f"load_start_pos_{axis}"))
    return found


def _size_hint(op: AippOp, h: int, w: int) -> str:
    if op.switch("crop"):
        return f"make crop_size (plus paddings) come to {h}x{w}"
    if op.switch("padding"):
        return f"make src_image_size plus the paddings come to {h}x{w}"
    return f"set src_image_size_h {h} and src_image_size_w {w}, or crop/pad to that size"


def _yuv420_problems(op: AippOp, target: AippTarget, h: int, w: int, reshaped: bool,
                     facts: AippFacts) -> list[AippProblem]:
    if facts.format_name(int(op.value("input_format"))) != "YUV420SP_U8":
        return []
    found = []
    src_w, src_h = int(op.value("src_image_size_w")), int(op.value("src_image_size_h"))
    if reshaped and (src_w % 2 or src_h % 2):
        found.append(_problem(facts, "yuv420sp-even", f"YUV420SP_U8 needs an even source size, not {src_w}x{src_h}",
                              "use even src_image_size_w and src_image_size_h", op, "src_image_size_w"))
    elif not reshaped and h > 0 and w > 0 and (h % 2 or w % 2):
        found.append(_problem(facts, "yuv420sp-even", f"YUV420SP_U8 needs an even image size, not {h}x{w} (HxW)",
                              "feed an even-sized image, or crop to one", op))
    if op.switch("crop"):
        chip = _chip(target, facts)
        odd_ok = chip is not None and chip.odd_crop
        starts = (int(op.value("load_start_pos_w")), int(op.value("load_start_pos_h")))
        if not odd_ok and any(s % 2 for s in starts):
            where = f"on {target.short_soc}" if target.short_soc else "on chips without odd crops"
            found.append(_problem(facts, "yuv420sp-even", f"YUV420SP_U8 crops start at even positions {where}, "
                                  f"not ({starts[0]}, {starts[1]})", "use even load_start_pos_w and load_start_pos_h",
                                  op, "load_start_pos_w" if starts[0] % 2 else "load_start_pos_h"))
    return found


def option_problems(config: AippConfig, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    """Clashes between the AIPP file and the command's other options."""
    found: list[AippProblem] = []
    if target.dynamic_dims and config.ops:
        found.append(_problem(facts, "dynamic-dims", "--dynamic_dims cannot go with AIPP: \"The dynamic dims function "
                              "does not support AIPP.\"", "use --dynamic_batch_size or --dynamic_image_size, or drop "
                              "--insert_op_conf"))
    single = len(target.inputs) == 1
    for op in config.ops:
        item = target.input_at(op.rank)
        if item is not None and item.name in target.fp16_nodes:
            found.append(_problem(facts, "fp16-input", f"input '{item.name}' is in --input_fp16_nodes and fed by "
                                  "AIPP, whose output it must take as is", f"remove '{item.name}' from "
                                  "--input_fp16_nodes", op, option="--input_fp16_nodes"))
        if target.dynamic_image_size and op.static:
            if op.switch("crop") or op.switch("padding"):
                found.append(_problem(facts, "dynamic-image-size", "with --dynamic_image_size, crop and padding "
                                      "cannot be on", "turn crop and padding off", op,
                                      "crop" if op.switch("crop") else "padding"))
            elif int(op.value("src_image_size_w")) or int(op.value("src_image_size_h")):
                found.append(_problem(facts, "dynamic-image-size", "with --dynamic_image_size, src_image_size_w and "
                                      "src_image_size_h must be 0", "remove src_image_size_w and src_image_size_h",
                                      op, "src_image_size_w" if op.value("src_image_size_w") else "src_image_size_h"))
        if op.static and item is not None and item.has_range:
            where = "the model's only input" if single else f"input '{item.name}', which AIPP feeds"
            found.append(_problem(facts, "shape-range-single-input", f"static AIPP with a shape range on {where}: not "
                                  "supported", "give the input a static shape (or gears: --dynamic_batch_size)", op,
                                  option="--input_shape"))
        layout = (target.input_format or "NCHW").upper()
        if op.dynamic and layout not in ("NCHW", "NHWC"):
            found.append(_problem(facts, "dynamic-format", f"dynamic AIPP needs --input_format NCHW or NHWC, not "
                                  f"{layout}", "use --input_format=NCHW", op, option="--input_format"))
        elif op.static and target.input_format is not None and layout != "NCHW":
            found.append(_problem(facts, "static-format", f"--input_format is {layout}; with AIPP an ONNX model "
                                  "takes NCHW", "use --input_format=NCHW", op, option="--input_format"))
    return found


def color_problems(config: AippConfig, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    """Color conversion (CSC) and channel swaps against the documented conversions of the input format."""
    found: list[AippProblem] = []
    for op in (o for o in config.ops if o.static and int(o.value("input_format"))):
        fmt = facts.format_name(int(op.value("input_format")))
        csc = op.switch("csc_switch")
        given_csc = [n for n in MATRIX + INPUT_BIAS + OUTPUT_BIAS if op.given(n)]
        if fmt == "YUV400_U8" and csc:
            found.append(_problem(facts, "yuv400-csc", "YUV400_U8 is a gray image: csc_switch cannot be on",
                                  "set csc_switch: false", op, "csc_switch"))
            continue
        if not csc and given_csc:
            found.append(_problem(facts, "csc-off-matrix", f"csc_switch is off, so {given_csc[0]} and the other "
                                  "matrix/bias values do nothing", "set csc_switch: true, or remove them", op,
                                  given_csc[0]))
        if csc and not all(op.given(n) for n in MATRIX):
            missing = [n for n in MATRIX if not op.given(n)]
            found.append(_problem(facts, "csc-defaults", f"csc_switch is on without {', '.join(missing[:3])}"
                                  f"{' ...' if len(missing) > 3 else ''}: the kernel fills its own YUV-to-BGR "
                                  "defaults, which need not be the conversion meant", "give the full matrix of a "
                                  "documented conversion (docs/atc.md lists them)", op, "csc_switch"))
            continue
        candidates = [p for p in facts.presets if p.input_format == fmt]
        if not candidates:
            continue
        matched = [p for p in candidates if _matches(op, p)]
        if not matched:
            near = _nearest(op, candidates)
            found.append(_problem(facts, "csc-unmatched", f"the {fmt} settings (csc_switch {str(csc).lower()}, "
                                  f"rbuv_swap_switch {str(op.switch('rbuv_swap_switch')).lower()}, ax_swap_switch "
                                  f"{str(op.switch('ax_swap_switch')).lower()}{', a matrix' if csc else ''}) match no "
                                  f"documented conversion; nearest: {', '.join(p.name for p in near)}",
                                  "copy the settings of the documented conversion to the network's color order",
                                  op, "matrix_r0c0" if csc else "rbuv_swap_switch",
                                  data={"nearest": [p.name for p in near]}))
    return found


def _bias(op: AippOp, names: Sequence[str]) -> tuple[int, ...]:
    return tuple(int(op.value(n)) if op.given(n) else d for n, d in zip(names, (16, 128, 128)))


def _matches(op: AippOp, preset: CscPreset) -> bool:
    if (op.switch("csc_switch"), op.switch("rbuv_swap_switch"), op.switch("ax_swap_switch")) != \
            (preset.csc_switch, preset.rbuv_swap_switch, preset.ax_swap_switch):
        return False
    if not preset.csc_switch:
        return True
    if tuple(int(op.value(n)) for n in MATRIX) != preset.matrix:
        return False
    if preset.input_bias is not None and _bias(op, INPUT_BIAS) != preset.input_bias:
        return False
    return preset.output_bias is None or _bias(op, OUTPUT_BIAS) == preset.output_bias


def _nearest(op: AippOp, candidates: Sequence[CscPreset]) -> list[CscPreset]:
    def distance(p: CscPreset) -> tuple[int, int]:
        switches = sum((op.switch("csc_switch") != p.csc_switch, op.switch("rbuv_swap_switch") != p.rbuv_swap_switch,
                        op.switch("ax_swap_switch") != p.ax_swap_switch))
        matrix = sum(abs(int(op.value(n)) - v) for n, v in zip(MATRIX, p.matrix or (0,) * 9)) if op.switch(
            "csc_switch") else 0
        return switches, matrix

    ranked = sorted(candidates, key=lambda p: (distance(p), p.name))
    names: list[CscPreset] = []
    for p in ranked:
        if p.name.split(" (")[0] not in {n.name.split(" (")[0] for n in names}:
            names.append(p)
        if len(names) == 3:
            break
    return names


def _chip(target: AippTarget, facts: AippFacts) -> ChipFormats | None:
    if target.short_soc is None or target.kernel_release is None:
        return None
    return facts.chips.get((target.short_soc, target.kernel_release))


def chip_problems(config: AippConfig, target: AippTarget, facts: AippFacts) -> list[AippProblem]:
    """What the chip's AIPP kernel supports: image formats, resize, padded width."""
    found: list[AippProblem] = []
    if target.short_soc is None:
        return found
    chip = _chip(target, facts)
    resize_chips = facts.check("resize-chips").chips
    width = facts.check("padding-width")
    for op in (o for o in config.ops if o.static):
        fmt = facts.format_name(int(op.value("input_format")))
        if chip is not None and int(op.value("input_format")) and fmt not in chip.formats:
            found.append(_problem(facts, "chip-formats", f"{target.short_soc}'s AIPP takes {', '.join(chip.formats)}, "
                                  f"not {fmt}", "convert the images to one of those formats first", op,
                                  "input_format", data={"formats": list(chip.formats)}))
        if op.switch("resize") and target.short_soc not in resize_chips:
            found.append(_problem(facts, "resize-chips", f"{target.short_soc}'s AIPP cannot resize (only "
                                  f"{', '.join(resize_chips)} can)", "set resize: false and resize the images "
                                  "before the model", op, "resize"))
        item = target.input_at(op.rank)
        chw = _chw(item, target) if item is not None else None
        if op.switch("padding") and chw is not None and target.short_soc in width.chips and width.max is not None \
                and chw[2] > width.max:
            found.append(_problem(facts, "padding-width", f"with padding, {target.short_soc}'s AIPP outputs at most "
                                  f"{width.max} pixels wide; input '{item.name}' is {chw[2]}",  # type: ignore[union-attr]
                                  "pad the images before the model, or turn padding off", op, "padding"))
    return found


def validate(config: AippConfig, target: AippTarget, facts: AippFacts | None = None) -> list[AippProblem]:
    """Every problem of ``config`` for ``target``, in the order ATC meets them."""
    facts = facts or aipp_facts()
    return [*param_problems(config, facts, target.profile), *option_problems(config, target, facts),
            *input_problems(config, target, facts), *size_problems(config, target, facts),
            *value_problems(config, facts), *color_problems(config, target, facts),
            *chip_problems(config, target, facts)]


# --------------------------------------------------------------------------- writing a config


@dataclass(frozen=True)
class GeneratedAipp:
    """A written config: its text, the settings chosen, and what the user should know."""

    text: str
    input: AippInput
    preset: CscPreset | None
    notes: tuple[str, ...]


class AippRequestError(ValueError):
    """A generation request that cannot give a valid config (the message says why)."""


def image_formats(facts: AippFacts | None = None) -> tuple[str, ...]:
    """The image formats a config can be written for: the proto's formats and the documented image names."""
    facts = facts or aipp_facts()
    return tuple(sorted({p.image for p in facts.presets}))


def _choose_preset(image: str, color: str, standard: str | None, facts: AippFacts) -> CscPreset:
    options = [p for p in facts.presets if p.image == image and p.model_image == color]
    if not options:
        colors = sorted({p.model_image for p in facts.presets if p.image == image})
        if not colors:
            raise AippRequestError(f"no documented conversion starts from {image}; images: "
                                   f"{', '.join(image_formats(facts))}")
        raise AippRequestError(f"no documented conversion turns {image} into {color}; it gives "
                               f"{', '.join(colors)}")
    standards = sorted({p.standard for p in options if p.standard})
    if standards:
        wanted = standard or _default_standard(options)
        chosen = [p for p in options if p.standard == wanted]
        if not chosen:
            raise AippRequestError(f"{image} -> {color} is documented for {', '.join(standards)}, not {wanted}")
        options = chosen
    docs = [p for p in options if p.source.startswith("hicann/ge")]
    return (docs or options)[0]


def _default_standard(options: Sequence[CscPreset]) -> str:
    """GE's own default matrix is BT.601 narrow range (aipp_op.cc); so is the generator's."""
    standards = {p.standard for p in options}
    return "BT-601NARROW" if "BT-601NARROW" in standards else sorted(s for s in standards if s)[0]


def generate_aipp(
    inputs: Sequence[AippInput],
    image: str,
    *,
    mean: Sequence[float] | None = None,
    std: Sequence[float] | None = None,
    color: str | None = None,
    standard: str | None = None,
    input_name: str | None = None,
    facts: AippFacts | None = None,
) -> GeneratedAipp:
    """A static AIPP config feeding ``image`` (e.g. RGB888_U8, BGR888_U8, YUV420SP_U8) to a model input.

    The source size is the input's H and W (no crop or padding); the color conversion is the
    documented one from ``image`` to ``color`` (RGB, or GRAY for a 1-channel input; for YUV images
    the video ``standard``, BT.601 narrow range by default); ``mean`` and ``std`` (on the 0-255
    pixel scale, in the network's channel order) become mean_chn (whole part), min_chn (fraction)
    and var_reci_chn = 1/std. Raises :class:`AippRequestError` when no valid config exists.
    """
    facts = facts or aipp_facts()
    item = _aipp_input(inputs, input_name)
    if item.dims is None or len(item.dims) != 4 or min(item.dims[1:]) <= 0:
        raise AippRequestError(f"input '{item.name}' has shape {list(item.dims or [])}: AIPP needs a 4-D NCHW image "
                               "input with static C, H and W (give them with --input-shape)")
    channels, h, w = item.dims[1], item.dims[2], item.dims[3]
    color = (color or ("GRAY" if channels == 1 else "RGB")).upper()
    preset = _choose_preset(image, color, standard, facts)
    if channels != preset.channels:
        nhwc = " (its last dim looks like channels: an NHWC input, which ONNX with AIPP cannot take as NCHW)" \
            if item.dims[3] == preset.channels else ""
        raise AippRequestError(f"input '{item.name}' has {channels} channels{nhwc}; {preset.image} -> "
                               f"{preset.model_image} gives {preset.channels}")
    notes: list[str] = []
    if preset.standard:
        notes.append(f"color conversion {preset.name.split(' (')[0]} ({preset.source.split(':', 1)[0]}): YUV images "
                     "from a video decoder are usually BT-601NARROW, JPEG decodes use JPEG; pass --aipp-standard if "
                     "yours differs")
    means = _per_channel(mean, channels, "--mean", 0.0)
    stds = _per_channel(std, channels, "--std", 1.0)
    if any(s == 0 for s in stds):
        raise AippRequestError("--std has a 0: var_reci_chn = 1/std would be infinite")
    if mean is not None and std is not None and max(means) <= 1 and max(abs(s) for s in stds) <= 1:
        notes.append("--mean and --std are all <= 1: AIPP sees 0-255 pixels, so values for 0-1 pixels must be "
                     "multiplied by 255 (123.675 rather than 0.485)")
    lines = ["aipp_op {", "    aipp_mode: static", f"    related_input_rank: {item.index}",
             f"    input_format: {preset.input_format}", f"    src_image_size_w: {w}", f"    src_image_size_h: {h}",
             f"    csc_switch: {str(preset.csc_switch).lower()}",
             f"    rbuv_swap_switch: {str(preset.rbuv_swap_switch).lower()}",
             f"    ax_swap_switch: {str(preset.ax_swap_switch).lower()}"]
    if preset.csc_switch:
        lines += [f"    {n}: {v}" for n, v in zip(MATRIX, preset.matrix or ())]
        for names, values in ((INPUT_BIAS, preset.input_bias), (OUTPUT_BIAS, preset.output_bias)):
            if values is not None:
                lines += [f"    {n}: {v}" for n, v in zip(names, values)]
    float_spec = FieldSchema("var_reci_chn_0", 0, "float")
    for i, (m, s) in enumerate(zip(means, stds)):
        if not 0 <= m < 256:
            raise AippRequestError(f"--mean {m:g} is outside AIPP's 0-255 pixel range")
        whole = int(math.floor(m))
        lines.append(f"    mean_chn_{i}: {whole}")
        if m - whole:
            lines.append(f"    min_chn_{i}: {render_scalar(float_spec, round(m - whole, 6))}")
        lines.append(f"    var_reci_chn_{i}: {render_scalar(float_spec, float(f'{1.0 / s:.8g}'))}")
    lines.append("}")
    text = "# AIPP config written by atccheck: " + f"{preset.image} -> {preset.model_image} for input " \
        f"'{item.name}' ({channels}x{h}x{w})\n" + "\n".join(lines) + "\n"
    return GeneratedAipp(text, item, preset, tuple(notes))


def _aipp_input(inputs: Sequence[AippInput], name: str | None) -> AippInput:
    if name is not None:
        for item in inputs:
            if item.name == name:
                return item
        raise AippRequestError(f"no model input is named '{name}' (inputs: {', '.join(i.name for i in inputs)})")
    four_d = [i for i in inputs if i.dims is not None and len(i.dims) == 4]
    if not inputs:
        raise AippRequestError("the model has no input")
    if len(four_d) > 1:
        raise AippRequestError(f"the model has {len(four_d)} 4-D inputs ({', '.join(i.name for i in four_d)}): "
                               "name the one AIPP feeds with --aipp-input")
    return four_d[0] if four_d else inputs[0]


def _per_channel(values: Sequence[float] | None, channels: int, option: str, default: float) -> list[float]:
    if values is None:
        return [default] * channels
    values = list(values)
    if len(values) == 1:
        return values * channels
    if len(values) != channels:
        raise AippRequestError(f"{option} has {len(values)} values; the input has {channels} channels")
    return [float(v) for v in values]


def problems_by_topic(problems: Iterable[AippProblem], topic: str) -> list[AippProblem]:
    return [p for p in problems if p.topic == topic]
