"""Language defaults (issue 15): default.toml < the locale's [config] < the file < --set."""

import tomllib

import pytest

import lesson.config
from lesson.config import DEFAULT_CONFIG, load_config
from lesson.locale import LOCALES

SPANISH = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
ENGLISH = tomllib.loads((LOCALES / "en.toml").read_text(encoding="utf-8"))["config"]


def english_keys(config) -> tuple:
    return config.heads.sentence, config.pipeline.sentence, config.narration.voice


def test_english_takes_the_locale_defaults_from_set_or_file(tmp_path):
    expected = (ENGLISH["heads"]["sentence"], SPANISH["pipeline"]["sentence"], ENGLISH["narration"]["voice"])  # the lab is Spanish
    assert english_keys(load_config(overrides=("lecture.lang='en'",))) == expected
    mine = tmp_path / "mine.toml"
    mine.write_text('[lecture]\nlang = "en"\n', encoding="utf-8")
    assert english_keys(load_config(mine)) == expected
    assert english_keys(load_config()) == (SPANISH["heads"]["sentence"], SPANISH["pipeline"]["sentence"],
                                           SPANISH["narration"]["voice"])


def test_the_file_and_set_win_over_the_language(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[lecture]\nlang = "en"\n[heads]\nsentence = "el perro ladró"\n', encoding="utf-8")
    config = load_config(mine, ("narration.voice='bf_emma'",))
    assert config.heads.sentence == "el perro ladró"
    assert config.narration.voice == "bf_emma" and config.narration.dialect == ENGLISH["narration"]["dialect"]
    assert config.pipeline.sentence == SPANISH["pipeline"]["sentence"]  # the lab's, in every language
    spanish_file = tmp_path / "es.toml"
    spanish_file.write_text('[heads]\nsentence = "ella lo vio"\n', encoding="utf-8")
    config = load_config(spanish_file, ("lecture.lang='en'",))  # --set lang keeps the file's sentence
    assert config.heads.sentence == "ella lo vio" and config.narration.voice == ENGLISH["narration"]["voice"]
    assert load_config(mine, ("lecture.lang='es'",)).narration.voice == SPANISH["narration"]["voice"]  # default.toml's


def test_a_language_table_is_any_partial_config(monkeypatch):
    """No key is wired by name: whatever the locale's [config] sets applies, under the file and --set."""
    tables = {"en": {"config": {"scaling": {"d_k": 8}, "lecture": {"questions": "none"}}}, "es": {}}
    real = lesson.config.load_locale  # the locale's other tables (the steps lecture.skip is checked against) stay
    monkeypatch.setattr(lesson.config, "load_locale", lambda language="es": real(language) | tables[language])
    english = load_config(overrides=("lecture.lang='en'",))
    assert english.scaling.d_k == 8 and english.lecture.questions == "none"
    assert load_config(overrides=("lecture.lang='en'", "scaling.d_k=16")).scaling.d_k == 16
    assert load_config().scaling.d_k == SPANISH["scaling"]["d_k"]
    load_config(overrides=("lecture.lang='en'",))
    assert tables["en"]["config"] == {"scaling": {"d_k": 8}, "lecture": {"questions": "none"}}  # not modified


@pytest.mark.parametrize("language", ["fr", 3, ["en"], "../es"])
def test_an_unknown_language_is_refused_by_the_schema(language):
    with pytest.raises(lesson.config.ConfigError, match=r"^lecture\.lang: "):
        load_config(overrides=(f"lecture.lang={language!r}".replace("'", '"'),))


@pytest.mark.parametrize("text", ["lecture = 3\n", "lecture = [1]\n", "[lecture]\nlang = 3\n"])
def test_a_lecture_table_that_is_not_one_is_refused_in_one_line(tmp_path, text):
    mine = tmp_path / "mine.toml"
    mine.write_text(text, encoding="utf-8")
    with pytest.raises(lesson.config.ConfigError, match=r"^lecture(\.lang)?: [^\n]*$"):
        load_config(mine)


def test_the_users_own_settings_come_between_the_language_and_the_file(tmp_path, monkeypatch):
    """~/.config/atencion/config.toml (here under XDG_CONFIG_HOME): over the defaults and the language's, under -c
    and --set. Without one, the lecture is narrated."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_config().narration.source == "tts" and not load_config().narration.silent
    (tmp_path / "atencion").mkdir()
    (tmp_path / "atencion" / "config.toml").write_text('[narration]\nsource = "none"\ndialect = "es-419"\n'
                                                       '[lecture]\nlang = "en"\n', encoding="utf-8")
    config = load_config()
    assert config.narration.silent and config.narration.dialect == "es-419"  # over the English locale's en-us
    assert config.heads.sentence == ENGLISH["heads"]["sentence"]  # the language it chose brings its defaults
    mine = tmp_path / "mine.toml"
    mine.write_text('[narration]\nsource = "tts"\n', encoding="utf-8")
    assert load_config(mine).narration.source == "tts"
    assert load_config(mine, ("narration.dialect='en-gb'",)).narration.dialect == "en-gb"
