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
) -> list[Chunk]:
    """Split ``text`` and return its chunks; ``chunk.text == text[chunk.start:chunk.end]``.

    ``refine``, ``embed`` and ``embedder`` are ``--refine``, ``--embed`` and the embedder
    flags; vectors are cached under ``cache_dir`` (default: the user's cache directory)
    unless ``no_cache``. ``chat`` is the chat endpoint of ``proposition`` and ``resume``
    (their answers are cached beside the vectors).

    Raises:
        UsageError: a bad strategy name or option (``OptionError`` names the option).
        BackendError: the embedder failed.
    """
    from ragchunk.backends import open_embedder
    from ragchunk.engine import chunk_document
    from ragchunk.model import Document
    from ragchunk.plan import make_plan
    from ragchunk.rewrite import open_rewriter

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
    refine: bool = False,
    embed: bool = False,
    embedder: EmbedderSpec | None = None,
    cache_dir: str | None = None,
    no_cache: bool = False,
    chat: ChatSpec | None = None,
) -> list[Chunk]:
    """Parse the file at ``path`` and return its chunks.

    ``format`` forces the parser (detected from the extension and content otherwise),
    ``language`` forces a source file's language (as ``--language``), and ``password`` opens
    an encrypted PDF; the embedding settings are those of ``chunk_text``.

    Raises:
        UsageError: a bad strategy name or option.
        InputError: the file cannot be read or parsed, or its embedding failed (the message
            names the endpoint or model).
    """
    from ragchunk.engine import process
    from ragchunk.plan import make_plan

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
        refine=refine,
        embed=embed,
        embedder=embedder,
        cache_dir=cache_dir,
        no_cache=no_cache,
        chat=chat,
    )
    result = process(path, path, plan)
    if result.error is not None:
        raise InputError(result.error)
    return list(result.chunks)
