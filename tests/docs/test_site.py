"""The documentation: README.md fits on a screen, the site builds strictly, links resolve.

``mkdocs build --strict`` (mkdocs.yml: broken links, missing anchors and pages left out of the
navigation are warnings, and strict turns them into failures) builds ``docs/`` into a temporary
directory. Links from README.md must also work on GitHub, which slugs headings its own way: each
``*.md#anchor`` link of README.md and docs/ is checked against GitHub's slugs too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.commands import PAGES, ROOT
from tests.support.requirements import require_module

README = ROOT / "README.md"
MAX_README_LINES = 300
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def github_slugs(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file (fences skipped)."""
    slugs: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))  # a link: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        slugs.add(slug if seen == 0 else f"{slug}-{seen}")
    return slugs


def test_readme_fits_on_a_screen() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, len(lines)


def test_readme_has_a_line_for_every_strategy() -> None:
    from ragchunk import strategies

    readme = README.read_text(encoding="utf-8")
    table = readme[readme.index("| name | what it does |") :].split("\n\n")[0]
    named = set(re.findall(r"`([a-z]+)`", table))
    assert set(strategies.names()) <= named, set(strategies.names()) - named


def test_readme_set_up_commands_are_the_ones_ci_runs() -> None:
    """The README's second set-up command is what .ci/run does after its system packages."""
    readme = README.read_text(encoding="utf-8")
    main = (
        "python3 -m venv .venv && .venv/bin/pip install '.[formats]' && "
        ".venv/bin/ragchunk split fixtures/ --table --allow-empty"
    )
    tests = "python3 -m venv .venv && .venv/bin/pip install '.[test,integration]'"
    assert f"```sh\n{main}\n```" in readme
    assert f"```sh\n{tests} && .venv/bin/python -m pytest --cov\n```" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"{tests} && .venv/bin/python -m pytest --cov" in ci


def test_the_record_table_is_the_same_in_readme_and_docs() -> None:
    def table(path: Path) -> str:
        text = path.read_text(encoding="utf-8")
        start = text.index("| field | meaning |")
        end = text.index("\n\n", start)
        return text[start:end].replace("](docs/", "](")

    assert table(README) == table(ROOT / "docs" / "output.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve_on_github(page: Path) -> None:
    """Every relative link names a file that exists, and its anchor a heading GitHub slugs."""
    broken: list[str] = []
    text = page.read_text(encoding="utf-8")
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in github_slugs(linked):
            broken.append(f"{target}: no heading with that anchor on GitHub")
    assert not broken, broken


def test_docs_pages_do_not_link_outside_docs() -> None:
    """A docs page names a repository file outside docs/ as a path: the site could not link it."""
    for page in (ROOT / "docs").glob("*.md"):
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", target):
                assert not target.startswith("../"), (page.name, target)


@pytest.mark.timeout(300)
def test_site_builds_strictly_and_offline(tmp_path: Path) -> None:
    require_module("material", "pip install 'mkdocs-material>=9.5' (the test extra)")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("*.md"))
    for name in pages:
        built = site / ("index.html" if name == "index.md" else f"{name[:-3]}/index.html")
        assert built.is_file(), name
    for picture in ("view-compare.png", "view-report.png"):
        assert (site / picture).is_file()
    assert not (site / "screenshots.py").exists()
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        # Nothing is fetched when a page is opened: no web fonts, scripts or styles from afar.
        assert "fonts.googleapis" not in text, html
        assert not re.search(r"<(script|link)[^>]+(src|href)=\"https?://", text), html
    shutil.rmtree(site)
