"""Benchmarks for ragchunk against its peers: corpus builder, harness, profiles (issue 8).

Run ``python benchmarks/run.py``; see ``benchmarks/README.md``.
"""
