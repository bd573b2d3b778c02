"""aipp-format-not-on-chip: the chip's AIPP image formats, resize and padded width."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_yuv422sp_is_not_on_ascend310p(tmp_path):
    text = GOOD_AIPP.replace("RGB888_U8", "YUV422SP_U8")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-format-not-on-chip")
    assert f.atc_error == "E81012" and "YUV420SP_U8" in f.message


def test_rgb_is_on_every_chip(tmp_path):
    for soc in ("Ascend310P3", "Ascend910B4", "Ascend310B4", "Ascend310"):
        command = BASE.replace("Ascend310P3", soc) + " --insert_op_conf=aipp.cfg"
        assert named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-format-not-on-chip") == []


def test_resize_is_on_no_ascend_chip(tmp_path):
    text = GOOD_AIPP.replace("  mean_chn_0", "  resize: true\n  mean_chn_0")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-format-not-on-chip")
    assert "resize" in f.message


def test_without_a_chip_nothing_is_said(tmp_path):
    command = BASE.replace(" --soc_version=Ascend310P3", "") + " --insert_op_conf=aipp.cfg"
    text = GOOD_AIPP.replace("RGB888_U8", "YUV422SP_U8")
    assert named(lint_in(tmp_path, command, {"aipp.cfg": text}), "aipp-format-not-on-chip") == []
