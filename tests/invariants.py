"""assert_invariants: SPEC §3 for one document under one plan, via ragchunk.check."""

from __future__ import annotations

from ragchunk.check import find_differences, find_violations
from ragchunk.engine import chunk_document, limits_for
from ragchunk.model import Chunk, Document
from ragchunk.plan import Plan

__all__ = ["assert_invariants", "limits_for"]


def assert_invariants(doc: Document, plan: Plan) -> list[Chunk]:
    """Chunk ``doc`` twice; assert every invariant and byte-identical output; return the chunks.

    The message names the first violation (in document order) and up to four more.
    """
    chunks = chunk_document(doc, plan.recipe)
    problems = find_violations(doc, chunks, limits_for(plan.recipe))
    assert not problems, "\n".join(problems[:5])
    differences = find_differences(chunks, chunk_document(doc, plan.recipe))
    assert not differences, f"not deterministic: {differences[0]}"
    return chunks
