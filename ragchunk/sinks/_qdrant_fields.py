"""Qdrant's side of a record: points' payloads as records, filters.

See ``sinks/qdrant.py`` for the payload and what it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragchunk.sinks._records import metadata_key, metadata_values, record_from_flat
from ragchunk.sinks._store import Scalar, StoreRecord

if TYPE_CHECKING:
    from qdrant_client import models


def point_record(payload: Mapping[str, Any], vector: Any) -> StoreRecord:
    """Return the record a point holds (its payload as ``flat_record`` made it)."""
    if not isinstance(vector, list):
        vector = []
    return record_from_flat(payload, vector=vector)


def document_filter(doc_id: str) -> models.Filter:
    return equality_filter([("doc_id", doc_id)])


def equality_filter(terms: Sequence[tuple[str, Scalar]]) -> models.Filter:
    """Return the Qdrant filter of equality ``terms``.

    A metadata term matches any of ``metadata_values`` (``"2024"`` matches 2024 too); a float
    is matched as a range of one value (Qdrant matches only strings, integers and booleans).
    """
    from qdrant_client import models

    conditions: list[Any] = []
    for name, value in terms:
        if metadata_key(name) is None:
            conditions.append(condition(name, value))
            continue
        either: list[Any] = [condition(name, v) for v in metadata_values(value)]
        conditions.append(either[0] if len(either) == 1 else models.Filter(should=either))
    return models.Filter(must=conditions)


def condition(name: str, value: Scalar) -> models.FieldCondition:
    from qdrant_client import models

    if isinstance(value, float):
        return models.FieldCondition(key=name, range=models.Range(gte=value, lte=value))
    return models.FieldCondition(key=name, match=models.MatchValue(value=value))
