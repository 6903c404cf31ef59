"""An evaluation's report as JSON, and its plot (recall and IoU against mean chunk size).

The plot needs matplotlib (the ``eval`` extra), imported only when a plot is asked for.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from ragchunk.evaluation.run import Report, SetupResult

EXTRA_HINT: Final = "pip install 'ragchunk[eval]'"
PLOT_SUFFIXES: Final = (".png", ".svg")
SCHEMA: Final = 1
"""The version of the JSON report's shape."""


def report_json(report: Report) -> dict[str, Any]:
    """Return the report as JSON values: setups, their scores, documents and questions."""
    return {"schema": SCHEMA, **dataclasses.asdict(report)}


def check_plot(path: str) -> None:
    """Check, before any work, that ``path`` can be plotted to (suffix, matplotlib installed).

    Raises:
        UsageError: the suffix is not .png or .svg, or matplotlib is missing.
    """
    if Path(path).suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(f"--plot must name a .png or .svg file (got {path!r})")
    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError(f"--plot needs matplotlib: {EXTRA_HINT}")


def plot(report: Report, path: str) -> None:
    """Draw recall and IoU (tokens) against mean chunk size (tokens), a line per strategy.

    Raises:
        UsageError: the file cannot be written, or matplotlib is missing.
    """
    check_plot(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    strategies: dict[str, list[SetupResult]] = {}
    for setup in report.setups:
        strategies.setdefault(setup.strategy, []).append(setup)
    figure, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    try:
        for axis, title, pick in ((axes[0], "Recall", _recall), (axes[1], "IoU", _iou)):
            for strategy, setups in strategies.items():
                ordered = sorted(setups, key=lambda s: s.mean_tokens)
                axis.plot(
                    [s.mean_tokens for s in ordered],
                    [pick(s) for s in ordered],
                    marker="o",
                    label=strategy,
                )
                for setup in ordered:
                    axis.annotate(
                        setup.name,
                        (setup.mean_tokens, pick(setup)),
                        textcoords="offset points",
                        xytext=(4, 4),
                        fontsize=7,
                    )
            axis.set_title(f"{title} (top {report.top_k}, tokens)")
            axis.set_xlabel("mean chunk size (cl100k_base tokens)")
            axis.set_ylabel(title)
            axis.set_ylim(bottom=0)
            axis.grid(visible=True, alpha=0.3)
            axis.legend()
        try:
            figure.savefig(path, dpi=100)
        except OSError as exc:
            raise UsageError(f"--plot: cannot write {path} ({exc.strerror or exc})") from None
    finally:
        plt.close(figure)


def _recall(setup: SetupResult) -> float:
    return setup.tokens.recall


def _iou(setup: SetupResult) -> float:
    return setup.tokens.iou
