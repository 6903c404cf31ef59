"""``ragchunk eval``: how well each chunking configuration lets a retriever find the evidence.

``questions`` reads question files and finds their evidence in the documents; ``corpus``
parses the documents of DOCS once; ``setups`` makes the configurations (a sweep or named
setups); ``run`` chunks, embeds, retrieves and scores; ``metrics`` holds the pure span scores;
``report`` writes the JSON report and the plot; ``generate`` writes question files with a
chat model (``windows``, ``vetting`` and ``prompts`` are its parts). Nothing here prints.
"""
