"""WebVTT and SubRip: cues as sections, timestamps and speakers on every chunk, no cue cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.srt import parse as parse_srt
from ragchunk.parsers.vtt import parse as parse_vtt
from tests.conftest import FIXTURES

runner = CliRunner()
TALK = FIXTURES / "transcripts" / "talk.vtt"
FILM = FIXTURES / "transcripts" / "harbour-film.srt"


def split(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", *args, "--check"])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def test_vtt_cues_are_the_text_without_timing_ids_settings_notes_or_tags() -> None:
    doc = parse_vtt(TALK.read_bytes(), ParseRequest(source=str(TALK)))
    assert doc.format == "vtt"
    assert len(doc.cues) == 14
    assert [s.kind for s in doc.sections] == ["cue"] * 14
    assert doc.text.startswith("Good evening, and thank you for coming out on such a wet night.")
    for leftover in ("-->", "<v", "</c>", "<i>", "NOTE", "STYLE", "intro", "slide-2", "align:"):
        assert leftover not in doc.text
    assert "gaps & repairs" in doc.text
    assert "six minutes, day and night, and sends" in doc.text
    for cue, section in zip(doc.cues, doc.sections, strict=True):
        assert (cue.start, cue.end) == (section.start, section.end)
    first, both, late = doc.cues[0], doc.cues[9], doc.cues[12]
    assert (first.time_start, first.time_end, first.speakers) == (0.0, 4.2, ("Dr. Ines Marlow",))
    assert doc.text[both.start : both.end] == "So it is real?\nIt is real."
    assert both.speakers == ("Tom Ashby", "Dr. Ines Marlow")
    assert (late.time_start, late.time_end) == (3600.0, 3606.25)  # hh:mm:ss.ttt
    assert doc.metadata == {"title": "The Rising Wend: ten years of tide gauges"}


def test_srt_cues_crlf_tags_and_overrides() -> None:
    doc = parse_srt(FILM.read_bytes(), ParseRequest(source=str(FILM)))
    assert doc.format == "srt"
    assert [(c.time_start, c.time_end) for c in doc.cues][:2] == [(1.0, 4.5), (5.0, 8.2)]
    texts = [doc.text[c.start : c.end] for c in doc.cues]
    assert texts[0] == "The Wend, early morning."
    assert texts[1] == "The boats go out before the tide turns,\nwhile the water is still slack."
    assert texts[2] == "Harbourmaster: Forty years I've watched this channel."
    assert "\r" not in doc.text
    assert "-->" not in doc.text
    assert doc.sections[0].metadata["cue"] == "1"


def _covering(doc_cues: list[tuple[int, int, float, float]], start: int, end: int) -> list[Any]:
    return [cue for cue in doc_cues if cue[0] < end and cue[1] > start]


@pytest.mark.parametrize(
    ("strategy", "size"),
    [
        ("recursive", None),
        ("recursive", "300"),
        ("hierarchical", "300"),
        ("markdown", "300"),
        ("auto", "300"),
        ("paragraph", "300"),
    ],
)
@pytest.mark.parametrize("path", [TALK, FILM], ids=["vtt", "srt"])
def test_every_chunk_has_the_times_of_its_cues_and_no_cue_is_cut(
    path: Path, strategy: str, size: str | None
) -> None:
    parse = parse_vtt if path.suffix == ".vtt" else parse_srt
    doc = parse(path.read_bytes(), ParseRequest(source=str(path), doc_id=str(path)))
    cues = [(c.start, c.end, c.time_start, c.time_end) for c in doc.cues]
    limit = int(size or 512)
    records = split(str(path), "-s", strategy, *(["--size", size] if size else []))
    assert records
    for record in records:
        touched = _covering(cues, record["start"], record["end"])
        assert record["timestamp_start"] == min(c[2] for c in touched)
        assert record["timestamp_end"] == max(c[3] for c in touched)
        # A chunk ends at a cue's end (or the blank line after it), unless that cue alone is
        # larger than the size.
        last = touched[-1]
        if last[1] - last[0] <= limit:
            assert record["end"] >= last[1], (strategy, record["text"][-60:])
        # Nor does it start inside one (recursive's overlap never reaches back across the
        # blank line between cues).
        first = touched[0]
        if first[1] - first[0] <= limit:
            assert record["start"] <= first[0], (strategy, record["text"][:60])


def test_speakers_are_chunk_metadata() -> None:
    records = split(str(TALK), "-s", "hierarchical", "--size", "300")
    both = next(r for r in records if "So it is real?" in r["text"])
    assert set(both["metadata"]["speakers"]) == {"Tom Ashby", "Dr. Ines Marlow"}
    film = split(str(FILM))
    assert all("speakers" not in r["metadata"] for r in film)


def test_webvtt_is_sniffed_without_an_extension() -> None:
    assert detect("talk", b"WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n") == "vtt"
    assert detect("talk", b"\xef\xbb\xbfWEBVTT - a title\n") == "vtt"
    assert detect("talk", b"WEBVTTX\n") == "text"


def test_other_formats_have_no_timestamps() -> None:
    records = split(str(FIXTURES / "text" / "field-notes.txt"))
    assert all("timestamp_start" not in r for r in records)


def test_bad_transcripts_fail_alone_with_one_line(tmp_path: Path) -> None:
    bad_vtt = tmp_path / "a.vtt"
    bad_vtt.write_text("00:01.000 --> 00:02.000\nno signature\n", encoding="utf-8")
    bad_srt = tmp_path / "b.srt"
    bad_srt.write_text("just some words\nwith no timing\n", encoding="utf-8")
    good = tmp_path / "c.vtt"
    good.write_text("WEBVTT\n\n00:01.000 --> 00:02.500\n<v Ana>Hello there.\n", encoding="utf-8")
    result = runner.invoke(app, ["split", str(tmp_path)])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert any(f"{bad_vtt}: not a WebVTT file" in line for line in errors), result.stderr
    assert any(f"{bad_srt}: not a SubRip file" in line for line in errors), result.stderr
    assert "Traceback" not in result.stderr
    (record,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert record["text"] == "Hello there."
    assert (record["timestamp_start"], record["timestamp_end"]) == (1.0, 2.5)
    assert record["metadata"]["speakers"] == ["Ana"]
    with pytest.raises(CorruptDocumentError, match="not a WebVTT file"):
        parse_vtt(b"", ParseRequest(source="empty.vtt"))


def test_a_block_without_timing_is_left_out_with_a_warning() -> None:
    warnings: list[str] = []
    data = b"WEBVTT\n\n1\nnot a timing line\nlost\n\n00:03.000 --> 00:04.000\nkept\n"
    doc = parse_vtt(data, ParseRequest(source="t.vtt", warn=lambda _code, m: warnings.append(m)))
    assert doc.text == "kept"
    assert warnings == ["t.vtt: line 4: no cue timing line, block left out"]


def test_view_shows_the_timestamps(tmp_path: Path) -> None:
    target = tmp_path / "talk.html"
    result = runner.invoke(app, ["view", str(TALK), "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    page = target.read_text(encoding="utf-8")
    assert '"timestamp_start":0.0' in page
    assert "record.timestamp_start" in page  # the script turns them into a time range
    assert "function clock(seconds)" in page


def test_a_cue_ending_before_it_starts_ends_where_it_starts() -> None:
    warnings: list[str] = []
    data = b"1\n00:01:01,000 --> 00:00:04,500\nBackwards.\n"
    doc = parse_srt(data, ParseRequest(source="b.srt", warn=lambda _code, m: warnings.append(m)))
    ((start, end),) = [(c.time_start, c.time_end) for c in doc.cues]
    assert start == end == 61.0
    assert warnings == [
        "b.srt: a cue at 61.0 s ends before it starts (4.5 s); its end is taken as its start"
    ]


def test_the_table_shows_times_where_others_show_pages_or_lines() -> None:
    result = runner.invoke(app, ["split", str(TALK), "--table"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.stderr
    assert "time" in result.stdout
    assert "0:00.000–0:21.000" in result.stdout
    assert "1:00:09.000" in result.stdout  # past the hour: hours shown
