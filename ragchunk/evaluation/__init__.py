"""Retrieval evaluation: question sets over documents, scored against chunk spans."""
