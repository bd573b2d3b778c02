from __future__ import annotations

from atccheck.baseline import BaselineEntry, BaselineOutcome, Fingerprint
from atccheck.batch import UncheckedModel
from atccheck.emit import render
from atccheck.emit.markdown import escape


def table_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| Model"):
            cells = [c.strip() for c in line.strip("|").replace("\\|", "\x00").split("|")]
            rows.append([c.replace("\x00", "|") for c in cells])
    return rows


def test_summary_table_and_sections(make_report, make_finding):
    reports = [
        make_report("models/a.onnx", [make_finding(), make_finding(node="g2")]),
        make_report("models/b.onnx", []),
    ]
    text = render("markdown", reports, unchecked=[UncheckedModel("models/c.onnx", "no such file")])
    assert text.startswith("## atccheck: 1 of 2 checks fails (--fail-on error), 1 model could not be checked")
    rows = table_rows(text)
    assert [r[0] for r in rows] == ["`models/a.onnx`", "`models/b.onnx`", "`models/c.onnx`"]
    assert rows[0][2:6] == ["2", "0", "0", "**fails**"] and rows[1][5] == "passes"
    assert rows[2][5] == "**could not be checked**: no such file"
    assert text.count("<details>") == 1
    assert "<summary><code>models/a.onnx</code> on Ascend310P3, CANN 8.0, force_fp16: 2 errors" in text
    assert "nodes: `gelu_1`, `g2`" in text and "hint: decompose it" in text


def test_headline_names_a_single_check_and_an_all_clear(make_report, make_finding):
    one = render("markdown", [make_report("models/b.onnx", [])])
    assert one.startswith("## atccheck: `models/b.onnx` passes on Ascend310P3 (--fail-on error)")
    two = render("markdown", [make_report("models/b.onnx", []), make_report("models/d.onnx", [])])
    assert two.startswith("## atccheck: all 2 checks pass (--fail-on error)")
    failing = render("markdown", [make_report("models/a.onnx", [make_finding()]), make_report("models/e.onnx", [make_finding()])])
    assert failing.startswith("## atccheck: 2 of 2 checks fail")


def test_markdown_and_html_in_messages_are_neutralised(make_report, make_finding):
    odd = make_finding(message="a|b <script> *x* [l](u)", node="n|1")
    text = render("markdown", [make_report("m|x.onnx", [odd])])
    assert "<script>" not in text
    assert escape("a|b <s>") == "a\\|b \\<s\\>"
    rows = table_rows(text)
    assert rows[0][0] == "`m|x.onnx`" and len(rows[0]) == 6
    assert "`n\\|1`" in text


def test_rule_links_when_docs_are_published(make_report, make_finding):
    text = render("markdown", [make_report("m.onnx", [make_finding()])], rule_docs_url="https://example.org/rules/")
    assert "[unsupported-op](https://example.org/rules/unsupported-op.md)" in text


def test_stays_under_the_comment_limit(make_report, make_finding):
    reports = [make_report(f"models/m{i}.onnx", [make_finding(message="x" * 900)]) for i in range(40)]
    text = render("markdown", reports, max_chars=10_000)
    assert len(text) < 10_000
    assert len(table_rows(text)) == 40
    shown = text.count("<details>")
    assert 0 < shown < 40 and f"{40 - shown} more sections with findings left out" in text


def test_baseline_counts(make_report):
    gone = BaselineEntry(Fingerprint("m.onnx", "Ascend310P3", "unsupported-op", "main", "n", "Gelu"), 1)
    outcome = BaselineOutcome(reports=(), new=2, unchanged=5, gone=(gone,))
    text = render("markdown", [make_report("m.onnx", [])], baseline=outcome)
    assert "Baseline: 2 new findings; 5 recorded in the baseline and not shown; 1 baseline entry no longer occurs." in text


def test_each_section_ends_with_the_atc_command(make_report, make_finding):
    from atccheck.atc.command import AtcCommand

    command = AtcCommand(("atc", "--framework=5", "--model=models/b.onnx", "--input_shape=x:1,3"))
    clean = make_report("models/b.onnx", [])
    clean.atc_command = command
    failing = make_report("models/a.onnx", [make_finding()])
    failing.atc_command = command
    text = render("markdown", [failing, clean])
    assert text.count("<details>") == 2  # a clean model's section holds its command
    assert text.count(f"```sh\n{command.line}\n```") == 2
