"""``ragchunk.runs.dedupe`` as a library: the Deduper, its options, and the MinHash signatures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragchunk import chunk_text
from ragchunk.errors import OptionError
from ragchunk.pipeline.results import FileResult
from ragchunk.runs.dedupe import DedupeOptions, Deduper, minhash, parse_dedupe
from ragchunk.sinks.jsonl import encode
from tests.conftest import FIXTURES

NOTES = (FIXTURES / "text" / "field-notes.txt").read_text(encoding="utf-8")
WORDS = [
    "tide",
    "gauge",
    "readings",
    "drift",
    "when",
    "the",
    "sensor",
    "fouls",
    "and",
    "the",
    "survey",
    "boat",
    "finds",
    "silt",
    "banks",
    "below",
    "the",
    "ferry",
    "steps",
    "while",
    "volunteers",
    "count",
    "wading",
    "birds",
    "on",
    "the",
    "mudflats",
    "at",
    "low",
    "water",
]


def test_parse_dedupe_values() -> None:
    assert parse_dedupe("exact") == DedupeOptions(method="exact")
    assert parse_dedupe("near") == DedupeOptions(method="near", threshold=0.7)
    assert parse_dedupe("near:0.9", mark=True) == DedupeOptions(threshold=0.9, mark=True)
    assert parse_dedupe("near:1").describe() == "near:1"
    with pytest.raises(OptionError) as caught:
        parse_dedupe("near:1.5")
    assert caught.value.option == "--dedupe"
    with pytest.raises(OptionError):
        DedupeOptions(method="fuzzy")  # type: ignore[arg-type]


def test_exact_compares_text_up_to_whitespace() -> None:
    deduper = Deduper(DedupeOptions(method="exact"))
    texts = ["One  two\nthree.", "one two three.", " One two\r\nthree. ", "One two three."]
    assert deduper.duplicates(["a", "b", "c", "d"], texts) == [None, None, "a", "a"]
    assert deduper.duplicates(["e"], ["one two three."]) == ["b"]
    assert (deduper.checked, deduper.found) == (5, 3)


def test_near_finds_light_edits_and_keeps_the_first_in_order() -> None:
    base = " ".join(WORDS * 2)
    edited = base.replace("silt", "sand", 1)  # one word of 56: Jaccard about 0.9
    other = " ".join(reversed(WORDS * 2))
    deduper = Deduper(DedupeOptions())
    assert deduper.duplicates(["a", "b"], [base, other]) == [None, None]
    assert deduper.duplicates(["c", "d", "e"], [edited, base.upper(), other]) == ["a", "a", "b"]
    strict = Deduper(DedupeOptions(threshold=1.0))
    assert strict.duplicates(["a", "c"], [base, edited]) == [None, None]


def test_near_decides_by_the_exact_jaccard_similarity() -> None:
    deduper = Deduper(DedupeOptions(threshold=0.75))
    base = " ".join(WORDS)  # 30 words: 28 shingles
    shingled = minhash.shingle([base])
    variants = [base.replace(word, "x", 1) for word in WORDS[5:12]]
    found = deduper.duplicates(["base", *map(str, range(len(variants)))], [base, *variants])
    for variant, answer in zip(variants, found[1:], strict=True):
        own = minhash.shingle([variant]).set_of(0)
        similar = minhash.jaccard(own, shingled.set_of(0)) >= 0.75
        assert (answer == "base") is similar


def test_texts_without_words_are_matched_exactly() -> None:
    deduper = Deduper(DedupeOptions())
    assert deduper.duplicates(["a", "b", "c"], ["--- ***", "---  ***", "+++"]) == [None, "a", None]


def test_a_lone_surrogate_separates_words_as_any_other_non_letter() -> None:
    deduper = Deduper(DedupeOptions())
    texts = ["tide gauge \udc80 silt banks", "tide gauge silt\udc80banks"]
    assert deduper.duplicates(["a", "b"], texts) == [None, "a"]


def test_shingles_do_not_depend_on_the_batch() -> None:
    texts = [NOTES[k : k + 600] for k in range(0, 6000, 500)]
    alone = [minhash.shingle([text]).set_of(0) for text in texts]
    together = minhash.shingle(texts)
    assert [together.set_of(k) for k in range(len(texts))] == alone
    assert minhash.shingle(["", "!!", "one", "one two"]).bounds.tolist() == [0, 0, 0, 1, 2]


def test_signature_agreement_estimates_the_jaccard_similarity() -> None:
    import numpy as np

    texts = [" ".join(WORDS[: 20 + k] * 3) for k in range(0, 10, 2)]
    shingled = minhash.shingle(texts)
    rows = minhash.signatures(shingled)
    for k in range(1, len(texts)):
        exact = minhash.jaccard(shingled.set_of(0), shingled.set_of(k))
        estimate = float(np.mean(rows[0] == rows[k]))
        assert abs(estimate - exact) < 0.3, (k, exact, estimate)
    assert minhash.choose_rows(0.7) == 3
    assert minhash.choose_rows(0.9) > minhash.choose_rows(0.5)


def test_apply_on_rendered_and_on_chunk_results_gives_the_same_records() -> None:
    chunks = tuple(chunk_text(NOTES, doc_id="a.txt", size=300, overlap=0))
    copy = tuple(chunk_text(NOTES, doc_id="b.txt", size=300, overlap=0))
    for mark in (False, True):
        options = DedupeOptions(method="near", mark=mark)
        by_objects, by_bytes = Deduper(options), Deduper(options)
        out_objects, out_bytes = [], []
        for doc_id, made in (("a.txt", chunks), ("b.txt", copy)):
            whole = FileResult(doc_id, doc_id, chunks=made, chunk_count=len(made))
            rendered = FileResult(doc_id, doc_id, rendered=(encode(made),), chunk_count=len(made))
            out_objects.append(by_objects.apply(whole))
            out_bytes.append(by_bytes.apply(rendered))
        for whole, rendered in zip(out_objects, out_bytes, strict=True):
            assert b"".join(rendered.rendered or ()) == encode(whole.chunks)
            assert rendered.chunk_count == whole.chunk_count == len(whole.chunks)
            assert rendered.duplicates == whole.duplicates
        assert out_objects[1].duplicates == len(copy)
        assert out_objects[1].chunk_count == (len(copy) if mark else 0)
        if mark:
            first = json.loads(b"".join(out_bytes[1].rendered or ()).splitlines()[0])
            assert first["metadata"]["duplicate_of"] == chunks[0].id


def test_failed_and_unchanged_results_pass_through() -> None:
    deduper = Deduper(DedupeOptions())
    failed = FileResult("x", "x", error="x: broken")
    unchanged = FileResult("y", "y", unchanged=True)
    assert deduper.apply(failed) is failed
    assert deduper.apply(unchanged) is unchanged


def _loaded_after(
    tmp_path: Path, *flags: str, env: dict[str, str] | None = None
) -> tuple[set[str], str]:
    """Return the modules of interest loaded by a split with ``flags``, and OpenBLAS's threads."""
    probe = (
        "import os, sys\n"
        "from ragchunk.cli import main\n"
        f"sys.argv = ['ragchunk', 'split', {str(FIXTURES / 'text' / 'field-notes.txt')!r}, "
        f"'-o', {str(tmp_path / 'o.jsonl')!r}, *{list(flags)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "names = ('numpy', 'numpy.ma', 'numpy.random', 'datasketch', 'ragchunk.runs.dedupe',\n"
        "         'ragchunk.runs.dedupe.minhash', 'ragchunk.runs.dedupe.near')\n"
        "print(','.join(m for m in names if m in sys.modules))\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS', '-'))\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        check=True,
        timeout=60,
        env={**environ, **(env or {})},
    )
    modules, threads = result.stdout.decode().splitlines()[-2:]
    return set(filter(None, modules.split(","))), threads


def test_only_near_imports_numpy(tmp_path: Path) -> None:
    assert _loaded_after(tmp_path) == (set(), "-")
    assert _loaded_after(tmp_path, "--dedupe", "exact") == ({"ragchunk.runs.dedupe"}, "-")
    # Not numpy.ma (np.unique loads it) nor numpy.random; OpenBLAS with one thread (no BLAS
    # is used, and starting a thread per core costs a third of numpy's import).
    modules = {
        "numpy",
        "ragchunk.runs.dedupe",
        "ragchunk.runs.dedupe.minhash",
        "ragchunk.runs.dedupe.near",
    }
    assert _loaded_after(tmp_path, "--dedupe", "near") == (modules, "1")
    chosen = {"OPENBLAS_NUM_THREADS": "3"}
    assert _loaded_after(tmp_path, "--dedupe", "near", env=chosen) == (modules, "3")


def test_dedupe_chunks_over_the_chunks_of_several_documents() -> None:
    import ragchunk

    chunks = [
        *chunk_text(NOTES, doc_id="a.txt", size=300),
        *chunk_text(
            NOTES.replace("typed letters", "typewritten letters"), doc_id="b.txt", size=300
        ),
    ]
    unique = ragchunk.dedupe_chunks(chunks)
    assert unique == [c for c in chunks if c.doc_id == "a.txt"]
    exact = ragchunk.dedupe_chunks(chunks, ragchunk.DedupeOptions(method="exact"))
    assert [c.doc_id for c in exact].count("b.txt") in (1, 2)  # the edited chunk(s) only
    marked = ragchunk.dedupe_chunks(chunks, ragchunk.DedupeOptions(mark=True))
    assert [c.id for c in marked] == [c.id for c in chunks]
