"""The exception tree. ``str(error)`` is always one user-facing sentence.

::

    RagchunkError                 names the file or option at fault
    ├── UsageError                exit 2: bad flags, unknown strategy/format/tokenizer, bad config
    │   └── OptionError           .option = the flag or key as the user wrote it
    ├── InputError                one file failed → exit 1: unreadable, unsupported, binary
    │   ├── CorruptDocumentError  encrypted, truncated, not a zip, malformed XML
    │   └── LimitExceededError    zip/XML bomb, size or nesting caps
    ├── BackendError              one file failed → exit 1: embedding/chat endpoint, missing model
    │   └── TokenMappingError     a tokenizer's offsets do not map back (late chunking falls back)
    └── EngineError               the run stopped → exit 1: the Ray cluster running it failed
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "CorruptDocumentError",
    "EngineError",
    "InputError",
    "LimitExceededError",
    "OptionError",
    "RagchunkError",
    "StoreError",
    "TokenMappingError",
    "UsageError",
]


class RagchunkError(Exception):
    """Base of every error ragchunk raises on purpose."""


class UsageError(RagchunkError):
    """The command line, an option or a configuration file is wrong (exit code 2)."""


class OptionError(UsageError):
    """One option has a bad value.

    Attributes:
        option: the option as the user wrote it (``--overlap``, ``separators``).
    """

    def __init__(self, option: str, message: str) -> None:
        self.option = option
        super().__init__(f"{option} {message}")


class InputError(RagchunkError):
    """One input could not be chunked; the others still are (exit code 1)."""


class CorruptDocumentError(InputError):
    """The input is encrypted, truncated or malformed."""


class LimitExceededError(InputError):
    """The input exceeds a resource cap (size, decompression ratio, nesting, time)."""


class BackendError(RagchunkError):
    """An embedding or chat backend failed for one input."""


class TokenMappingError(BackendError):
    """A model's tokenizer reports offsets that do not map back onto the text it was given.

    Late chunking catches it: the chunks are made all the same, without embeddings.
    """


class StoreError(RagchunkError):
    """A vector store is down, refuses credentials or refuses a write (exit code 1).

    The message names the store by its URL with any password masked.
    """


class EngineError(RagchunkError):
    """The engine running the inputs failed (a Ray cluster lost mid-run); the run stops."""
