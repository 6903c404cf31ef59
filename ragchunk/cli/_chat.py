"""The flags of the chat model that rewriting strategies ask (proposition, resume), for ``split``.

They sit in their own help panel (``_panels.CHAT``); ``_options.settings_from_flags`` turns them
into settings (``--emit-passages`` into the strategy option ``emit_passages``), where a flag
whose default is a value counts only when given.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ragchunk.cli._panels import CHAT

ApiBaseFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--api-base",
        help="An OpenAI-compatible chat endpoint's base URL (http://127.0.0.1:8080/v1).",
        metavar="URL",
        show_default=False,
        rich_help_panel=CHAT,
    ),
]

ModelFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--model", help="The chat model's name.", show_default=False, rich_help_panel=CHAT
    ),
]

ApiKeyEnvFlag = Annotated[
    str,
    typer.Option(
        "--api-key-env",
        help="The environment variable holding the chat endpoint's key (never shown).",
        metavar="NAME",
        rich_help_panel=CHAT,
    ),
]

ApiTimeoutFlag = Annotated[
    float,
    typer.Option("--api-timeout", help="Seconds to wait for a chat answer.", rich_help_panel=CHAT),
]

ApiConcurrencyFlag = Annotated[
    int,
    typer.Option(
        "--api-concurrency",
        help="Chat requests in flight at once, per worker.",
        rich_help_panel=CHAT,
    ),
]

ApiRetriesFlag = Annotated[
    int,
    typer.Option(
        "--api-retries",
        help="Retries of a timeout, refused connection, 429 or 5xx (Retry-After honoured).",
        rich_help_panel=CHAT,
    ),
]

EmitPassagesFlag = Annotated[
    bool,
    typer.Option(
        "--emit-passages",
        help="proposition: also emit every passage verbatim (metadata.kind passage).",
        rich_help_panel=CHAT,
    ),
]

DryRunFlag = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Call no model and write no chunks: report the calls and prompt tokens the "
        "run would make.",
        rich_help_panel=CHAT,
    ),
]
