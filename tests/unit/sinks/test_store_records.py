"""The helpers every store module shares (ragchunk/sinks/_records.py), without a store."""

from __future__ import annotations

import struct
from dataclasses import replace
from pathlib import Path

import pytest

from ragchunk.errors import StoreError, UsageError
from ragchunk.model import Chunk
from ragchunk.sinks._records import (
    filter_terms,
    flat_ledger,
    flat_record,
    ledger_from_flat,
    mask_url,
    metadata_values,
    record_from_flat,
    store_error,
    store_path,
    vector_from_text,
    vector_text,
)
from ragchunk.sinks._store import LedgerEntry, StoreRecord
from ragchunk.sinks._sync import changes, make_record


def _record(**fields: object) -> StoreRecord:
    base: dict[str, object] = {
        "key": "a.md#0", "id": "i0", "doc_id": "a.md", "source": "docs/a.md", "index": 0,
        "text": "text", "start": 0, "end": 4, "strategy": "recursive", "vector": (0.5, 1.0),
    }  # fmt: skip
    base.update(fields)
    return StoreRecord(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("postgresql://me:hunter2@db:5432/x?table=t", "postgresql://me:***@db:5432/x?table=t"),
        ("postgresql://me@db/x", "postgresql://me@db/x"),
        ("chroma:////srv/index/docs", "chroma:////srv/index/docs"),
        ("qdrant://h:6333/c?api_key=k3y&x=1", "qdrant://h:6333/c?api_key=***&x=1"),
    ],
)
def test_mask_url_hides_passwords_and_secret_parameters(url: str, masked: str) -> None:
    assert mask_url(url) == masked


def test_store_error_is_one_line_naming_the_store_without_its_password() -> None:
    error = store_error(
        "postgresql://me:hunter2@db/x", "cannot connect", OSError("refused hunter2\nmore")
    )
    assert isinstance(error, StoreError)
    assert str(error) == "postgresql://me:***@db/x: cannot connect: refused ***"


def test_store_path_reads_urls_as_sqlalchemy_does() -> None:
    assert store_path("chroma:///index/docs") == Path("index/docs")
    assert store_path("chroma:////srv/index/docs") == Path("/srv/index/docs")
    with pytest.raises(UsageError, match="chroma:///PATH"):
        store_path("chroma://host/docs")


def test_a_flat_record_reads_back_unchanged_with_absent_page_keys() -> None:
    metadata = {"z": 1, "lang": "en", "nested": {"b": [1, None]}, "big": 2**70, "ok": True}
    paged = _record(headings=("A", "B"), page_start=3, page_end=4, metadata=metadata)
    plain = _record()
    for record in (paged, plain):
        flat = flat_record(record)
        assert all(isinstance(v, str | int | float | bool) for v in flat.values())
        assert record_from_flat(flat, vector=record.vector) == record
    flat = flat_record(paged, text=False)
    assert "text" not in flat
    assert (flat["page_start"], flat["meta__lang"], flat["meta__z"]) == (3, "en", 1)
    assert "meta__nested" not in flat
    assert "meta__big" not in flat
    assert "page_start" not in flat_record(plain)
    assert "page_end" not in flat_record(plain)
    assert list(record_from_flat(flat, vector=(0.5, 1.0), text="text").metadata) == list(metadata)


def test_a_flat_ledger_entry_reads_back_unchanged() -> None:
    entry = LedgerEntry(
        doc_id="a", source="s", content_hash="c", settings_hash="h", keys=("1", "2")
    )
    assert ledger_from_flat(flat_ledger(entry)) == entry


def test_filter_terms_type_the_values_and_name_metadata_keys() -> None:
    terms = filter_terms({"page_start": "3", "doc_id": "a.md", "metadata.lang": "en", "index": 2})
    assert terms == [("page_start", 3), ("doc_id", "a.md"), ("meta__lang", "en"), ("index", 2)]
    with pytest.raises(UsageError, match="whole number"):
        filter_terms({"page_start": "three"})
    with pytest.raises(UsageError, match="--filter headings"):
        filter_terms({"headings": "A"})


def test_metadata_values_match_what_a_command_line_string_spells() -> None:
    assert metadata_values("2024") == ["2024", 2024]
    assert metadata_values("1.5") == ["1.5", 1.5]
    assert metadata_values("true") == ["true", True]
    assert metadata_values("en") == ["en"]
    assert metadata_values(3) == [3]


def test_the_exact_vector_travels_as_float32_text() -> None:
    vector = (0.1, -2.5, 3.0e-7)
    flat = flat_record(_record(vector=vector), vector=True)
    back = record_from_flat(flat).vector
    assert back == struct.unpack("3f", struct.pack("3f", *vector))  # float32, bit for bit
    assert vector_from_text(vector_text(back)) == back


def test_a_transcripts_times_are_numbers_in_the_flat_record_and_absent_without_times() -> None:
    timed = _record(timestamp_start=21.5, timestamp_end=52.3)
    flat = flat_record(timed)
    assert (flat["timestamp_start"], flat["timestamp_end"]) == (21.5, 52.3)
    assert record_from_flat(flat, vector=timed.vector) == timed
    plain = flat_record(_record())
    assert "timestamp_start" not in plain
    assert "timestamp_end" not in plain
    assert record_from_flat(plain, vector=(0.5, 1.0)).timestamp_start is None


def test_time_filters_are_numbers_of_seconds() -> None:
    terms = filter_terms({"timestamp_start": "21.5", "timestamp_end": 60})
    assert terms == [("timestamp_start", 21.5), ("timestamp_end", 60.0)]
    with pytest.raises(UsageError, match="timestamp_start is a number of seconds"):
        filter_terms({"timestamp_start": "noon"})
    with pytest.raises(UsageError, match="a number of seconds"):
        filter_terms({"timestamp_end": "nan"})


def test_a_chunks_times_reach_its_store_record_and_a_store_without_them_is_no_change() -> None:
    chunk = Chunk(
        id="c0", doc_id="talk.vtt", source="talk.vtt", index=0, text="Welcome", start=0,
        end=7, strategy="markdown", chars=7, timestamp_start=0.5, timestamp_end=4.25,
    )  # fmt: skip
    record = make_record(chunk, "talk.vtt#0", (0.5, 1.0), "m")
    assert (record.timestamp_start, record.timestamp_end) == (0.5, 4.25)
    untimed = replace(record, timestamp_start=None, timestamp_end=None)
    assert changes([record], {record.key: untimed}).upsert == ()  # a store without the columns
    moved = replace(untimed, timestamp_start=1.0, timestamp_end=4.25)
    assert changes([record], {record.key: moved}).upsert == (record,)
