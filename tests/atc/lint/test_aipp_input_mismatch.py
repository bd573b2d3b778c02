"""aipp-input-mismatch: the model input each aipp_op feeds."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, image_model, lint_in, named


def test_rank_beyond_the_inputs(tmp_path):
    text = GOOD_AIPP.replace("aipp_mode: static", "aipp_mode: static\n  related_input_rank: 1")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-input-mismatch")
    assert f.atc_error == "E10052" and "0: image" in f.message


def test_a_second_input_counts_from_zero_without_initializers(tmp_path):
    model = image_model((("image", [1, 3, 224, 224]), ("mask", [1, 1, 224, 224])))
    text = GOOD_AIPP.replace("aipp_mode: static", "aipp_mode: static\n  related_input_rank: 1")
    command = BASE.replace("image:1,3,224,224", "image:1,3,224,224;mask:1,1,224,224") + " --insert_op_conf=aipp.cfg"
    (f,) = named(lint_in(tmp_path, command, {"aipp.cfg": text}, model=model), "aipp-input-mismatch")
    # RGB888_U8 without CSC is the RGB conversion: 3 channels for a 1-channel input
    assert f.data["check"] == "model-channels-format" and f.severity.value == "warning"
    assert "RGB888_U8->" in f.message and "gives 3" in f.message


def test_the_right_input_passes(tmp_path):
    assert named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": GOOD_AIPP}),
                 "aipp-input-mismatch") == []


def test_the_input_shape_given_counts(tmp_path):
    command = BASE.replace("image:1,3,224,224", "image:1,3,224") + " --insert_op_conf=aipp.cfg"
    found = named(lint_in(tmp_path, command, {"aipp.cfg": GOOD_AIPP}), "aipp-input-mismatch")
    # a rank-3 --input_shape is an input-rank finding of its own; AIPP then sees the model's 4-D input
    assert found == []
