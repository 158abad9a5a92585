"""The tests' shared renders (media_checks.rendered_once): a render is made once for the session, and a name
asked for again with other arguments is refused, never answered with the render another module asked for."""

import subprocess

import pytest

from media_checks import rendered_once


class Factory:
    """tmp_path_factory's one method that rendered_once reads, with ``folder`` as the session's base."""

    def __init__(self, folder):
        self.folder = folder

    def getbasetemp(self):
        return self.folder


@pytest.fixture
def counted_cli():
    """A stand-in for run_cli that renders nothing and counts its calls."""
    calls = []

    def fake_cli(*arguments, timeout):
        calls.append(arguments)
        return subprocess.CompletedProcess(arguments, 0, "", f"run {len(calls)}")

    fake_cli.calls = calls
    return fake_cli


def test_the_same_render_asked_twice_runs_once(tmp_path, counted_cli):
    factory = Factory(tmp_path / "base")
    factory.folder.mkdir()
    first = rendered_once(factory, "shared", "render", "matrix", cli=counted_cli)
    again = rendered_once(factory, "shared", "render", "matrix", cli=counted_cli)
    assert first[0] == again[0] and again[1].stderr == "run 1" and len(counted_cli.calls) == 1


@pytest.mark.parametrize("other", [{"arguments": ("render", "matrix", "--clean")},
                                   {"arguments": ("render", "matrix"), "start_from": "elsewhere"}])
def test_a_name_asked_for_with_other_arguments_is_refused(tmp_path, counted_cli, other):
    factory = Factory(tmp_path / "base")
    factory.folder.mkdir()
    (tmp_path / "elsewhere").mkdir()
    rendered_once(factory, "shared", "render", "matrix", cli=counted_cli)
    start = other.get("start_from") and tmp_path / other["start_from"]
    with pytest.raises(ValueError, match="rendered_once\\('shared'\\)"):
        rendered_once(factory, "shared", *other["arguments"], start_from=start, cli=counted_cli)
    assert len(counted_cli.calls) == 1
