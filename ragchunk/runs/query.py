"""``ragchunk query``: the chunks of a store nearest a question, embedded as ``index`` embedded.

The store records the embedder its vectors came from (``ragchunk.runs.index`` writes it in
``Store.meta``); the question is embedded with that one unless the settings name another
(their embedding flags win), and a vector of another size than the store's is refused.
``parse_filters`` reads ``--filter key=value`` with typed values: numbers compare as numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from ragchunk.errors import UsageError
from ragchunk.sinks._sync import EMBEDDER, check_dimension

if TYPE_CHECKING:
    from ragchunk.settings import Settings
    from ragchunk.sinks._store import Hit, Scalar, Store

_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def query(
    store: str,
    question: str,
    *,
    k: int = 5,
    filters: Mapping[str, Scalar] | None = None,
    hybrid: bool = False,
    settings: Settings | None = None,
) -> list[Hit]:
    """Return the ``k`` chunks of the store at URL ``store`` nearest ``question``, best first.

    ``filters`` are equality tests on record fields (``page_start``, ``doc_id``, ``source``,
    ``strategy``...) or ``metadata.KEY``; ``hybrid`` mixes keyword and vector ranks (stores
    with a keyword index: SQLite). ``settings``' embedding settings override the recorded
    embedder's. Each hit holds the record as stored and its score (higher is nearer).

    Raises:
        UsageError: a bad ``k``, filter, store URL or embedder setting.
        StoreError: the store is down, or its vectors differ in size from the question's.
        BackendError: the embedder failed.
    """
    from ragchunk import sinks

    if k < 1:
        raise UsageError(f"-k must be at least 1 (got {k})")
    spec = sinks.get(sinks.choose(store, None))
    with spec.open(store) as sink:
        if not hasattr(sink, "query"):
            raise UsageError(f"{store}: {spec.name} is not a vector store")
        target = cast("Store", sink)
        size = target.dimension()
        if size is None:
            return []
        vector = _embed(question, target.meta(), settings)
        check_dimension(target, size, len(vector))
        return target.query(vector, k=k, filters=filters, text=question if hybrid else None)


def _embed(question: str, meta: Mapping[str, str], settings: Settings | None) -> list[float]:
    """Return the question's vector from the recorded embedder (the settings' flags on top)."""
    from ragchunk.backends import open_embedder
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.settings import Settings, merge, scope, shortcuts

    recorded = json.loads(meta.get(EMBEDDER, "{}"))
    tree = merge(Settings() if settings is None else settings, shortcuts(recorded))
    plan = make_plan(merge(scope({"embed": True}), tree))
    embedder = open_embedder(plan.recipe.embedder, plan.policy.cache)
    return list(embedder.embed([question])[0])


def parse_filters(assignments: Sequence[str]) -> dict[str, Scalar]:
    """Return ``--filter key=value`` assignments with typed values.

    A whole number becomes an ``int``, a decimal a ``float``, ``true``/``false`` a ``bool``;
    anything else stays text (quote it, ``'"3"'``, to keep a number as text).

    Raises:
        UsageError: an assignment without ``=`` or without a key.
    """
    filters: dict[str, Scalar] = {}
    for assignment in assignments:
        key, sep, value = assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--filter expects key=value (got {assignment!r})")
        filters[key.strip()] = typed(value.strip())
    return filters


def typed(value: str) -> Scalar:
    """Return a filter's value as its type reads: int, float, bool, else the text itself."""
    if _INTEGER.fullmatch(value):
        return int(value)
    if _NUMBER.fullmatch(value):
        return float(value)
    if value in ("true", "false"):
        return value == "true"
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
