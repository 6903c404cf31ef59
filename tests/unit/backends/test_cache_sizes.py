"""The embedding cache checks vector sizes: an endpoint fixed after answering the wrong size.

The scripted server on 127.0.0.1 answers 3-dimensional vectors, then (fixed, same URL and
model name) 8-dimensional ones. Each phase is a new process as far as the cache can tell
(``clear_memory``) and a new client (another batch size: the same identity, another spec).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.backends import EmbedderSpec
from ragchunk.backends.cache import CachedEmbedder, clear_memory
from ragchunk.errors import BackendError
from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, ScriptedServer, fake_embeddings

pytestmark = [*LOCALHOST, pytest.mark.timeout(60)]


def embedder(server: ScriptedServer, cache: Path, phase: int) -> CachedEmbedder:
    clear_memory()  # a new process
    spec = EmbedderSpec(
        backend="openai", url=server.base_url, model="m", retries=0, batch_size=100 + phase
    )
    return CachedEmbedder(spec, str(cache))


def sizes(vectors: list[object]) -> set[int]:
    return {len(v) for v in vectors}  # type: ignore[arg-type]


def test_vectors_of_a_fixed_endpoint_replace_the_cached_ones(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=3))  # misconfigured
    assert sizes(embedder(scripted_server, tmp_path, 1).embed(["a", "b"])) == {3}
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))  # fixed
    second = embedder(scripted_server, tmp_path, 2)
    # "a" is cached at 3, "c" is new: the answer's 8 wins, "a" is asked again
    assert sizes(second.embed(["a", "c"])) == {8}
    assert (second.embedded, second.cached) == (2, 0)
    third = embedder(scripted_server, tmp_path, 3)
    assert sizes(third.embed(["b"])) == {8}  # the cache now expects 8: "b" at 3 is a miss
    assert third.embedded == 1
    fourth = embedder(scripted_server, tmp_path, 4)
    assert sizes(fourth.embed(["a", "b", "c"])) == {8}
    assert (fourth.embedded, fourth.cached) == (0, 3)


def test_another_size_after_vectors_were_returned_is_one_line_naming_the_endpoint(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=3))
    embedder(scripted_server, tmp_path, 1).embed(["a"])
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    second = embedder(scripted_server, tmp_path, 2)
    assert sizes(second.embed(["a"])) == {3}  # from the cache: the run has 3-dimensional ones
    other = CachedEmbedder(second.spec, str(tmp_path))  # the next input of the same process
    with pytest.raises(BackendError) as raised:
        other.embed(["new text"])
    assert str(raised.value) == (
        f"the embedder openai:m at {scripted_server.base_url} answered vectors of 8 dimensions "
        "after 3 in this run (cached ones included); the cache now expects 8: run again for "
        "vectors of one size"
    )
    third = embedder(scripted_server, tmp_path, 3)
    assert sizes(third.embed(["a", "new text"])) == {8}
