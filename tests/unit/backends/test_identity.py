"""What caches and chunk ids are keyed on stays the same strings whatever the code's shape.

Vectors and answers cached on disk by an earlier version must still be found, and chunk ids
that depend on the embedder or the chat model must not change.
"""

from __future__ import annotations

from ragchunk.backends import EmbedderSpec, identity_of
from ragchunk.backends.cache import cache_key
from ragchunk.backends.chat import ChatClient, ChatSpec
from ragchunk.model import ChatRequest


def test_the_openai_embedders_identity_and_label() -> None:
    spec = EmbedderSpec(backend="openai", url="http://h:1/v1/", model="nomic")
    assert identity_of(spec) == "openai\0http://h:1/v1/embeddings\0nomic"
    assert spec.label == "openai:nomic"


def test_the_local_embedders_label_names_the_default_model() -> None:
    assert EmbedderSpec().label == "local:all-MiniLM-L6-v2"
    assert EmbedderSpec(model="/models/e5").label == "local:/models/e5"


def test_the_chat_models_label_and_answer_key() -> None:
    spec = ChatSpec(url="http://h:1/v1", model="m", temperature=0.5, max_tokens=99)
    assert spec.label == "m@http://h:1/v1/chat/completions"
    request = ChatRequest("system", "user", {}, "v3")
    expected = cache_key(
        "http://h:1/v1/chat/completions", "m", "t=0.5;max=99", "v3", "system", "user"
    )
    assert ChatClient(spec, None).key(request) == expected
