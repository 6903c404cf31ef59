"""``ragchunk inspect -O key=value`` takes the parse options ``split -O`` takes (issue 31).

So the text a chunk's offsets index into can be checked by slicing under the same options.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
FAQ = FIXTURES / "tables" / "faq.csv"


def test_parse_options_change_the_text_as_they_change_splits() -> None:
    plain = runner.invoke(app, ["inspect", str(FAQ), "--text"])
    bare = runner.invoke(app, ["inspect", str(FAQ), "--text", "-O", "header=false"])
    assert plain.exit_code == 0, plain.output
    assert bare.exit_code == 0, bare.output
    assert bare.stdout != plain.stdout
    split = runner.invoke(app, ["split", str(FAQ), "-O", "header=false"])
    assert split.exit_code == 0, split.output
    for line in split.stdout.splitlines():
        record = json.loads(line)
        assert bare.stdout[record["start"] : record["end"]] == record["text"]


def test_an_option_that_is_not_a_parse_option_is_a_usage_error() -> None:
    result = runner.invoke(app, ["inspect", str(FAQ), "-O", "separators=x"])
    assert result.exit_code == 2
    assert "separators" in result.stderr
    assert "Traceback" not in result.output
