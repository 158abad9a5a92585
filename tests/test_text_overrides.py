"""Your own words (issue 41): a ``[text]`` table in any config layer replaces the locale's texts under its keys, on
screen, in the subtitles and the manifest's steps and questions; each text is checked in one line (exit status 2);
a changed text renders its section again and no other."""

from __future__ import annotations

import re
import tomllib

import pytest
import srt

from lecture.folder_config import folder_config
from lesson.config import DEFAULT_CONFIG, ConfigError, load_config
from lesson.config_dump import documented_toml
from lesson.locale import LOCALES
from media_checks import copy_of, manifest, run_cli, run_quick_cli, session_folder

TINY = ("--resolution", "256x144", "--fps", "5", "-j", "1")
SPANISH = tomllib.loads((LOCALES / "es.toml").read_text(encoding="utf-8"))
DOCS = (DEFAULT_CONFIG.parent.parent / "docs" / "config.md").read_text(encoding="utf-8")
# Four tokens of dimension 2 (the default W's are 2 x 2): the texts' {n}, {d}, {d_k}, {d_v} are 4, 2, 2, 2.
MINE = """
[matrix]
X = [[1, 0], [0, 2], [1, 1], [2, 1]]

[text.matrix.steps.inputs]
caption = "Mis {n} palabras, cada una un vector de dimensión {d}."
question = "¿Qué forma tiene Q si X es n × d?"
answer = "Q es {n} × {d_k}, K también, y V es {n} × {d_v}."
"""
CAPTION = "Mis 4 palabras, cada una un vector de dimensión 2."


def saved(folder, text: str, name: str = "mine.toml"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The matrix and quick sections rendered tiny with MINE, clean (the captions are the subtitles)."""
    folder = session_folder(tmp_path_factory) / "text-overrides"
    folder.mkdir(exist_ok=True)
    out = folder / "out"
    result = run_quick_cli("render", "matrix", "quick", *TINY, "--clean", "-c", str(saved(folder, MINE)),
                           "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def step(entry: dict, key: str) -> dict:
    return next(record for record in entry["steps"] if record["key"] == key)


def test_a_caption_of_ones_own_is_the_steps_caption_and_its_subtitle(rendered):
    entry = manifest(rendered)["sections"]["matrix"]
    assert step(entry, "inputs")["caption"] == CAPTION
    assert step(entry, "queries")["caption"] == SPANISH["matrix"]["steps"]["queries"]["caption"]  # the others stay
    for name in ("01-matrix.srt", "lecture.srt"):
        cues = [" ".join(cue.content.split()) for cue in srt.parse((rendered / name).read_text(encoding="utf-8"))]
        assert CAPTION in cues, name


def test_a_question_of_ones_own_is_in_the_manifests_questions(rendered):
    questions = {question["key"]: question for question in manifest(rendered)["sections"]["matrix"]["questions"]}
    assert questions["inputs"]["question"] == "¿Qué forma tiene Q si X es n × d?"
    assert questions["inputs"]["answer"] == "Q es 4 × 2, K también, y V es 4 × 2."


def test_the_folders_recorded_config_keeps_the_texts(rendered):
    """What `slides`, `storyboard` and `site` read a folder's config from: its manifest's tables."""
    config, _ = folder_config(rendered, ("matrix",))
    assert config.locale()["matrix"]["steps"]["inputs"]["caption"] == tomllib.loads(MINE)["text"]["matrix"]["steps"][
        "inputs"]["caption"]


def test_a_changed_text_renders_its_section_again_and_no_other(rendered, tmp_path):
    out = copy_of(rendered, tmp_path / "out")
    before = manifest(out)["sections"]
    changed = MINE + '\n[text.quick.steps.last]\ncaption = "Y al final, {last}."\n'
    result = run_quick_cli("render", "matrix", "quick", *TINY, "--clean", "-c", str(saved(tmp_path, changed)),
                           "-o", str(out))
    assert result.returncode == 0, result.stderr
    after = manifest(out)["sections"]
    assert "01-matrix: up to date, skipped" in result.stderr
    assert after["matrix"]["sha256"] == before["matrix"]["sha256"]
    assert step(after["quick"], "last")["caption"] == "Y al final, 0.25."  # the quick section's 1, 0.5, 0.25
    assert after["quick"]["sha256"] != before["quick"]["sha256"]


@pytest.mark.parametrize("override, message", [
    ('text.matrix.steps.inputs.captoin="x"',
     "text.matrix.steps.inputs.captoin: unknown key; did you mean 'text.matrix.steps.inputs.caption'?"),
    ('text.matrix.steps.inputs.caption="Mis palabras, de dimensión {d}."',
     "text.matrix.steps.inputs.caption: the placeholder {n} is missing"),
    ('text.matrix.steps.inputs.answer="Q es {n} × {dk}, y V es {n} × {d_v}."',
     "text.matrix.steps.inputs.answer: unknown placeholder {dk}; did you mean '{d_k}'?"),
])
def test_a_bad_text_is_refused_in_one_line_before_anything_is_written(tmp_path, override, message):
    result = run_cli("render", "matrix", "-o", str(tmp_path / "out"), "--set", override)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert message in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_misspelt_table_in_a_file_is_named_with_the_nearest(tmp_path):
    mine = saved(tmp_path, '[text.matrix.steps.inptus]\ncaption = "{n} y {d}."\n')
    with pytest.raises(ConfigError, match=re.escape("text.matrix.steps.inptus: unknown key; did you mean "
                                                    "'text.matrix.steps.inputs'?")):
        load_config(mine)


@pytest.mark.parametrize("override, message", [
    ("text.matrix.steps.inputs.caption=3", "text.matrix.steps.inputs.caption: expected a text (a string), got 3"),
    ('text.matrix.steps="Pasos"', "text.matrix.steps: expected a table of texts, got 'Pasos'"),
    ('text.heads.labels.head_names="a"', "text.heads.labels.head_names: the locale's is a list, not a text"),
    ('text.matrix.steps.queries.narration="Multiplicamos X por W_Q."',
     "text.matrix.steps.queries.narration: expected the markers [[library]] in this order"),
    ('text.matrix.steps.softmax.caption="Cada fila suma 1. [[weights]]"',
     "text.matrix.steps.softmax.caption: expected no [[marker]], got [[weights]]"),
    ('text.matrix.steps.keys.title="Claves {n}"', "text.matrix.steps.keys.title: unknown placeholder {n}; "
                                                   "the locale's text has none"),
    ('text.matrix.steps.inputs.caption="{n:>4} y {d}."', "write the placeholder {n} as it is, without ':>4'"),
    ('text.matrix.steps.inputs.caption="{n} y {d} {"', "text.matrix.steps.inputs.caption: Single '{'"),
    ('text.matrix.steps.keys.title="Cla\u200bves"', "text.matrix.steps.keys.title: expected visible characters on "
                                                    "one line, found U+200B ZERO WIDTH SPACE"),
    ('text.matrix.steps.keys.title="Claves\\nK"', "found U+000A"),
    ('text.matrix.steps.keys.title="Las claves según ' + "א" + '"', "expected Latin, Greek or Cyrillic letters"),
    ('text.matrix.steps.keys.title=""', "text.matrix.steps.keys.title: expected a text, got an empty one"),
    (f'text.matrix.steps.keys.title="{"clave " * 20}"', "expected at most 80 characters"),
    ('text.lecture.language="es-MX"', "text.lecture.language: unknown key; did you mean 'text.lecture.title'?"),
])
def test_each_check_is_one_line_naming_the_key(override, message):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(override,))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_texts_keep_the_layers_order(tmp_path, monkeypatch):
    """Your settings < -c FILE < --set, as every other key."""
    (tmp_path / "atencion").mkdir()
    saved(tmp_path / "atencion", '[text.matrix.steps.keys]\ntitle = "Mis claves"\ncaption = "Mis etiquetas."\n'
          'question = "¿Y si W_K fuera W_Q?"\n', "config.toml")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    mine = saved(tmp_path, '[text.matrix.steps.keys]\ntitle = "Claves del archivo"\ncaption = "Del archivo."\n')
    keys = load_config(mine, ('text.matrix.steps.keys.caption="De --set."',)).locale()["matrix"]["steps"]["keys"]
    assert (keys["question"], keys["title"], keys["caption"]) == ("¿Y si W_K fuera W_Q?", "Claves del archivo",
                                                                  "De --set.")


def test_a_text_changes_its_sections_table_only():
    """What a render's fingerprint reads: a section's texts (its closing's too) in its table, the lecture's in the
    lecture table (every section shows its cards' heading)."""
    plain = load_config().effective()
    mine = load_config(overrides=('text.heads.steps.sentence.title="La frase"',
                                  'text.closing.matrix.question="¿Y con {long_n} tokens y d_k = {d_k}?"')).effective()
    assert [table for table in plain if plain[table] != mine[table]] == ["matrix", "heads"]
    lecture = load_config(overrides=('text.lecture.question="Piensa"',)).effective()
    assert [table for table in plain if plain[table] != lecture[table]] == ["lecture"]


def test_render_config_prints_the_texts_and_its_output_loads_back(tmp_path):
    mine = saved(tmp_path, MINE)
    result = run_cli("config", "-c", str(mine))
    assert result.returncode == 0, result.stderr
    assert '[text.matrix.steps.inputs]\ncaption = "Mis {n} palabras, cada una un vector de dimensión {d}."' \
        in result.stdout
    assert load_config(saved(tmp_path, result.stdout, "dump.toml")) == load_config(mine)


def test_the_examples_of_default_toml_and_the_docs_load(tmp_path):
    """default.toml's commented line for each table of [text], uncommented, and docs/config.md's example."""
    uncommented = re.sub(r"^# (\w+ = \{)", r"\1", documented_toml().split("\n[text]\n")[1], flags=re.M)
    examples = tomllib.loads(uncommented)
    assert load_config(saved(tmp_path, f"[text]\n{uncommented}")).text.effective() == examples
    documented = DOCS.split("## Your own words")[1].split("```toml\n")[1].split("```")[0]
    assert load_config(saved(tmp_path, documented, "docs.toml")).text.effective() == tomllib.loads(documented)["text"]
