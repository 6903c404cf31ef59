"""Writers: JSONL records (``jsonl``), a rich preview table (``table``), summaries (``stats``)."""
