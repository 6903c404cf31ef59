"""Pure functions on ``(text, start, end)``: boundaries, packing and lines. Standard library only."""
