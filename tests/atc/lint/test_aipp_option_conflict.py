"""aipp-option-conflict: AIPP with --dynamic_dims, --input_fp16_nodes, shape ranges, --dynamic_image_size."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_dynamic_dims(tmp_path):
    command = (BASE.replace("image:1,3,224,224", "image:-1,3,224,224") + ' --dynamic_dims="1;2"'
               " --insert_op_conf=aipp.cfg")
    found = named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-option-conflict")
    assert [f.atc_error for f in found] == ["E10001"]


def test_fp16_input_fed_by_aipp_is_on_the_fp16_flag(tmp_path):
    command = BASE + " --insert_op_conf=aipp.cfg --input_fp16_nodes=image"
    (f,) = named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-option-conflict")
    assert f.atc_error == "E10034" and f.location.node == "--input_fp16_nodes"


def test_shape_range_on_the_only_input(tmp_path):
    command = BASE.replace("image:1,3,224,224", "image:1~4,3,224,224") + " --insert_op_conf=aipp.cfg"
    (f,) = named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-option-conflict")
    assert f.data["check"] == "shape-range-single-input" and f.location.node == "--input_shape"


def test_batch_gears_are_fine(tmp_path):
    command = (BASE.replace("image:1,3,224,224", "image:-1,3,224,224") + ' --dynamic_batch_size="1,2,4"'
               " --insert_op_conf=aipp.cfg")
    assert named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-option-conflict") == []


def test_crop_with_dynamic_image_size(tmp_path):
    command = (BASE.replace("image:1,3,224,224", "image:1,3,-1,-1") + ' --dynamic_image_size="224,224;448,448"'
               " --insert_op_conf=aipp.cfg")
    (f,) = named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-option-conflict")
    assert f.atc_error == "E10052" and "src_image_size" in f.message
