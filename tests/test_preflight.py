"""A missing system dependency is caught before any render, with the package to install."""

import manimpango

from lecture.render import preflight
from media_checks import run_cli


def test_nothing_missing_on_a_set_up_machine():
    assert preflight.missing_system_dependencies() == []


def test_missing_font_names_its_package(monkeypatch):
    monkeypatch.setattr(manimpango, "list_fonts", lambda: ["DejaVu Sans"])
    problems = preflight.missing_system_dependencies()
    assert any("'Inter'" in problem and "fonts-inter" in problem for problem in problems)
    assert any("'JetBrains Mono'" in problem and "fonts-jetbrains-mono" in problem for problem in problems)


def test_missing_latex_stops_the_cli_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = run_cli("render", "matrix", "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "texlive-latex-base" in result.stderr
    assert not (tmp_path / "out").exists()
