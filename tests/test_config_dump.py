"""`render.py config`: default.toml's comments kept, the user's values in place, nothing derived written."""

import re
import tomllib

import numpy as np
import pytest

from attn_math import worked_example
from lesson.config import DEFAULT_CONFIG, load_config, valid_keys
from lesson.config_dump import documented_toml
from lesson.locale import LOCALES

DEFAULT_TEXT = DEFAULT_CONFIG.read_text(encoding="utf-8")
ENGLISH = tomllib.loads((LOCALES / "en.toml").read_text(encoding="utf-8"))["config"]


def saved(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


CUSTOM_FILE = """\
[matrix]
X = [[1, 0, 2], [0, 1, -1], [1, 1, 0], [2, 0.5, 1]]
W_Q = [[1, 0], [0, 1], [1, 1]]
W_K = [[0, 1], [1, 0], [1, -1]]
W_V = [[1], [0], [2]]
causal = true

[pipeline]
sentence = "red"
query = 3
W_Q = [[1, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0]]
W_K = [[0, 0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0]]
"""

CONFIGS = [
    ("nothing", None, ()),
    ("preset and temperature", None, ("matrix.preset='large_scores'", "pipeline.temperature=0.5")),
    ("custom matrices", "custom", ()),
    ("custom matrices and overrides", "custom", ("pipeline.temperature=2.5", "capital.identity=-0.25",
                                                "heads.sentence='ella lo vio'", "scaling.d_k=7")),
    ("English", None, ("lecture.lang='en'",)),
    ("English with its own sentence", None, ("lecture.lang='en'", "heads.sentence='she saw it'",
                                             "narration.voice='bf_emma'")),
    ("Spanish keys kept under English", "custom", ("lecture.lang='en'", "pipeline.W_V=[[1,0,0,0,0,0,0,0]]")),
]


@pytest.mark.parametrize("name, file, overrides", CONFIGS, ids=[case[0] for case in CONFIGS])
def test_the_dump_loads_back_to_the_same_config(tmp_path, name, file, overrides):
    config_file = saved(tmp_path, CUSTOM_FILE, "custom.toml") if file else None
    dump = saved(tmp_path, documented_toml(config_file, overrides))
    assert load_config(dump) == load_config(config_file, overrides)
    assert load_config(dump).effective() == load_config(config_file, overrides).effective()
    assert documented_toml(dump) == dump.read_text(encoding="utf-8")  # a saved file printed again is the same


def test_the_default_dump_is_default_toml(no_personal_settings):
    assert documented_toml() == DEFAULT_TEXT.replace(
        f'\nsentence = "{tomllib.loads(DEFAULT_TEXT)["heads"]["sentence"]}"',
        f'\n# sentence = "{tomllib.loads(DEFAULT_TEXT)["heads"]["sentence"]}"').replace(
        '\nvoice = "ef_dora"', '\n# voice = "ef_dora"').replace('\ndialect = "es"', '\n# dialect = "es"')


def test_every_comment_is_kept_and_no_derived_matrix_is_written(tmp_path):
    dump = documented_toml(saved(tmp_path, CUSTOM_FILE), ("pipeline.temperature=0.5",))
    keys = {key for names in valid_keys().values() for key in names}
    comments = [line for line in DEFAULT_TEXT.splitlines()  # but the line that says whose matrices follow
                if line.startswith("#") and not re.match(rf"# ({'|'.join(keys)}) = ", line)
                and not line.endswith("preset's:")]
    assert [line for line in dump.splitlines() if line in comments] == comments
    assert "temperature = 0.5" in dump.splitlines()
    default_dump = tomllib.loads(documented_toml())
    assert not {"X", "W_Q", "W_K", "W_V"} & set(default_dump["matrix"])  # the preset's stay out
    assert "identity" not in default_dump["capital"] and "W_Q" not in default_dump["pipeline"]


def test_optional_keys_are_shown_commented_once_each():
    """Every key of the schema has one line in its table of default.toml: `key = ...` or `# key = ...`."""
    tables = re.split(r"^\[(\w+)\]$", DEFAULT_TEXT, flags=re.M)[1:]
    for table, body in zip(tables[::2], tables[1::2]):
        for key in valid_keys()[table]:
            lines = re.findall(rf"^(?:# )?{key} = (.*)$", body, flags=re.M)
            assert len(lines) == 1, (table, key, lines)
            tomllib.loads(f"value = {lines[0]}")  # an uncommented example is valid TOML
    for optional in ("matrix.X", "matrix.W_Q", "matrix.W_K", "matrix.W_V", "capital.identity",
                     "pipeline.W_Q", "pipeline.W_K", "pipeline.W_V"):
        table, key = optional.split(".")
        assert re.search(rf"^# {key} = ", DEFAULT_TEXT.split(f"[{table}]")[1].split("\n[")[0], flags=re.M)


def test_uncommented_examples_load(tmp_path):
    """Removing the "# " of every optional key's example gives a config that loads; the matrix section's
    examples are the default preset's, as the comment says."""
    text = re.sub(r"^# (X|W_Q|W_K|W_V|identity) = ", r"\1 = ", documented_toml(), flags=re.M)
    config = load_config(saved(tmp_path, text))
    assert config.matrix.W_V is not None and config.pipeline.W_V is not None and config.capital.identity == 0.0
    for name, matrix in config.matrix.matrices().items():
        np.testing.assert_array_equal(matrix, getattr(worked_example, name))


def test_changing_the_preset_in_the_saved_file_changes_the_matrices(tmp_path):
    text = documented_toml(None, ("pipeline.temperature=0.5",))
    assert text.count('preset = "default"') == 1
    edited = saved(tmp_path, text.replace('preset = "default"', 'preset = "large_scores"'))
    np.testing.assert_array_equal(load_config(edited).matrix.matrices()["X"], 3 * worked_example.X)


def test_the_language_defaults_follow_lang_in_the_saved_file(tmp_path):
    spanish = saved(tmp_path, documented_toml())
    english = saved(tmp_path, spanish.read_text(encoding="utf-8").replace('lang = "es"', 'lang = "en"'), "en.toml")
    config = load_config(english)
    assert config.heads.sentence == ENGLISH["heads"]["sentence"]
    assert config.pipeline.sentence == load_config().pipeline.sentence  # the lab's sentence in every language
    assert config.narration.voice == ENGLISH["narration"]["voice"]


def test_user_values_replace_defaults_in_place(tmp_path):
    dump = documented_toml(saved(tmp_path, CUSTOM_FILE), ("lecture.lang='en'", "heads.sentence='she saw it'"))
    lines = dump.splitlines()
    assert "X = [[1, 0, 2], [0, 1, -1], [1, 1, 0], [2, 0.5, 1]]" in lines
    assert 'sentence = "red"' in lines and 'sentence = "she saw it"' in lines
    assert f'# voice = "{ENGLISH["narration"]["voice"]}"' in lines
    matrix = dump.split("[matrix]")[1].split("\n[")[0].splitlines()
    assert matrix.index("causal = true") > matrix.index("W_V = [[1], [0], [2]]")  # the key's own place


# default.toml written by hand as TOML allows: a comment after a value, an array over several lines.
HAND_WRITTEN = {
    'country = "france"\n': 'country = "france"  # the blank\'s\n',
    "temperatures = [0.2, 1.0, 3.0]\n": "temperatures = [\n    0.2,\n    1.0,\n    3.0,\n]  # the closing part's\n",
}


@pytest.fixture
def hand_written_default(tmp_path, monkeypatch):
    """default.toml with HAND_WRITTEN's lines in place of its own, as the dump's template."""
    text = DEFAULT_TEXT
    for line, hand_written in HAND_WRITTEN.items():
        assert text.count(line) == 1, line
        text = text.replace(line, hand_written)
    monkeypatch.setattr("lesson.config_dump.DEFAULT_CONFIG", saved(tmp_path, text, "default.toml"))
    return text


def test_values_over_several_lines_and_comments_after_them_come_through(tmp_path, hand_written_default,
                                                                        no_personal_settings):
    overrides = ("pipeline.temperatures=[0.5, 2.5]", "capital.country='italy'")
    dump = documented_toml(None, overrides)
    assert load_config(saved(tmp_path, dump)) == load_config(None, overrides)
    assert {'country = "italy"  # the blank\'s', "temperatures = [0.5, 2.5]  # the closing part's"} <= set(
        dump.splitlines())
    assert documented_toml() == hand_written_default.replace(  # nothing given: the template itself
        '\nsentence = "el perro', '\n# sentence = "el perro').replace('\nvoice = "ef_dora"', '\n# voice = "ef_dora"').replace(
        '\ndialect = "es"', '\n# dialect = "es"')


def preset_comment(dump: str) -> tuple[str, dict]:
    """The matrix table's line that says whose matrices follow, and the matrices under it (uncommented)."""
    body = dump.split("[matrix]")[1].split("\n[")[0]
    line = next(line for line in body.splitlines() if "Entries between -10 and 10." in line)
    below = body.split(line)[1]
    rows = re.findall(r"^(?:# )?((?:X|W_Q|W_K|W_V) = .*)$", below, flags=re.M)
    return line.split("Entries between -10 and 10. ")[1], tomllib.loads("\n".join(rows))


@pytest.mark.parametrize("preset", worked_example.PRESETS)
def test_the_examples_under_the_preset_line_are_the_chosen_presets(preset):
    """A lecturer who chose a preset and saves `config` reads that preset's matrices (X tripled for
    large_scores, W_K = W_Q for shared_projection), not the default's."""
    whose, matrices = preset_comment(documented_toml(None, (f'matrix.preset="{preset}"',)))
    assert whose == f'The "{preset}" preset\'s:'
    chosen = worked_example.PRESETS[preset]
    for name in ("X", "W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(matrices[name], getattr(chosen, name))


def test_own_matrices_are_said_to_be_yours(tmp_path):
    """Own matrices are not labelled as the default preset's; with only X given, the others are the preset's."""
    whose, matrices = preset_comment(documented_toml(None, ("matrix.X=[[1, 2], [3, 4]]",)))
    assert whose == 'Yours, and the "default" preset\'s for those you did not give:'
    assert matrices["X"] == [[1, 2], [3, 4]]
    np.testing.assert_array_equal(matrices["W_Q"], worked_example.default.W_Q)
    given = tuple(f"matrix.{name}=[[1, 0], [0, 1]]" for name in ("W_Q", "W_K", "W_V"))
    whose, _ = preset_comment(documented_toml(None, ("matrix.X=[[1, 2], [3, 4]]", *given)))
    assert whose == "Yours:"
