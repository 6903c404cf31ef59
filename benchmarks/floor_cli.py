"""The floor for a JSONL chunking CLI: read, slice fixed windows, ``json.dumps`` each, write.

``python benchmarks/floor_cli.py FILE > out.jsonl`` does the least any such tool must do: decode
the file, cut 512-character windows that step by 462 (overlap 50), and write one JSON object
per chunk with its index, offsets and text. No boundary search, no ids, no line numbers: what
ragchunk does beyond this is what its extra time buys.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SIZE = 512
OVERLAP = 50


def main(path: str) -> None:
    text = Path(path).read_text(encoding="utf-8")
    step = SIZE - OVERLAP
    write = sys.stdout.write
    for index, start in enumerate(range(0, max(len(text) - OVERLAP, 1), step)):
        end = min(start + SIZE, len(text))
        record = {"index": index, "start": start, "end": end, "text": text[start:end]}
        write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
