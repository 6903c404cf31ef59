"""Many documents: a run over the inputs of ``split``, in input order.

``inputs`` (the files a run chunks: walks, ``ignores`` for ``.gitignore``, ``globs``),
``config`` (configuration files), ``batch`` (a run: output routing, the engine that runs it),
``workers`` and ``worker`` (in this process or a pool of worker processes, ``--jobs``),
``ray_jobs`` and ``ray_session`` (``--engine ray``: the jobs on a Ray cluster, joining or
starting it), ``dedupe`` (``--dedupe`` over a run's results, with its MinHash signatures and
near-duplicate search), ``manifest`` (incremental runs) and ``tally`` (what the run did).

Nothing is imported here: ``ragchunk --help`` loads none of these modules.
"""
