"""AIPP configs: one case per check ATC makes, the clean configs, and the generator.

Each case is a small config and a model input built here; the expected check id is the record
of op_tables/aipp.json the problem must cite, so a test fails when detection or data change.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from atccheck.atc.aipp import (
    AippInput,
    AippRequestError,
    AippTarget,
    aipp_facts,
    generate_aipp,
    image_formats,
    parse_aipp,
    validate,
)

FACTS = aipp_facts()
IMAGE = AippInput("image", 0, (1, 3, 224, 224), 1)
TARGET = AippTarget((IMAGE,), profile="9.0", kernel_release="cann-8.1.RC1", short_soc="Ascend310P")
GOOD = "aipp_op {{ aipp_mode: static input_format: RGB888_U8 src_image_size_w: 224 src_image_size_h: 224 {} }}"


def problems(text: str, target: AippTarget = TARGET):
    parsed = parse_aipp(text)
    assert parsed.config is not None, parsed.error
    return validate(parsed.config, target)


def target(**changes) -> AippTarget:
    return replace(TARGET, **changes)


def one_input(dims, **changes) -> AippTarget:
    return target(inputs=(replace(IMAGE, dims=dims, **changes),))


CASES = [
    ("no-aipp-op", "", TARGET),
    ("aipp-mode-set", "aipp_op { input_format: RGB888_U8 }", TARGET),
    ("repeated-once", GOOD.format("var_reci_chn_0: 0.5 var_reci_chn_0: 0.25"), TARGET),
    ("repeated-once-edge", GOOD.format("input_edge_idx: [0, 0]"), target(profile="6.0")),
    ("dynamic-max-src-image-size", "aipp_op { aipp_mode: dynamic }", TARGET),
    ("static-input-format", "aipp_op { aipp_mode: static }", TARGET),
    ("not-negative", GOOD.format("crop: true crop_size_w: -8"), TARGET),
    ("related-input-rank", GOOD.format("related_input_rank: 1"), TARGET),
    ("related-input-name", GOOD.format('related_input_name: "image"'), TARGET),
    ("position-repeated", GOOD.format("") + GOOD.format(""), TARGET),
    ("input-edge-idx-bound", GOOD.format("input_edge_idx: 3"), target(profile="6.0")),
    ("input-edge-idx-ignored", GOOD.format("input_edge_idx: 0"), TARGET),
    ("dynamic-dims", GOOD.format(""), target(dynamic_dims=True)),
    ("fp16-input", GOOD.format(""), target(fp16_nodes=("image",))),
    ("dynamic-image-size", GOOD.format("crop: true"), target(dynamic_image_size=True)),
    ("shape-range-single-input", GOOD.format(""), one_input((1, 3, 224, 224), has_range=True)),
    ("dynamic-format", "aipp_op { aipp_mode: dynamic max_src_image_size: 150528 }", target(input_format="ND")),
    ("static-format", GOOD.format(""), target(input_format="ND")),
    ("dynamic-rank", "aipp_op { aipp_mode: dynamic max_src_image_size: 150528 }", one_input((1, 224))),
    ("static-rank", GOOD.format(""), one_input((1, 224))),
    ("output-size", GOOD.format("").replace("src_image_size_w: 224", "src_image_size_w: 256"), TARGET),
    ("src-size-needed", "aipp_op { aipp_mode: static input_format: RGB888_U8 crop: true }", TARGET),
    ("crop-within-source", GOOD.format("crop: true load_start_pos_w: 10 crop_size_w: 224 crop_size_h: 224"), TARGET),
    ("yuv420sp-even", GOOD.format("").replace("RGB888_U8", "YUV420SP_U8").replace("224", "223"),
     one_input((1, 3, 223, 223))),
    ("padding-max", GOOD.format("padding: true left_padding_size: 40").replace("w: 224", "w: 184"), TARGET),
    ("padding-width", GOOD.format("padding: true left_padding_size: 24 right_padding_size: 24")
     .replace("w: 224", "w: 2000"), one_input((1, 3, 224, 2048))),
    ("resize-chips", GOOD.format("resize: true"), TARGET),
    ("chip-formats", GOOD.format("").replace("RGB888_U8", "YUV422SP_U8"), TARGET),
    ("yuv400-csc", GOOD.format("csc_switch: true").replace("RGB888_U8", "YUV400_U8"), one_input((1, 1, 224, 224))),
    ("model-channels-c0", GOOD.format(""), one_input((1, 20, 224, 224))),
    ("model-channels-format", GOOD.format("").replace("RGB888_U8", "YUV400_U8"), TARGET),
    ("csc-unmatched", GOOD.format("csc_switch: true " + " ".join(
        f"matrix_r{r}c{c}: {v}" for (r, c), v in zip(((r, c) for r in range(3) for c in range(3)), range(1, 10)))),
     TARGET),
    ("csc-defaults", GOOD.format("csc_switch: true"), TARGET),
    ("csc-off-matrix", GOOD.format("matrix_r0c0: 298"), TARGET),
    ("raw-rgbir-unsupported", GOOD.format("raw_rgbir_to_f16_n: 8"), TARGET),
    ("range", GOOD.format("mean_chn_0: 300"), TARGET),
    ("model-size", "aipp_op { aipp_mode: static input_format: RGB888_U8 }", one_input((1, 3, 224, 5000))),
]


@pytest.mark.parametrize("check, text, where", CASES, ids=[c[0] for c in CASES])
def test_each_check_is_detected(check, text, where):
    found = problems(text, where)
    hits = [p for p in found if p.check == check]
    assert hits, f"{check} not in {[(p.check, p.message) for p in found]}"
    record = FACTS.checks.get(check)
    if record is not None:
        assert hits[0].severity == record.severity and hits[0].atc_error == record.error
        assert hits[0].source == record.source


def test_every_check_of_the_table_has_a_case():
    assert {c[0] for c in CASES} >= set(FACTS.checks)


@pytest.mark.parametrize("where", [TARGET, target(profile="6.0"), target(short_soc="Ascend910B"),
                                   target(short_soc=None, kernel_release=None, profile=None)])
def test_the_clean_config_is_clean(where):
    assert problems(GOOD.format(""), where) == []


def test_a_negative_size_is_reported_once():
    found = problems(GOOD.format("").replace("src_image_size_w: 224", "src_image_size_w: -1"))
    assert [p.check for p in found] == ["not-negative"]


def test_value_ranges_follow_csc():
    off = problems(GOOD.format("matrix_r0c0: 40000"))  # CSC off: the kernel never reads the matrix
    assert [p.check for p in off] == ["csc-off-matrix"]
    on = problems(GOOD.format("csc_switch: true matrix_r0c0: 40000"))
    assert any(p.check == "range" and p.field == "matrix_r0c0" and p.atc_error == "E81012" for p in on)


def test_the_documented_conversions_match():
    text = GOOD.format("csc_switch: true matrix_r0c0: 298 matrix_r0c1: 0 matrix_r0c2: 409 matrix_r1c0: 298 "
                       "matrix_r1c1: -100 matrix_r1c2: -208 matrix_r2c0: 298 matrix_r2c1: 516 matrix_r2c2: 0 "
                       "input_bias_0: 16 input_bias_1: 128 input_bias_2: 128").replace("RGB888_U8", "YUV420SP_U8")
    assert problems(text) == []
    wrong_bias = text.replace("input_bias_0: 16", "input_bias_0: 0")
    assert [p.check for p in problems(wrong_bias)] == ["csc-unmatched"]


def test_xrgb_needs_its_swap():
    xrgb = GOOD.format("ax_swap_switch: true").replace("RGB888_U8", "XRGB8888_U8")
    assert problems(xrgb) == []
    found = problems(GOOD.format("").replace("RGB888_U8", "XRGB8888_U8"))
    assert [p.check for p in found] == ["csc-unmatched"] and "XRGB8888_U8->RGB" in found[0].message


def test_yuv420sp_odd_crop_depends_on_the_chip():
    text = GOOD.format("crop: true load_start_pos_w: 1 crop_size_w: 222 crop_size_h: 224").replace(
        "RGB888_U8", "YUV420SP_U8").replace("224 }", "224 csc_switch: false }")
    assert any(p.check == "yuv420sp-even" for p in problems(text, one_input((1, 3, 224, 222))))
    on_910b = target(short_soc="Ascend910B", inputs=(replace(IMAGE, dims=(1, 3, 224, 222)),))
    assert not any(p.check == "yuv420sp-even" for p in problems(text, on_910b))


def test_chip_formats_come_from_the_release_of_the_profile():
    text = GOOD.format("").replace("RGB888_U8", "YUV422SP_U8")
    assert any(p.check == "chip-formats" for p in problems(text, target(short_soc="Ascend910_93")))
    # the 2022 kernel does not check Ascend910_93's formats (it predates the chip)
    assert not any(p.check == "chip-formats" for p in problems(
        text, target(short_soc="Ascend910_93", kernel_release="canndev-2022-06")))


def test_problems_name_the_line():
    text = "aipp_op {\n  aipp_mode: static\n  input_format: RGB888_U8\n  mean_chn_2: 999\n}\n"
    (problem,) = [p for p in problems(text) if p.check == "range"]
    assert problem.line == 4 and problem.field == "mean_chn_2" and problem.op == 0


def test_parse_hints():
    assert "aipp_op" in parse_aipp("aipp_mode: static\ninput_format: RGB888_U8\n").hint
    assert "min_chn" in parse_aipp("aipp_op { mean_chn_0: 123.675 }").hint
    assert "not a field" in parse_aipp("aipp_op { rotation_angle: 0 }").hint


def test_parse_error_code_per_profile():
    assert FACTS.parse_error("6.0").code == "E19018"
    assert FACTS.parse_error("8.0").code == "E19018"
    assert FACTS.parse_error("9.0").code == "E13005"


# --------------------------------------------------------------------------- the generator


def test_generated_rgb_config_normalizes_as_asked():
    generated = generate_aipp(TARGET.inputs, "RGB888_U8", mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])
    config = parse_aipp(generated.text).config
    assert config is not None and validate(config, TARGET) == []
    (op,) = config.ops
    for i, (mean, std) in enumerate(zip([123.675, 116.28, 103.53], [58.395, 57.12, 57.375])):
        # AIPP computes (pixel - mean_chn - min_chn) * var_reci_chn
        assert op.value(f"mean_chn_{i}") + op.value(f"min_chn_{i}") == pytest.approx(mean, abs=1e-6)
        assert op.value(f"var_reci_chn_{i}") == pytest.approx(1 / std, rel=1e-7)
        pixel = 200
        aipp = (pixel - op.value(f"mean_chn_{i}") - op.value(f"min_chn_{i}")) * op.value(f"var_reci_chn_{i}")
        assert aipp == pytest.approx((pixel - mean) / std, rel=1e-6)
    assert op.value("src_image_size_w") == 224 and op.value("src_image_size_h") == 224
    assert not op.switch("csc_switch") and not op.switch("rbuv_swap_switch")


@pytest.mark.parametrize("image", image_formats())
def test_every_documented_image_gives_a_valid_config(image):
    colors = sorted({p.model_image for p in FACTS.presets if p.image == image})
    for color in colors:
        channels = {"GRAY": 1, "RGBA": 4, "BGRA": 4}.get(color, 3)
        item = replace(IMAGE, dims=(1, channels, 224, 224))
        generated = generate_aipp((item,), image, color=color, mean=[100.5] * channels, std=[50.0] * channels)
        config = parse_aipp(generated.text).config
        assert config is not None
        no_chip = replace(TARGET, inputs=(item,), short_soc=None)
        assert validate(config, no_chip) == [], (image, color, generated.text)


def test_bgr_source_to_rgb_network_swaps():
    op = parse_aipp(generate_aipp(TARGET.inputs, "BGR888_U8").text).config.ops[0]
    assert op.switch("rbuv_swap_switch") and op.value("input_format") == 3


def test_yuv_standard_is_chosen_and_noted():
    narrow = generate_aipp(TARGET.inputs, "YUV420SP_U8")
    assert "matrix_r0c0: 298" in narrow.text and any("BT-601NARROW" in n for n in narrow.notes)
    jpeg = generate_aipp(TARGET.inputs, "YUV420SP_U8", standard="JPEG")
    assert "matrix_r0c0: 256" in jpeg.text and "input_bias_0: 0" in jpeg.text
    with pytest.raises(AippRequestError, match="documented for"):
        generate_aipp(TARGET.inputs, "YUV420SP_U8", standard="BT-2020")


def test_gray_for_one_channel():
    item = replace(IMAGE, dims=(1, 1, 64, 64))
    op = parse_aipp(generate_aipp((item,), "YUV400_U8", mean=[0.5], std=[255]).text).config.ops[0]
    assert op.value("input_format") == 4 and not op.given("mean_chn_1")
    assert math.isclose(op.value("var_reci_chn_0"), 1 / 255, rel_tol=1e-7)


@pytest.mark.parametrize("kwargs, message", [
    (dict(image="RGB888_U8", std=[0, 1, 1]), "infinite"),
    (dict(image="RGB888_U8", mean=[1, 2]), "2 values"),
    (dict(image="RGB888_U8", mean=[300, 1, 1]), "0-255"),
    (dict(image="JPEG_U8"), "no documented conversion starts from"),
    (dict(image="YUV400_U8", color="RGB"), "gives GRAY"),
    (dict(image="RGB888_U8", input_name="mask"), "no model input is named"),
])
def test_generator_refuses_what_cannot_work(kwargs, message):
    image = kwargs.pop("image")
    with pytest.raises(AippRequestError, match=message):
        generate_aipp(TARGET.inputs, image, **kwargs)


def test_generator_needs_one_static_image_input():
    dynamic = replace(IMAGE, dims=(1, 3, -1, -1))
    with pytest.raises(AippRequestError, match="static C, H and W"):
        generate_aipp((dynamic,), "RGB888_U8")
    two = (IMAGE, replace(IMAGE, name="other", index=1))
    with pytest.raises(AippRequestError, match="--aipp-input"):
        generate_aipp(two, "RGB888_U8")
    op = parse_aipp(generate_aipp(two, "RGB888_U8", input_name="other").text).config.ops[0]
    assert op.rank == 1


def test_generator_refuses_a_channel_count_the_conversion_cannot_give():
    nhwc = replace(IMAGE, dims=(1, 48, 48, 3))  # an NHWC export: C is the last dim
    with pytest.raises(AippRequestError, match="NHWC"):
        generate_aipp((nhwc,), "RGB888_U8", mean=[127.5], std=[128])
    with pytest.raises(AippRequestError, match="gives 3"):
        generate_aipp((replace(IMAGE, dims=(1, 4, 8, 8)),), "RGB888_U8")


def test_unit_scale_means_get_a_note():
    generated = generate_aipp(TARGET.inputs, "RGB888_U8", mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    assert any("multiplied by 255" in n for n in generated.notes)
