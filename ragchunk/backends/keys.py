"""API keys: read from an environment variable, refused when unusable, masked in every message.

A key is sent as it is, never altered. A value an HTTP header cannot carry — a trailing carriage
return or line feed (a key file saved with Windows line endings), any other control character,
whitespace around it, a character that is not ASCII — is refused before any request, in one
line naming the variable and the problem, never the key: a key stripped behind the user's back
would hide a broken key file that every other tool reading the variable trips over, and sending
it as it is would print it (Python's ``Invalid header value`` error quotes the header).

``mask`` replaces the key in a message, in every form an echo may hold it: as it is, trimmed,
with its whitespace collapsed, escaped as ``repr`` and as JSON write it, and URL-encoded.
"""

from __future__ import annotations

import json
import os
from typing import Final
from urllib.parse import quote

from ragchunk.errors import OptionError

MASK: Final = "***"
"""What a key is replaced by in messages."""


def read_key(variable: str | None) -> str | None:
    """Return the value of ``variable`` (None when no variable is named, or it is unset)."""
    return os.environ.get(variable) if variable else None


def key_problem(key: str) -> str | None:
    """Return why ``key`` cannot be sent in an HTTP header (one phrase), or None when it can."""
    trailing = key[len(key.rstrip("\r\n")) :]
    if trailing:
        names = {"\r": "a carriage return", "\n": "a line feed"}
        what = " and ".join(names[c] for c in dict.fromkeys(trailing))
        return f"ends in {what} (a key file saved with Windows line endings, or a final newline?)"
    if any(ord(c) < 32 or ord(c) == 127 for c in key):
        return "holds a control character"
    if key != key.strip():
        return "begins or ends with whitespace"
    if not key.isascii():
        return "holds a character that is not ASCII, which an HTTP header cannot carry"
    return None


def check_key(variable: str | None, option: str) -> None:
    """Refuse the key in ``variable`` when an HTTP header cannot carry it as it is.

    Args:
        variable: the environment variable holding the key (None or unset: no key, no check).
        option: the flag that named the variable (``--embed-key-env``), for the message.

    Raises:
        OptionError: one sentence naming the variable and the problem, never the key.
    """
    key = read_key(variable)
    problem = None if not key else key_problem(key)
    if problem is not None:
        raise OptionError(
            option,
            f"names {variable}, whose value {problem}; ragchunk sends a key as it is: fix the "
            f"variable, e.g. export {variable}=\"$(tr -d '\\r\\n' < KEYFILE)\"",
        )


def mask(text: str, key: str | None) -> str:
    """Return ``text`` with every form of ``key`` in it replaced by ``***`` (see the docstring)."""
    if not key:
        return text
    for variant in sorted(_variants(key), key=len, reverse=True):
        text = text.replace(variant, MASK)
    return text


def _variants(key: str) -> set[str]:
    """Return the forms in which a message may hold ``key`` (none of them empty)."""
    forms = {key, key.strip(), " ".join(key.split()), key.rstrip("\r\n")}
    found: set[str] = set()
    for form in filter(None, forms):
        found |= {
            form,
            json.dumps(form)[1:-1],
            json.dumps(form, ensure_ascii=False)[1:-1],
            repr(form)[1:-1],
            repr(form.encode("utf-8", "surrogatepass"))[2:-1],
            form.encode("unicode_escape").decode("ascii"),
            quote(form, safe=""),
        }
    return {variant for variant in found if variant}
