"""Real components for the tests: servers, a Ray cluster, a browser, and their fixtures.

See tests/support/README.md for what each starts, how long it takes, and its pitfalls; the
fixtures themselves are in tests/support/fixtures.py.
"""
