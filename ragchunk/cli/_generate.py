"""``ragchunk eval --generate``: a question file written by the chat model, for review and reuse."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

from ragchunk.cli._app import one_line
from ragchunk.errors import OptionError, UsageError

if TYPE_CHECKING:
    from ragchunk.evaluation.corpus import Corpus
    from ragchunk.evaluation.generate import EvidenceMode
    from ragchunk.pipeline.plan import Plan


def generate_file(
    corpus: Corpus, base: Plan, count: int, evidence: str, path: str, *, quiet: bool
) -> None:
    """Write ``count`` questions per document of ``corpus`` to ``path`` (``--generate``).

    Raises:
        UsageError: no chat endpoint, not one question kept (nothing is written then), or
            ``path`` cannot be written.
    """
    from ragchunk.backends.chat import ChatClient
    from ragchunk.evaluation.generate import generate_questions, write_questions

    if evidence not in ("sentences", "excerpts"):
        raise OptionError("--evidence", f"must be sentences or excerpts (got {evidence!r})")
    client = ChatClient(base.recipe.chat, base.policy.cache)
    documents = [(name, document.text) for name, document in corpus.documents]
    made = generate_questions(
        documents, client, per_document=count, evidence=cast("EvidenceMode", evidence)
    )
    if not quiet:
        for problem in made.problems:
            sys.stderr.write(f"warning: {one_line(problem.message)}\n")  # it names the file
        counts = made.counts
        dropped = ", ".join(
            f"{counts[name]} {name.replace('_', ' ')}"
            for name in ("not_found", "unrelated", "duplicate", "invalid", "surplus")
            if counts[name]
        )
        sys.stderr.write(
            f"generated: {counts['kept']} of {counts['proposed']} proposed questions kept"
            + (f" (dropped: {dropped})" if dropped else "")
            + f"; {counts['requests']} requests to {made.model} ({counts['cached']} cached)\n"
        )
    if not made.questions:
        raise UsageError(
            f"--generate: the chat endpoint gave no question whose evidence was found in the "
            f"documents; {path} was not written"
        )
    try:
        write_questions(path, made)
    except OSError as exc:  # disk full, a read-only folder: one line naming the file
        from ragchunk.sinks.atomic import describe

        raise UsageError(f"--generate: {describe(exc)}") from None
