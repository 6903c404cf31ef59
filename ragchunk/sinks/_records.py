"""What the store modules share: records as flat scalar metadata, filters, masked URLs, errors.

Stores whose metadata values must be scalars (Chroma, Qdrant payloads, Milvus dynamic fields)
hold a ``StoreRecord`` as ``flat_record(record)``: its scalar fields as they are, ``headings``
and ``metadata`` as JSON text (so a query returns them unchanged), ``page_start``/``page_end``
only where the document has pages and ``timestamp_start``/``timestamp_end`` (seconds) only
where it has times (absent, never null), and each top-level *scalar* metadata
value a second time under ``METADATA_PREFIX + key``, so that ``--filter metadata.lang=en`` is a
filter the store itself applies. ``record_from_flat`` reads one back. The ledger goes the same
way (``flat_ledger``/``ledger_from_flat``).

``flat_record(record, vector=True)`` adds the vector itself as ``VECTOR_FIELD``: float32
little-endian bytes in base64. Stores whose cosine index normalises what it keeps (Chroma,
Qdrant) return vectors that differ from the ones written in their last bits, so a chunk that
only moved would look rewritten; read from this field, the vector is the one written, exactly
(ragchunk's vectors are float32).

``filter_terms`` checks the filters a query is given and names each one's field in that flat
form, with its value typed (``page_start="3"`` from a command line becomes the number 3,
``timestamp_start="21.5"`` the number 21.5).
``mask_url`` and ``store_error`` keep a password out of every message.
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypeGuard
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._store import LedgerEntry, Scalar, StoreRecord

INTEGER_FIELDS: Final = ("index", "start", "end", "page_start", "page_end")
"""The record's number fields (``page_start``/``page_end`` may be absent)."""
TIME_FIELDS: Final = ("timestamp_start", "timestamp_end")
"""The record's times in seconds, numbers that may have a fraction (absent without times)."""
STRING_FIELDS: Final = ("key", "id", "doc_id", "source", "strategy")
"""The record's text fields that are filters (``text`` itself is not)."""
FILTER_FIELDS: Final = STRING_FIELDS + INTEGER_FIELDS + TIME_FIELDS
"""What ``query(filters=...)`` accepts, besides ``metadata.KEY``."""
METADATA_FILTER: Final = "metadata."
"""How a filter names a top-level key of the record's metadata (``metadata.lang``)."""
METADATA_PREFIX: Final = "meta__"
"""The flat field holding a scalar top-level metadata value (``meta__lang``)."""
VECTOR_FIELD: Final = "vector_f32"
"""The flat field holding the exact vector (``vector_text``)."""
MASK: Final = "***"
_SECRET_PARAMETERS: Final = frozenset({"password", "passwd", "api_key", "apikey", "token"})


def json_text(value: object) -> str:
    """Return compact JSON text of ``value`` (non-ASCII as itself, lone surrogates escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (a file name that is not UTF-8) cannot be encoded by a client: escaped,
    # it is still valid JSON that reads back as the same string.
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def vector_text(vector: Sequence[float]) -> str:
    """Return ``vector`` as base64 text of its float32 little-endian bytes."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def vector_from_text(text: str) -> tuple[float, ...]:
    """Return the vector that ``vector_text`` wrote."""
    data = base64.b64decode(text)
    return struct.unpack(f"<{len(data) // 4}f", data)


def flat_record(
    record: StoreRecord, *, text: bool = True, vector: bool = False
) -> dict[str, Scalar]:
    """Return ``record`` as flat scalar metadata (see the module docstring).

    ``text=False`` leaves the text out, for stores that keep it beside the metadata (Chroma's
    ``documents``); ``vector=True`` adds the exact vector as ``VECTOR_FIELD``.
    """
    flat: dict[str, Scalar] = {
        "key": record.key,
        "id": record.id,
        "doc_id": record.doc_id,
        "source": record.source,
        "index": record.index,
        "start": record.start,
        "end": record.end,
        "strategy": record.strategy,
        "headings": json_text(list(record.headings)),
        "metadata": json_text(dict(record.metadata)),
    }
    if text:
        flat["text"] = record.text
    if vector:
        flat[VECTOR_FIELD] = vector_text(record.vector)
    if record.page_start is not None:
        flat["page_start"] = record.page_start
    if record.page_end is not None:
        flat["page_end"] = record.page_end
    if record.timestamp_start is not None:
        flat["timestamp_start"] = record.timestamp_start
    if record.timestamp_end is not None:
        flat["timestamp_end"] = record.timestamp_end
    for name, value in record.metadata.items():
        if _filterable(value):
            flat[METADATA_PREFIX + name] = value
    return flat


def _filterable(value: object) -> TypeGuard[Scalar]:
    """Whether a metadata value is copied under ``METADATA_PREFIX`` (a scalar stores can hold)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    return isinstance(value, str)


def record_from_flat(
    flat: Mapping[str, Any], *, vector: Sequence[float] | None = None, text: str | None = None
) -> StoreRecord:
    """Return the record that ``flat_record`` flattened (``text`` if it was left out).

    Without ``vector``, the vector is read from ``VECTOR_FIELD``.
    """
    if vector is None:
        vector = vector_from_text(str(flat[VECTOR_FIELD]))
    page_start, page_end = flat.get("page_start"), flat.get("page_end")
    return StoreRecord(
        key=str(flat["key"]),
        id=str(flat["id"]),
        doc_id=str(flat["doc_id"]),
        source=str(flat["source"]),
        index=int(flat["index"]),
        text=str(flat["text"] if text is None else text),
        start=int(flat["start"]),
        end=int(flat["end"]),
        strategy=str(flat["strategy"]),
        vector=tuple(float(x) for x in vector),
        headings=tuple(json.loads(str(flat["headings"]))),
        page_start=None if page_start is None else int(page_start),
        page_end=None if page_end is None else int(page_end),
        metadata=json.loads(str(flat["metadata"])),
        timestamp_start=_seconds(flat.get("timestamp_start")),
        timestamp_end=_seconds(flat.get("timestamp_end")),
    )


def _seconds(value: Any) -> float | None:
    return None if value is None else float(value)


def flat_ledger(entry: LedgerEntry) -> dict[str, Scalar]:
    """Return a ledger entry as flat scalar metadata (``keys`` as a JSON list)."""
    return {
        "doc_id": entry.doc_id,
        "source": entry.source,
        "content_hash": entry.content_hash,
        "settings_hash": entry.settings_hash,
        "keys": json_text(list(entry.keys)),
    }


def ledger_from_flat(flat: Mapping[str, Any]) -> LedgerEntry:
    """Return the ledger entry that ``flat_ledger`` flattened."""
    return LedgerEntry(
        doc_id=str(flat["doc_id"]),
        source=str(flat["source"]),
        content_hash=str(flat["content_hash"]),
        settings_hash=str(flat["settings_hash"]),
        keys=tuple(json.loads(str(flat["keys"]))),
    )


def filter_terms(filters: Mapping[str, Scalar] | None) -> list[tuple[str, Scalar]]:
    """Return ``filters`` as (flat field, typed value) pairs, in the order given.

    A record field keeps its name; ``metadata.KEY`` becomes ``METADATA_PREFIX + KEY``. A number
    field's value is an ``int`` (``"3"`` is read as 3).

    Raises:
        UsageError: an unknown field, or a number field given something else.
    """
    terms: list[tuple[str, Scalar]] = []
    for name, value in (filters or {}).items():
        if name.startswith(METADATA_FILTER) and len(name) > len(METADATA_FILTER):
            terms.append((METADATA_PREFIX + name[len(METADATA_FILTER) :], value))
        elif name in INTEGER_FIELDS:
            terms.append((name, _integer(name, value)))
        elif name in TIME_FIELDS:
            terms.append((name, _number(name, value)))
        elif name in STRING_FIELDS:
            terms.append((name, str(value)))
        else:
            known = ", ".join((*FILTER_FIELDS, f"{METADATA_FILTER}KEY"))
            raise UsageError(f"--filter {name}: not a field a store filters on (use {known})")
    return terms


def _integer(name: str, value: Scalar) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    raise UsageError(f"--filter {name}={value}: {name} is a whole number")


def _number(name: str, value: Scalar) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise UsageError(f"--filter {name}={value}: {name} is a number of seconds")


def metadata_values(value: Scalar) -> list[Scalar]:
    """Return what a metadata filter's value matches: itself, and the number or boolean it spells.

    ``--filter metadata.year=2024`` reaches a store as the string ``"2024"``; it matches a
    metadata value ``2024`` as well as ``"2024"`` (``"true"``/``"false"`` match booleans).
    """
    values: list[Scalar] = [value]
    if isinstance(value, str):
        text = value.strip()
        if text in ("true", "false"):
            values.append(text == "true")
        elif re.fullmatch(r"[+-]?\d+", text):
            values.append(int(text))
        elif re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
            values.append(float(text))
    return values


def metadata_key(flat_field: str) -> str | None:
    """Return the metadata key a flat field names (``meta__lang`` → ``lang``), else None."""
    if flat_field.startswith(METADATA_PREFIX):
        return flat_field[len(METADATA_PREFIX) :]
    return None


def store_path(url: str) -> Path:
    """Return the local path of an embedded store's URL, as SQLAlchemy reads ``sqlite:`` URLs.

    ``chroma:///index/docs`` is relative (``index/docs``), ``chroma:////srv/index/docs``
    absolute (``/srv/index/docs``); ``~`` is expanded. Query parameters are not part of it.

    Raises:
        UsageError: the URL names a host (``scheme://host/...``) or no path.
    """
    parts = urlsplit(url)
    if parts.netloc or not parts.path.startswith("/") or len(parts.path) < 2:
        raise UsageError(
            f"{mask_url(url)}: a local store is {parts.scheme}:///PATH (relative) "
            f"or {parts.scheme}:////PATH (absolute)"
        )
    return Path(unquote(parts.path[1:])).expanduser()


def mask_url(url: str) -> str:
    """Return ``url`` with its password (and any ``password=``/``token=`` parameter) masked."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # an unparsable port...: mask anything between ':' and '@'
        return re.sub(r"(//[^/:@]*:)[^/@]*@", rf"\g<1>{MASK}@", url)
    netloc = parts.netloc
    if password is not None:
        user_info, _, host = netloc.rpartition("@")
        user = user_info.partition(":")[0]
        netloc = f"{user}:{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() in _SECRET_PARAMETERS for k, _ in pairs):
            masked = [(k, MASK if k.lower() in _SECRET_PARAMETERS else v) for k, v in pairs]
            query = urlencode(masked, safe="*")
    if netloc == parts.netloc and query == parts.query:
        return url
    # Not urlunsplit: it drops the empty host of scheme:////abs/path for unknown schemes.
    return (
        f"{parts.scheme}://{netloc}{parts.path}"
        + (f"?{query}" if query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def secrets(url: str) -> list[str]:
    """Return the secrets ``url`` holds (its password, secret parameters), longest first."""
    found: list[str] = []
    try:
        parts = urlsplit(url)
        if parts.password:
            found.append(parts.password)
        found += [v for k, v in parse_qsl(parts.query) if k.lower() in _SECRET_PARAMETERS and v]
    except ValueError:
        pass
    return sorted({s for s in found if s}, key=len, reverse=True)


def scrub(message: str, url: str) -> str:
    """Return the first line of ``message`` with every secret of ``url`` masked."""
    line = next((s.strip() for s in message.splitlines() if s.strip()), "")
    for secret in secrets(url):
        line = line.replace(secret, MASK)
    return line


def store_error(url: str, doing: str, error: BaseException) -> StoreError:
    """Return a one-line ``StoreError``: ``<masked url>: <doing>: <the error's first line>``."""
    reason = scrub(str(error), url) or type(error).__name__
    return StoreError(f"{mask_url(url)}: {doing}: {reason}")


def dimension_error(url: str, stored: int, given: int) -> StoreError:
    """Return the error for vectors whose size differs from the store's (before any write)."""
    return StoreError(
        f"{mask_url(url)}: the store holds vectors of size {stored}, these are of size {given} "
        "(a different model? use another collection or table)"
    )


META_DOC: Final = ""
"""The ``doc_id`` of the ledger row that holds a store's ``Store.meta`` (no document has it)."""


def meta_entry(values: Mapping[str, str]) -> LedgerEntry:
    """Return ``values`` as the reserved ledger row of stores that keep meta in their ledger."""
    return LedgerEntry(
        doc_id=META_DOC,
        source=json_text(dict(sorted(values.items()))),
        content_hash="",
        settings_hash="",
        keys=(),
    )


def meta_of(entries: Mapping[str, LedgerEntry]) -> dict[str, str]:
    """Return the meta values a ledger's reserved row holds ({} without one)."""
    entry = entries.get(META_DOC)
    if entry is None:
        return {}
    values = json.loads(entry.source)
    return {str(name): str(value) for name, value in values.items()}
