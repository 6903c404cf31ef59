"""The client a Chroma store opens: a server's, over plain HTTP, or the embedded one.

A server's client loads no CA bundle (``http_settings``): loading it, for the client and again
for its admin client, was half of an unchanged rerun's time, and a ``chroma://`` URL is plain
HTTP. ``close`` also closes the HTTP connections that chromadb's own ``close`` leaves open.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection


def connect(host: str, port: int, folder: Path | None) -> ClientAPI:
    """Return a client of the server at ``host:port``, or of the embedded store in ``folder``."""
    import chromadb
    from chromadb.config import Settings

    if folder is not None:
        settings = Settings(anonymized_telemetry=False)
        return chromadb.PersistentClient(path=str(folder), settings=settings)
    return chromadb.HttpClient(host=host, port=port, settings=http_settings())


def open_collection(client: ClientAPI, name: str, configuration: Any = None) -> Collection:
    """Return the collection ``name``, made if missing.

    Got first: the usual case, and a cheaper request than ``get_or_create_collection`` (on a
    server a GET, 1 ms here, against a POST, 2 ms).
    """
    from chromadb.errors import NotFoundError

    try:
        return client.get_collection(name, embedding_function=None)
    except NotFoundError:
        return client.get_or_create_collection(
            name, configuration=configuration, embedding_function=None
        )


def http_settings() -> Any:
    """Return the settings of a server's client: no telemetry, and no CA bundle loaded.

    A ``chroma://`` URL is plain HTTP, so the client never checks a certificate. Not when a
    proxy is set for HTTP (it could be reached over TLS).
    """
    from chromadb.config import Settings

    proxies = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
    verify = None if any(os.environ.get(name) for name in proxies) else False
    return Settings(anonymized_telemetry=False, chroma_server_ssl_verify=verify)


def close(client: Any) -> None:
    """Close the client, and its HTTP connections once no client of this process shares them.

    ``close`` releases the client's share of its ``System``, whose ``stop`` leaves the HTTP
    client's connection pool open (chromadb 1.5): it is closed here, through private names,
    when the last client of that server is gone.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    owners = [client, getattr(client, "_admin_client", None)]
    sessions = [
        (getattr(o, "_identifier", None), getattr(getattr(o, "_server", None), "_session", None))
        for o in owners
    ]
    client.close()
    refcounts = getattr(SharedSystemClient, "_identifier_to_refcount", {})
    for identifier, session in sessions:
        if session is not None and refcounts.get(identifier, 0) == 0:
            session.close()
