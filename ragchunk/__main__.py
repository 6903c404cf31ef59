"""``python -m ragchunk`` runs the command line."""

from ragchunk.cli import main

main()
