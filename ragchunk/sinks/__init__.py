"""Sinks: where a run's records go.

JSONL records (``jsonl``), Parquet (``parquet``), a rich preview table (``table``), summaries
(``stats``, ``stats_tables``), the mirrored output tree (``tree``) and atomic file writes
(``atomic``).
"""
