"""late: token windows with vectors pooled from one pass of the real model over the document."""

from __future__ import annotations

import itertools
import math
from array import array
from collections.abc import Sequence

import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends.local import LocalEmbedder
from ragchunk.backends.windows import layout
from ragchunk.errors import TokenMappingError, UsageError
from ragchunk.measure import load_tokenizer
from ragchunk.model import Document
from ragchunk.options import Capacity
from ragchunk.pipeline.chunks import assemble
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.strategies import late
from ragchunk.strategies._spec import Context
from ragchunk.text.breakpoints import cosine
from tests.invariants import assert_invariants

PROSE = (
    "The harbour master checks the tide gauge every morning. Its float rides in a stilling "
    "well that damps the waves. Readings go to the national archive each hour. "
)


def model() -> LocalEmbedder:
    backend = load_backend(EmbedderSpec())
    assert isinstance(backend, LocalEmbedder)
    return backend


def unit_norm(vector: Sequence[float]) -> float:
    return math.sqrt(sum(v * v for v in vector))


@pytest.mark.parametrize(
    ("count", "length", "overlap"),
    [
        (0, 254, 32),
        (10, 254, 32),
        (254, 254, 32),
        (255, 254, 32),
        (1000, 254, 32),
        (1000, 254, 0),
        (4771, 254, 32),
        (601, 100, 30),
        (700, 100, 99),
    ],
)
def test_model_windows_give_every_token_exactly_one_vector(
    count: int, length: int, overlap: int
) -> None:
    windows = layout(count, length, overlap)
    kept = [i for w in windows for i in range(w.keep_start, w.keep_end)]
    assert kept == list(range(count))
    for w in windows:
        assert w.start <= w.keep_start <= w.keep_end <= w.end
        assert w.end - w.start == min(length, count)  # all of one length: no padding
    for a, b in itertools.pairwise(windows):
        assert a.end - b.start >= overlap  # consecutive windows share at least `overlap` tokens
        assert b.keep_start - b.start >= (a.end - b.start) // 2  # kept away from the edge
    if count > length:  # the fewest windows that keep the overlap
        assert len(windows) == math.ceil((count - overlap) / (length - overlap))


@pytest.mark.slow
def test_the_window_is_the_models_real_maximum() -> None:
    assert model().max_tokens == 256  # all-MiniLM-L6-v2's max_seq_length, not its 512 positions


@pytest.mark.slow
def test_a_chunk_embedding_is_the_mean_of_its_tokens_in_one_pass() -> None:
    import numpy as np

    text = PROSE
    chunks = assert_invariants(
        Document(text=text), make_plan(shortcuts({"strategy": "late", "size": 12, "overlap": 0}))
    )
    assert len(chunks) >= 3
    backend = model()
    encoded = backend._model.tokenizer(text, return_offsets_mapping=True)
    tokens = backend._model.encode(text, output_value="token_embeddings").cpu().numpy()
    offsets = encoded["offset_mapping"]
    for chunk in chunks:
        inside = [i for i, (s, e) in enumerate(offsets) if e > s and chunk.start <= s < chunk.end]
        mean = tokens[inside].mean(axis=0)
        expected = mean / np.linalg.norm(mean)
        assert chunk.embedding is not None
        assert cosine(chunk.embedding, expected.tolist()) > 0.9999
        assert unit_norm(chunk.embedding) == pytest.approx(1.0, abs=1e-5)
        assert chunk.metadata["embedding_model"] == "all-MiniLM-L6-v2"
        assert chunk.metadata["embedding_dimensions"] == 384


@pytest.mark.slow
def test_a_long_document_is_stitched_from_overlapping_windows() -> None:
    text = PROSE * 40  # about 1,300 model tokens: six windows
    offsets = model().token_offsets(text)
    assert len(offsets) > 1000
    chunks = assert_invariants(
        Document(text=text), make_plan(shortcuts({"strategy": "late", "size": 64, "overlap": 8}))
    )
    starts = {s for s, _ in offsets}
    assert all(c.start in starts for c in chunks)  # windows start on a model token
    assert all(c.tokens is not None and c.tokens <= 64 for c in chunks)
    # The same sentences far apart get nearly the same vector: context, not position, shapes it.
    first, later = chunks[1].embedding, chunks[-2].embedding
    assert first is not None
    assert later is not None
    assert cosine(first, later) > 0.8


@pytest.mark.slow
def test_cjk_marks_and_control_characters_keep_their_embeddings() -> None:
    text = "東京の港で潮位を測る。 cafe\u0301 au lait, x\u0001y and naïve tides.\n\n" * 5
    doc = Document(text=text)
    diagnostics: list[object] = []
    from ragchunk.pipeline.engine import chunk_document

    chunks = chunk_document(
        doc, make_plan(shortcuts({"strategy": "late", "size": 30})).recipe, diagnostics
    )  # type: ignore[arg-type]
    assert not diagnostics
    assert all(c.embedding is not None for c in chunks)
    assert_invariants(doc, make_plan(shortcuts({"strategy": "late", "size": 30})))


@pytest.mark.slow
def test_a_chunk_of_only_dropped_characters_has_no_embedding_and_a_warning() -> None:
    from ragchunk.pipeline.engine import chunk_document

    text = "Tide readings. " + "\u0001" * 40 + " More readings follow."
    doc = Document(text=text, source="ctrl.txt")
    diagnostics: list[object] = []
    chunks = chunk_document(
        doc,
        make_plan(
            shortcuts({"strategy": "late", "size": 10, "overlap": 0, "unit": "chars"})
        ).recipe,
        diagnostics,  # type: ignore[arg-type]
    )
    bare = [c for c in chunks if c.embedding is None]
    assert bare
    assert all(set(c.text) <= {"\u0001"} for c in bare)
    assert [d.code for d in diagnostics] == ["late-no-tokens"]  # type: ignore[attr-defined]
    assert_invariants(
        doc, make_plan(shortcuts({"strategy": "late", "size": 10, "overlap": 0, "unit": "chars"}))
    )


class _NoOffsets:
    """An embedder whose tokenizer cannot map its tokens back (a protocol fake)."""

    identity = "fake"
    model = "fake"
    has_tokens = True

    def embed(self, _texts: Sequence[str]) -> list[array[float]]:
        raise AssertionError("not used")

    def token_offsets(self, _text: str) -> list[tuple[int, int]]:
        raise TokenMappingError("the tokenizer of fake reports offsets out of order")

    def pool(self, _text: str, _spans: Sequence[tuple[int, int]]) -> list[array[float] | None]:
        raise AssertionError("not used")


def test_text_the_tokenizer_cannot_map_is_chunked_the_same_way_without_embeddings() -> None:
    text = PROSE * 3
    warnings: list[tuple[str, str]] = []
    tokens = load_tokenizer("cl100k_base")
    sizer = tokens.prepare(text)
    ctx = Context(
        measure=tokens,
        sizer=sizer,
        capacity=Capacity(size=20, overlap=19, unit="tokens"),
        tokens=lambda: sizer,
        find_sections=lambda _text: (),
        warn=lambda code, message: warnings.append((code, message)),
        embedder=_NoOffsets,  # type: ignore[arg-type]
    )
    doc = Document(text=text, source="doc.txt")
    spans = late.split(doc, late.LateOptions(), ctx)
    assert warnings == [
        (
            "late-no-offsets",
            "doc.txt: late chunking without embeddings: the tokenizer of fake reports "
            "offsets out of order",
        )
    ]
    assert all(span.embedding is None for span in spans)
    chunks = assemble(doc, spans, strategy="late", fingerprint="x", tokens=sizer)
    assert "".join(text[s.start : s.end] for s in spans[:1]) == chunks[0].text
    assert all(c.tokens is not None and c.tokens <= 20 for c in chunks)
    covered = sorted({i for s in spans for i in range(s.start, s.end)})
    assert all(text[i].isspace() for i in set(range(len(text))) - set(covered))
    starts = {sizer.offset(i) for i in range(sizer.total)}
    assert all(span.start in starts for span in spans)  # cut between the tokenizer's tokens


def test_late_needs_a_local_model() -> None:
    remote = {"embedder": "openai", "embed_url": "http://127.0.0.1:9/v1", "embed_model": "m"}
    with pytest.raises(UsageError, match="late needs token vectors, which only --embedder local"):
        make_plan(shortcuts({"strategy": "late", **remote}))


@pytest.mark.slow
def test_embed_keeps_the_late_vectors() -> None:
    from ragchunk.pipeline.engine import chunk_document

    doc = Document(text=PROSE * 2)
    late_only = chunk_document(doc, make_plan(shortcuts({"strategy": "late", "size": 20})).recipe)
    embedded = chunk_document(
        doc, make_plan(shortcuts({"strategy": "late", "size": 20, "embed": True})).recipe
    )
    assert [c.embedding for c in embedded] == [c.embedding for c in late_only]
    assert all(c.embedding is not None for c in embedded)
