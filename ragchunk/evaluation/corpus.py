"""The documents of an evaluation: DOCS walked as ``split`` walks it, each input parsed once.

Every document is named as a question file names it: its path relative to the DOCS directory
(``/``-separated), or its file name when DOCS is one file; a document of a container (an mbox)
adds its member's name (``list.mbox#2``). An input that cannot be read or parsed does not stop
the evaluation: it is reported in ``Corpus.failed``, and a question about it is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from ragchunk.errors import InputError, RagchunkError, UsageError
from ragchunk.parsers._budget import TextBudget
from ragchunk.parsers._spec import ParseRequest
from ragchunk.pipeline.reading import parse_documents, read_input
from ragchunk.pipeline.results import first_line
from ragchunk.runs.inputs import WalkOptions, absolute, doc_id_for, find_inputs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Document
    from ragchunk.pipeline.plan import Plan
    from ragchunk.runs.globs import Glob
    from ragchunk.runs.inputs import Note


@dataclass(frozen=True, slots=True)
class Corpus:
    """The parsed documents of DOCS by name, in walk order, and what could not be read.

    Attributes:
        documents: ``(name, document)`` pairs, in walk order.
        failed: one sentence per input (or document of a container) that could not be read.
        notes: what the walk left out and why (as ``split`` reports it).
    """

    documents: tuple[tuple[str, Document], ...]
    failed: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()

    def texts(self) -> dict[str, str]:
        """Return each document's text by name."""
        return {name: doc.text for name, doc in self.documents}


def load_documents(
    docs: str,
    plan: Plan,
    *,
    include: Sequence[Glob] = (),
    exclude: Sequence[Glob] = (),
    gitignore: bool = True,
    skip: Sequence[str] = (),
) -> Corpus:
    """Walk ``docs`` (a directory or one file) and parse every input under ``plan``.

    Only the plan's reading settings matter (format, password, parse options, byte cap)
    and its ``--debug`` (an unexpected error is raised, not reported); nothing is chunked.
    ``skip`` names files never taken as inputs (the question file).

    Raises:
        UsageError: ``docs`` does not exist.
    """
    path = Path(docs)
    if not path.exists():
        raise UsageError(f"DOCS: no such file or directory: {docs}")
    root = docs if path.is_dir() else str(path.parent)
    options = WalkOptions(
        include=tuple(include),
        exclude=tuple(exclude),
        gitignore=gitignore,
        skip=frozenset(absolute(item) for item in skip),
        root=root,
    )
    found = find_inputs([docs], options)
    documents: list[tuple[str, Document]] = []
    failed: list[str] = []
    for item in found.inputs:
        name = doc_id_for(item.source, root)
        try:
            for made in _parse(item.source, name, plan):
                if isinstance(made, InputError):
                    failed.append(str(made))
                else:
                    documents.append((made.doc_id, made))
        except RagchunkError as exc:
            failed.append(str(exc))
        except Exception as exc:  # a parser's bug must not stop the evaluation of the others
            if plan.policy.debug:
                raise
            reason = f"internal error: {type(exc).__name__}: {first_line(str(exc))}"
            failed.append(f"{item.source}: {reason}")
    return Corpus(tuple(documents), tuple(failed), found.notes)


def _parse(source: str, name: str, plan: Plan) -> list[Document | InputError]:
    recipe, policy = plan.recipe, plan.policy
    data = read_input(source, policy.max_bytes)
    request = ParseRequest(
        source=source,
        doc_id=PurePath(name).as_posix(),
        password=policy.password,
        language=recipe.language,
        max_bytes=policy.max_bytes,
        options=recipe.parse,
        budget=TextBudget(policy.max_text),
    )
    return list(parse_documents(data, request, format=recipe.format))
