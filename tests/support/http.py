"""A minimal JSON-over-HTTP client for the test fixtures and smoke tests (stdlib only).

It never goes through a proxy from the environment: local servers are reached directly. (A real
client under test, e.g. httpx, honours HTTP_PROXY/NO_PROXY: CI sets no proxy.)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True, slots=True)
class Response:
    """Status, headers (lower-case names) and body of one answer."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """Return the body parsed as JSON."""
        return json.loads(self.body)


def request(
    url: str,
    payload: Any = None,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> Response:
    """GET `url` (POST `payload` as JSON when given) and return the answer, errors included.

    Raises:
        OSError: the connection failed or timed out (`TimeoutError`, `ConnectionRefusedError`,
            `urllib.error.URLError` wrapping them).
    """
    data = None if payload is None else json.dumps(payload).encode()
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(url, data=data, headers=all_headers)
    try:
        with _DIRECT.open(req, timeout=timeout) as answer:
            return Response(int(answer.status), _lower(answer.headers), answer.read())
    except urllib.error.HTTPError as error:
        return Response(int(error.code), _lower(error.headers), error.read())


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}
