"""A language is declared once: its locale and its lexicon. A throwaway third language, two files in a temporary
folder named by ATENCION_ASSETS_EXTRA, renders a still through the real CLI; no code spells a language's default."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib

import pytest
import tomlkit
from PIL import Image

from attn_math.lexicon import DEFAULT_LANGUAGE, EXTRA_ASSETS
from lesson.config import DEFAULT_CONFIG
from lesson.locale import LOCALES
from media_checks import ROOT, TINY

THROWAWAY = "xx"
SENTENCE = "ella lo vio"  # the throwaway language's own default sentence for the heads section
COUNTER = "Xx {current} de {total}"
SPANISH = tomllib.loads((LOCALES / f"{DEFAULT_LANGUAGE}.toml").read_text(encoding="utf-8"))


def throwaway_title(title: str) -> str:
    return f"xx·{title}"


@pytest.fixture(scope="module")
def extra_assets(tmp_path_factory):
    """A folder with locales/xx.toml (the Spanish one with changed strings and its own default sentence) and
    lexicons/xx.toml (the Spanish word lists), as a contributor adding a language would write them."""
    folder = tmp_path_factory.mktemp("assets-extra")
    locale = tomlkit.parse((LOCALES / f"{DEFAULT_LANGUAGE}.toml").read_text(encoding="utf-8"))
    locale["lecture"]["step_counter"] = COUNTER
    locale["heads"]["title"] = throwaway_title(SPANISH["heads"]["title"])
    for step in locale["heads"]["steps"].values():
        step["title"] = throwaway_title(step["title"])
    locale["config"] = {"heads": {"sentence": SENTENCE}}
    (folder / "locales").mkdir()
    (folder / "locales" / f"{THROWAWAY}.toml").write_text(tomlkit.dumps(locale), encoding="utf-8")
    (folder / "lexicons").mkdir()
    lexicon = (LOCALES.parent / "lexicons" / f"{DEFAULT_LANGUAGE}.toml").read_text(encoding="utf-8")
    (folder / "lexicons" / f"{THROWAWAY}.toml").write_text(lexicon, encoding="utf-8")
    return folder


def cli(*arguments: str, extra=None) -> subprocess.CompletedProcess:
    """`python render.py ...`, with EXTRA_ASSETS naming ``extra`` when given."""
    environment = {key: value for key, value in os.environ.items() if key != EXTRA_ASSETS}
    if extra is not None:
        environment[EXTRA_ASSETS] = str(extra)
    return subprocess.run([sys.executable, str(ROOT / "render.py"), *arguments], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=environment)


def test_a_third_language_renders_a_still_in_its_own_words(extra_assets, tmp_path):
    result = cli("render", "heads", "--steps", "1", "--format", "png", *TINY, "--lang", THROWAWAY, "-o",
                 str(tmp_path), "-j", "1", extra=extra_assets)
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "manifest.json").read_text())["clips"]["03-heads-steps-01.png"]
    (still,) = (tmp_path / entry["files"][0]).glob("*.png")
    with Image.open(still) as image:
        image.load()
        assert image.size == (256, 144)
    first = next(iter(SPANISH["heads"]["steps"].values()))
    step = entry["steps"][0]
    shown = [text["text"] for text in step["texts"]]
    assert entry["lang"] == THROWAWAY
    assert step["title"] == throwaway_title(first["title"]) and step["title"] in shown
    assert COUNTER.format(current=1, total=len(SPANISH["heads"]["steps"])) in shown
    assert set(SENTENCE.split()) <= set(shown)  # the language's [config] sentence, read with its lexicon


def test_the_other_commands_offer_the_third_language_too(extra_assets):
    listed = cli("list", "--lang", THROWAWAY, extra=extra_assets)
    assert listed.returncode == 0, listed.stderr
    assert throwaway_title(SPANISH["heads"]["title"]) in listed.stdout
    dumped = cli("config", "--set", f"lecture.lang='{THROWAWAY}'", extra=extra_assets)
    assert dumped.returncode == 0, dumped.stderr
    assert tomllib.loads(dumped.stdout)["lecture"]["lang"] == THROWAWAY


def test_without_its_files_the_language_is_refused_in_one_line():
    result = cli("config", "--set", f"lecture.lang='{THROWAWAY}'")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: lecture.lang: expected 'es' or 'en', got '{THROWAWAY}'"]


def test_the_default_language_is_the_configs_and_no_function_spells_its_own():
    """Every parameter and field named lang defaults to DEFAULT_LANGUAGE (or None, or nothing), never to a code
    of its own."""
    assert tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))["lecture"]["lang"] == DEFAULT_LANGUAGE
    spelled = []
    for package in ("attn_math", "sonify", "lesson", "scenes", "lecture"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    spelled += [f"{path.relative_to(ROOT)}:{default.lineno}"
                                for default in lang_defaults(node)
                                if isinstance(default, ast.Constant) and isinstance(default.value, str)]
    assert not spelled, spelled


def lang_defaults(node: ast.FunctionDef | ast.ClassDef) -> list[ast.expr]:
    """The defaults of a function's parameters and of a dataclass's fields named lang."""
    if isinstance(node, ast.ClassDef):
        return [field.value for field in node.body if isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name) and field.target.id == "lang" and field.value]
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    pairs += [(argument, default) for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default]
    return [default for argument, default in pairs if argument.arg == "lang"]
