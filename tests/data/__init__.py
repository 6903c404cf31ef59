"""Test data: golden files, and the generator of the bad-input corpus (make_bad.py)."""
