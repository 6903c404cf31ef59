"""The library's two entry points: chunk a string, or chunk a file of any supported format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ragchunk.errors import InputError

if TYPE_CHECKING:
    from ragchunk.backends import EmbedderSpec
    from ragchunk.backends.chat import ChatSpec
    from ragchunk.model import Chunk
    from ragchunk.options import Unit
    from ragchunk.parsers._spec import ParseOptions
    from ragchunk.pipeline.parents import ParentSpec


def chunk_text(
    text: str,
    *,
    strategy: str = "recursive",
    size: int | None = None,
    overlap: int | None = None,
    unit: Unit | None = None,
    tokenizer: str = "cl100k_base",
    options: Mapping[str, object] | None = None,
    doc_id: str = "-",
    refine: bool = False,
    embed: bool = False,
    embedder: EmbedderSpec | None = None,
    cache_dir: str | None = None,
    no_cache: bool = False,
    chat: ChatSpec | None = None,
    parents: str | ParentSpec | None = None,
) -> list[Chunk]:
    """Split ``text`` and return its chunks; ``chunk.text == text[chunk.start:chunk.end]``.

    ``parents`` (``--parents``: ``"800"``, ``"800:100"``, ``"markdown:2000"`` or a
    ``ParentSpec``) adds parent chunks, each followed by the children cut inside it: children
    have ``parent_id``, parents ``metadata["kind"] == "parent"``. ``refine``, ``embed`` and
    ``embedder`` are ``--refine``, ``--embed`` and the embedder flags; vectors are cached
    under ``cache_dir`` (default: the user's cache directory) unless ``no_cache``. ``chat``
    is the chat endpoint of ``proposition`` and ``resume``
    (their answers are cached beside the vectors).

    Raises:
        UsageError: a bad strategy name or option (``OptionError`` names the option).
        BackendError: the embedder failed.
    """
    from ragchunk.backends import open_embedder
    from ragchunk.model import Document
    from ragchunk.pipeline.engine import chunk_document
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.pipeline.rewrite import open_rewriter

    plan = make_plan(
        strategy,
        size=size,
        overlap=overlap,
        unit=unit,
        tokenizer=tokenizer,
        options=options,
        refine=refine,
        embed=embed,
        embedder=embedder,
        cache_dir=cache_dir,
        no_cache=no_cache,
        chat=chat,
        parents=parents,
    )
    recipe = plan.recipe
    vectors = open_embedder(recipe.embedder, plan.policy.cache) if recipe.needs_embedder else None
    rewriter = open_rewriter(recipe, plan.policy.cache) if recipe.strategy.rewrites else None
    doc = Document(text=text, source=doc_id, doc_id=doc_id)
    return chunk_document(doc, recipe, embedder=vectors, rewriter=rewriter)


def chunk_file(
    path: str,
    *,
    strategy: str = "recursive",
    size: int | None = None,
    overlap: int | None = None,
    unit: Unit | None = None,
    tokenizer: str = "cl100k_base",
    options: Mapping[str, object] | None = None,
    format: str | None = None,
    language: str | None = None,
    password: str | None = None,
    root: str = ".",
    parse: ParseOptions | None = None,
    allow_empty: bool = False,
    refine: bool = False,
    embed: bool = False,
    embedder: EmbedderSpec | None = None,
    cache_dir: str | None = None,
    no_cache: bool = False,
    chat: ChatSpec | None = None,
    parents: str | ParentSpec | None = None,
) -> list[Chunk]:
    """Parse the file at ``path`` and return its chunks.

    ``format`` forces the parser (detected from the extension and content otherwise),
    ``language`` forces a source file's language (as ``--language``), ``password`` opens
    an encrypted PDF, ``parse`` says how files are read (PDF engine, OCR, cleaning, DOCX
    comments, HTML boilerplate, PPTX notes...; ``options`` may hold those keys too), and
    ``allow_empty`` accepts a file in which no text is found (no chunks). The chunks' ``doc_id``
    is the file's path relative to ``root`` (as ``--root``; ``ragchunk.runs.inputs.doc_id_for``), so
    it and the ids match ``ragchunk split``'s. A container (an mbox) gives the chunks of every
    document in it, each with its own ``doc_id``. The embedding settings and ``parents`` are
    those of ``chunk_text``.

    Raises:
        UsageError: a bad strategy name or option.
        InputError: the file cannot be read or parsed (or one document of a container), or
            its embedding failed (the message names the endpoint or model).
    """
    from ragchunk.parsers._spec import DEFAULT_PARSE
    from ragchunk.pipeline.engine import process
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.runs.inputs import doc_id_for

    plan = make_plan(
        strategy,
        size=size,
        overlap=overlap,
        unit=unit,
        tokenizer=tokenizer,
        options=options,
        format=format,
        language=language,
        password=password,
        parse=parse or DEFAULT_PARSE,
        allow_empty=allow_empty,
        refine=refine,
        embed=embed,
        embedder=embedder,
        cache_dir=cache_dir,
        no_cache=no_cache,
        chat=chat,
        parents=parents,
    )
    result = process(path, doc_id_for(path, root), plan)
    if result.error is not None:
        raise InputError(result.error)
    if result.failed_parts:  # a message of an mbox: the caller asked for the whole file
        raise InputError(result.failed_parts[0])
    return list(result.chunks)
