"""aipp-size-mismatch: crop, padding and source size against the model input's H and W."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_source_size_differs_from_the_input(tmp_path):
    text = GOOD_AIPP.replace("src_image_size_w: 224", "src_image_size_w: 256")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-size-mismatch")
    assert f.atc_error is None and f.severity.value == "error" and "224x256" in f.message


def test_crop_from_a_larger_source_fits(tmp_path):
    text = GOOD_AIPP.replace("src_image_size_w: 224", "src_image_size_w: 256").replace(
        "mean_chn_0", "crop: true\n  load_start_pos_w: 16\n  crop_size_w: 224\n  crop_size_h: 224\n  mean_chn_0")
    assert named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-size-mismatch") == []
    past = text.replace("load_start_pos_w: 16", "load_start_pos_w: 40")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": past}), "aipp-size-mismatch")
    assert f.atc_error == "E81012" and "264" in f.message


def test_gear_sizes_are_not_judged(tmp_path):
    command = (BASE.replace("image:1,3,224,224", "image:1,3,-1,-1") +
               ' --dynamic_image_size="224,224;448,448" --insert_op_conf=aipp.cfg')
    text = GOOD_AIPP.replace("  src_image_size_w: 224\n  src_image_size_h: 224\n", "")
    assert named(lint_in(tmp_path, command, {"aipp.cfg": text}), "aipp-size-mismatch") == []
