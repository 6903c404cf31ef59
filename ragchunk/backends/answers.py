"""Whether a chat answer is the JSON its request asked for: what the answer cache may keep.

A rewriting strategy reads the answer's content (``strategies/_prompts.read_answer``); an answer
that is not JSON of the requested schema is of no use to it, and a cache that kept it would
replay it to every later run, against an endpoint fixed meanwhile. ``fits`` is the test the
chat client applies before it stores an answer, and again to one it reads back (entries written
before the test existed). It reads the answer as the strategies do (a Markdown code fence
around the JSON allowed; for an object whose one property is an array, the bare array too) and
checks the part of JSON Schema the requests use: ``type``, ``properties``, ``required`` and
``items``. Counts (``minItems``, ``maxItems``) and extra properties are the reader's to judge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

_FENCE: Final = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_DEPTH: Final = 64
_INVALID: Final = object()


def fits(content: str, schema: Mapping[str, object]) -> bool:
    """Return whether ``content`` is JSON of ``schema`` (see the module docstring)."""
    answer = _parse(content)
    if answer is _INVALID:
        return False
    if _matches(answer, schema, 0):
        return True
    array = _sole_array(schema)
    return array is not None and isinstance(answer, list) and _matches(answer, array, 0)


def _parse(content: str) -> object:
    fenced = _FENCE.match(content)
    try:
        parsed: object = json.loads(fenced.group(1) if fenced else content)
    except (json.JSONDecodeError, RecursionError):
        return _INVALID
    return parsed


def _matches(value: object, schema: Mapping[str, object], depth: int) -> bool:
    if depth > _DEPTH:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else None
    if kinds is not None and not any(_is(value, k) for k in kinds):
        return False
    if isinstance(value, dict):
        required = schema.get("required")
        if isinstance(required, list) and any(name not in value for name in required):
            return False
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return True
        return all(
            _matches(value[name], inner, depth + 1)
            for name, inner in properties.items()
            if name in value and isinstance(inner, Mapping)
        )
    if isinstance(value, list):
        items = schema.get("items")
        return not isinstance(items, Mapping) or all(
            _matches(item, items, depth + 1) for item in value
        )
    return True


def _is(value: object, kind: str) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": number and float(value).is_integer(),  # type: ignore[arg-type]  # a number
        "number": number,
        "boolean": isinstance(value, bool),
        "null": value is None,
    }.get(kind, True)


def _sole_array(schema: Mapping[str, object]) -> Mapping[str, object] | None:
    """Return the schema of an object's one property when it is an array, else None."""
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, Mapping):
        return None
    if len(properties) != 1:
        return None
    (inner,) = properties.values()
    return inner if isinstance(inner, Mapping) and inner.get("type") == "array" else None
