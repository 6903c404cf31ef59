"""One evaluation: chunk every document per setup, retrieve per question, score the spans.

For each setup every document is chunked by the engine (``engine.chunk_document``), the chunks
of all documents are pooled and embedded as ``split --embed`` embeds them (a chunk's context
when it has one, else its text; the vector cache is shared with ``split``), each question is
embedded, and its top ``k`` chunks by exact cosine similarity are scored against its evidence
(``metrics.score``), in characters and in tokens of ``cl100k_base``. Ties in similarity go to
the chunk that comes first (documents in walk order, chunks in document order), so a run is
deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import InputError, RagchunkError, UsageError
from ragchunk.evaluation.metrics import Piece, Scores, mean, score
from ragchunk.measure import load_tokenizer
from ragchunk.pipeline.engine import chunk_document

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.backends import Embedder, Vector
    from ragchunk.evaluation.corpus import Corpus
    from ragchunk.evaluation.questions import Question
    from ragchunk.evaluation.setups import Setup
    from ragchunk.measure import Sizer
    from ragchunk.model import Chunk, Document

TOKENIZER: Final = "cl100k_base"
"""The encoding token-level scores and sizes count in."""


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One retrieved chunk: its document, span and cosine similarity to the question."""

    document: str
    start: int
    end: int
    similarity: float


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """The scores of one question under one setup, and what was retrieved for it."""

    id: str
    document: str
    chars: Scores
    tokens: Scores
    retrieved: tuple[Retrieved, ...]


@dataclass(frozen=True, slots=True)
class DocumentResult:
    """One document under one setup: its chunks and the mean scores of its questions."""

    name: str
    chunks: int
    mean_chars: float
    questions: int
    chars: Scores
    tokens: Scores


@dataclass(frozen=True, slots=True)
class SetupResult:
    """One setup's results: sizes, mean scores (characters and tokens), per document too."""

    name: str
    strategy: str
    settings: dict[str, Any]
    chunks: int
    mean_chars: float
    mean_tokens: float
    chars: Scores
    tokens: Scores
    documents: tuple[DocumentResult, ...]
    questions: tuple[QuestionResult, ...]


@dataclass(frozen=True, slots=True)
class Report:
    """A whole evaluation: the setups' results in the order they were given."""

    top_k: int
    embedder: str
    documents: int
    questions: int
    setups: tuple[SetupResult, ...]


class _Tokens:
    """Character spans of one document's text as spans of its token indexes (cl100k_base)."""

    def __init__(self, text: str) -> None:
        self._sizer: Sizer = load_tokenizer(TOKENIZER).prepare(text)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Return the token indexes of the tokens that hold some of ``[start, end)``."""
        return self._sizer.index(start), self._sizer.index(end - 1) + 1

    def size(self, start: int, end: int) -> int:
        """Return the token count of ``text[start:end]`` encoded alone."""
        return self._sizer.size(start, end)


def evaluate(
    corpus: Corpus,
    questions: Sequence[Question],
    setups: Sequence[Setup],
    *,
    embedder: Embedder,
    top_k: int = 5,
    open_embedder: Callable[[Setup], Embedder | None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Score every setup on the questions (resolved: their spans filled in).

    Args:
        corpus: the parsed documents.
        questions: the questions, with ``spans`` resolved against the corpus.
        setups: the configurations, in report order.
        embedder: embeds chunks and questions for retrieval.
        top_k: chunks retrieved per question.
        open_embedder: the embedder a setup's strategy or passes need (semantic, late,
            ``--refine``), or None; called only for setups that need one.
        progress: told the name of each setup as its work begins.

    Raises:
        BackendError: the embedder failed.
        RagchunkError: a setup cannot chunk a document.
    """
    tokens = {name: _Tokens(doc.text) for name, doc in corpus.documents}
    question_vectors = _matrix(embedder.embed([q.question for q in questions]))
    results = []
    for setup in setups:
        if progress is not None:
            progress(setup.name)
        needs = setup.plan.recipe.needs_embedder and open_embedder is not None
        models = open_embedder(setup) if needs else None  # type: ignore[misc]
        chunks = [
            chunk for name, doc in corpus.documents for chunk in _chunk(name, doc, setup, models)
        ]
        texts = [c.context if c.context is not None else c.text for c in chunks]
        chunk_vectors = _matrix(embedder.embed(texts)) if chunks else None
        results.append(
            _score_setup(
                setup, corpus, questions, chunks, question_vectors, chunk_vectors, tokens, top_k
            )
        )
    return Report(top_k, embedder.model, len(corpus.documents), len(questions), tuple(results))


def _chunk(name: str, doc: Document, setup: Setup, models: Embedder | None) -> list[Chunk]:
    try:
        return chunk_document(doc, setup.plan.recipe, embedder=models)  # type: ignore[arg-type]
    except UsageError:
        raise
    except RagchunkError as exc:  # named with the document and the setup, which it may not be
        raise InputError(f"{name} ({setup.name}): {exc}") from exc


def _matrix(vectors: Sequence[Vector]) -> Any:
    import numpy as np

    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.vstack([np.frombuffer(vector, dtype=np.float32) for vector in vectors])


def _score_setup(
    setup: Setup,
    corpus: Corpus,
    questions: Sequence[Question],
    chunks: Sequence[Chunk],
    question_vectors: Any,
    chunk_vectors: Any,
    tokens: dict[str, _Tokens],
    top_k: int,
) -> SetupResult:
    import numpy as np

    names = {doc.doc_id: name for name, doc in corpus.documents}
    pieces: list[Piece] = [(names.get(c.doc_id, c.doc_id), c.start, c.end) for c in chunks]
    token_pieces = [(d, *tokens[d].span(s, e)) for d, s, e in pieces]
    if chunk_vectors is None:
        order = np.zeros((len(questions), 0), dtype=np.int64)
        similarity = np.zeros((len(questions), 0), dtype=np.float32)
    else:
        similarity = question_vectors @ chunk_vectors.T
        order = np.argsort(-similarity, axis=1, kind="stable")[:, :top_k]
    per_question = []
    for row, question in enumerate(questions):
        picked = [int(k) for k in order[row]]
        evidence = [(question.document, s, e) for s, e in question.spans]
        doc_tokens = tokens[question.document]
        token_evidence = [(question.document, *doc_tokens.span(s, e)) for s, e in question.spans]
        per_question.append(
            QuestionResult(
                question.id,
                question.document,
                score(evidence, [pieces[k] for k in picked], pieces),
                score(token_evidence, [token_pieces[k] for k in picked], token_pieces),
                tuple(
                    Retrieved(*pieces[k], similarity=round(float(similarity[row, k]), 6))
                    for k in picked
                ),
            )
        )
    sizes = [end - start for _, start, end in pieces]
    token_sizes = [tokens[d].size(s, e) for d, s, e in pieces]
    return SetupResult(
        name=setup.name,
        strategy=setup.strategy,
        settings=_settings_of(setup),
        chunks=len(pieces),
        mean_chars=_average(sizes),
        mean_tokens=_average(token_sizes),
        chars=mean([r.chars for r in per_question]),
        tokens=mean([r.tokens for r in per_question]),
        documents=_per_document(corpus, pieces, per_question),
        questions=tuple(per_question),
    )


def _per_document(
    corpus: Corpus, pieces: Sequence[Piece], results: Sequence[QuestionResult]
) -> tuple[DocumentResult, ...]:
    made = []
    for name, _ in corpus.documents:
        sizes = [end - start for doc, start, end in pieces if doc == name]
        asked = [r for r in results if r.document == name]
        made.append(
            DocumentResult(
                name=name,
                chunks=len(sizes),
                mean_chars=_average(sizes),
                questions=len(asked),
                chars=mean([r.chars for r in asked]),
                tokens=mean([r.tokens for r in asked]),
            )
        )
    return tuple(made)


def _settings_of(setup: Setup) -> dict[str, Any]:
    recipe = setup.plan.recipe
    budget = recipe.capacity
    return {
        "strategy": recipe.strategy.name,
        "size": budget.size,
        "overlap": budget.overlap,
        "unit": budget.unit,
    }


def _average(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else 0.0
