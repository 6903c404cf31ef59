"""assert_invariants: SPEC §3 for one document under one plan, via ragchunk.check."""

from __future__ import annotations

from ragchunk.check import Limits, find_violations
from ragchunk.measure import measure_for
from ragchunk.model import Chunk, Document
from ragchunk.pipeline import Plan, chunk_document


def limits_for(plan: Plan) -> Limits:
    """What the chunks of ``plan`` must respect.

    Strategies unbounded by design (hierarchical) and sentence-count mode have no size limit
    unless --size was given; sentence-count mode counts its overlap in whole sentences.
    """
    budget = plan.options.budget
    sentences = getattr(plan.options, "sentences", None)
    by_design = plan.strategy.bounded and getattr(plan.options, "bounded", True)
    bounded = plan.size_given or by_design
    return Limits(
        size=budget.size if bounded else None,
        overlap=budget.overlap,
        measure=measure_for(budget.unit, plan.tokenizer),
        word_aligned=plan.strategy.name != "token",
        sentences=sentences,
        overlap_sentences=None if sentences is None else plan.options.overlap_sentences,
        contextualize=plan.contextualize,
    )


def assert_invariants(doc: Document, plan: Plan) -> list[Chunk]:
    """Chunk ``doc`` twice; assert every invariant and byte-identical output; return the chunks."""
    chunks = chunk_document(doc, plan)
    problems = find_violations(doc, chunks, limits_for(plan))
    assert not problems, "\n".join(problems[:5])
    again = chunk_document(doc, plan)
    assert [c.to_record() for c in again] == [c.to_record() for c in chunks], "not deterministic"
    return chunks
