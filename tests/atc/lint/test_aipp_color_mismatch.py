"""aipp-color-mismatch: CSC and swaps against the documented conversions."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named

YUV_TO_RGB = ("  csc_switch: true\n  matrix_r0c0: 298\n  matrix_r0c1: 0\n  matrix_r0c2: 409\n  matrix_r1c0: 298\n"
              "  matrix_r1c1: -100\n  matrix_r1c2: -208\n  matrix_r2c0: 298\n  matrix_r2c1: 516\n  matrix_r2c2: 0\n"
              "  input_bias_0: 16\n  input_bias_1: 128\n  input_bias_2: 128\n")


def yuv(extra: str) -> str:
    return GOOD_AIPP.replace("RGB888_U8", "YUV420SP_U8").replace("  mean_chn_0", extra + "  mean_chn_0")


def test_the_documented_yuv_to_rgb_passes(tmp_path):
    assert named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": yuv(YUV_TO_RGB)}),
                 "aipp-color-mismatch") == []


def test_a_changed_matrix_is_a_warning_naming_the_nearest(tmp_path):
    text = yuv(YUV_TO_RGB.replace("matrix_r2c1: 516", "matrix_r2c1: 500"))
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-color-mismatch")
    assert f.severity.value == "warning" and "YUV420SP_U8->RGB" in f.message


def test_csc_on_a_gray_image_is_an_error(tmp_path):
    model_text = GOOD_AIPP.replace("RGB888_U8", "YUV400_U8").replace("  mean_chn_0", "  csc_switch: true\n  mean_chn_0")
    from command_files_kit import image_model

    command = BASE.replace("image:1,3,224,224", "image:1,1,224,224") + " --insert_op_conf=aipp.cfg"
    (f,) = named(lint_in(tmp_path, command, {"aipp.cfg": model_text}, model=image_model((("image", [1, 1, 224, 224]),))),
                 "aipp-color-mismatch")
    assert f.severity.value == "error" and f.atc_error == "E81012"
