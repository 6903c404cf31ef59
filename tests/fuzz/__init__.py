"""Fuzzing: targets.py (the properties), run.py (atheris), test_fuzz.py (CI)."""
