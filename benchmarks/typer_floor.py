"""The floor for a Typer command line's start-up: a minimal application with two commands.

``python benchmarks/typer_floor.py --help`` is what any Typer CLI pays before it does anything:
the interpreter, Typer (and, with Typer's defaults, rich for the help), and building the Click
group of two commands. ``benchmarks/whole_runs.py`` times ``ragchunk --help`` against it.
"""

from __future__ import annotations

import typer

app = typer.Typer()


@app.command()
def hello(name: str, count: int = 1) -> None:
    """Say hello to NAME, COUNT times."""
    for _ in range(count):
        typer.echo(f"hello {name}")


@app.command()
def goodbye(name: str, *, formal: bool = False) -> None:
    """Say goodbye to NAME."""
    typer.echo(f"{'farewell' if formal else 'bye'} {name}")


if __name__ == "__main__":
    app()
