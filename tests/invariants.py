"""assert_invariants: SPEC §3 for one document under one plan, via ragchunk.pipeline.check."""

from __future__ import annotations

from ragchunk.model import Chunk, Document, Dropped
from ragchunk.pipeline.check import find_differences, find_violations
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import Plan, limits_for

__all__ = ["assert_invariants", "limits_for"]


def assert_invariants(doc: Document, plan: Plan) -> list[Chunk]:
    """Chunk ``doc`` twice; assert every invariant and byte-identical output; return the chunks.

    Text a template drops on purpose must be exactly the spans it reported (SPEC §3.2). The
    message names the first violation (in document order) and up to four more.
    """
    dropped: list[Dropped] = []
    chunks = chunk_document(doc, plan.recipe, dropped=dropped)
    problems = find_violations(doc, chunks, limits_for(plan.recipe), dropped)
    assert not problems, "\n".join(problems[:5])
    again: list[Dropped] = []
    differences = find_differences(chunks, chunk_document(doc, plan.recipe, dropped=again))
    assert not differences, f"not deterministic: {differences[0]}"
    assert again == dropped, "not deterministic: other spans dropped"
    return chunks
