"""Pure functions on ``(text, start, end)``: boundaries, packing, lines. Standard library only."""
