"""One document, from bytes to records: the engine behind ``split``, ``chunk_text`` and workers.

``plan`` (a validated ``Plan``, made once before any file is read; ``scopes`` a plan per scope of
a configuration file, ``parents`` the ``--parents`` level), ``reading`` (bytes and parsing),
``engine`` (one input: read, parse, chunk, passes, records, ``--check``; errors become
results), ``cutting`` (the strategy and the passes over a document or a parent's window),
``context`` (the ``Context`` a strategy runs in), ``passes`` and ``merge`` (``--contextualize``,
``--min-size``), ``embedding`` (``--refine``, ``--embed``), ``rewrite`` and ``prompts`` (the
chat model's rewrite: proposition, resume), ``family`` (``--parents``), ``chunks`` (spans to
records), ``check`` (SPEC §3's invariants), ``results`` (``FileResult``, ``Diagnostic``) and
``deadline`` (``--timeout``).

Nothing is imported here: ``ragchunk --help`` loads none of these modules.
"""
