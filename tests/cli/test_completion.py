"""Shell completion: the committed scripts match the CLI, and they complete in real shells."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from ragchunk import strategies
from ragchunk.cli._completion import SCRIPTS, main, render
from tests.conftest import FIXTURES, ROOT

COMPLETIONS = ROOT / "completions"


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_committed_scripts_are_up_to_date(shell: str) -> None:
    committed = (COMPLETIONS / SCRIPTS[shell]).read_text(encoding="utf-8")
    assert committed == render(shell), (
        f"completions/{SCRIPTS[shell]} is out of date: run python -m ragchunk.cli._completion"
    )


def test_check_mode_reports_stale_scripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(SCRIPTS.values())
    assert main([str(tmp_path), "--check"]) == 0
    (tmp_path / SCRIPTS["fish"]).write_text("# old\n")
    assert main([str(tmp_path), "--check"]) == 1
    assert capsys.readouterr().err == (
        f"out of date: {tmp_path / SCRIPTS['fish']}; run python -m ragchunk.cli._completion\n"
    )


def bash_complete(*words: str, cwd: Path = ROOT) -> list[str]:
    """Complete the last of ``words`` as bash would after ``ragchunk``."""
    quoted = " ".join(shlex.quote(word) for word in words)
    script = (
        f"source {COMPLETIONS / SCRIPTS['bash']}\n"
        f"COMP_WORDS=(ragchunk {quoted})\n"
        f"COMP_CWORD={len(words)}\n"
        "_ragchunk\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
        timeout=30,
    )
    return result.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
class TestBash:
    def test_commands(self) -> None:
        assert bash_complete("s") == ["split", "stats", "strategies"]

    def test_strategy_names_and_units(self) -> None:
        assert bash_complete("split", "-s", "") == list(strategies.names())
        assert bash_complete("split", "--unit", "t") == ["tokens"]
        assert bash_complete("strategies", "rec") == ["recursive"]

    def test_options_of_a_command(self) -> None:
        assert bash_complete("split", "--no") == ["--no-gitignore", "--notes", "--no-cache"]
        assert bash_complete("split", "--no-") == ["--no-gitignore", "--no-cache"]
        assert bash_complete("stats", "--l") == ["--limit"]
        assert "--manifest" in bash_complete("split", "--ma")

    def test_paths(self) -> None:
        assert bash_complete("split", "tex", cwd=FIXTURES) == ["text"]
        assert bash_complete("split", "-o", "tex", cwd=FIXTURES) == ["text"]

    def test_strategy_option_keys_end_in_equals(self) -> None:
        assert "separators=" in bash_complete("split", "-O", "")


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script_parses() -> None:
    subprocess.run(["zsh", "-n", str(COMPLETIONS / SCRIPTS["zsh"])], check=True, timeout=30)


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes() -> None:
    script = COMPLETIONS / SCRIPTS["fish"]
    subprocess.run(["fish", "-n", str(script)], check=True, timeout=30)
    result = subprocess.run(
        ["fish", "--no-config", "-c", f"source {script}; complete -C 'ragchunk split -s '"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    names = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert names == list(strategies.names())
