"""Forgiving, precise config messages (issue 17): names compared case-insensitively first, the decimal comma,
shape errors that name both matrices of a product, and a --set value the shell split; every refusal one line
that quotes at most about 80 characters of a value, click's usage errors too (issue 31)."""

import re

import numpy as np
import pytest

from attn_math.attention import self_attention
from attn_math.sharp import PRESETS, preset_weights
from lesson.config import ConfigError, load_config
from lecture.cli_options import split_set_hint
from media_checks import run_cli


def refused(*overrides: str, config_file=None) -> str:
    with pytest.raises(ConfigError) as error:
        load_config(config_file, overrides)
    message = str(error.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("override, message", [
    ("matrix.w_q=[[1]]", "matrix.w_q: unknown key; did you mean 'matrix.W_Q'?"),
    ("matrix.x=[[1]]", "matrix.x: unknown key; did you mean 'matrix.X'?"),
    ("Matrix.X=[[1]]", "Matrix.X: unknown table; did you mean 'matrix'?"),
    ("pipeline.w_v=[[1]]", "pipeline.w_v: unknown key; did you mean 'pipeline.W_V'?"),
])
def test_names_that_differ_only_in_case_are_suggested_first(override, message):
    assert refused(override) == message


@pytest.mark.parametrize("override, message", [
    ("pipeline.temperature=0,5", "pipeline.temperature: expected a valid number, got '0,5'; use a decimal point: 0.5"),
    ("capital.identity=-0,25", "capital.identity: expected a valid number, got '-0,25'; use a decimal point: -0.25"),
    ("positional.base='10000,0'", "positional.base: expected a valid number, got '10000,0'; "
                                  "use a decimal point: 10000.0"),
])
def test_a_decimal_comma_in_set_hints_at_the_point(override, message):
    assert refused(override) == message


@pytest.mark.parametrize("override, message", [
    ("pipeline.temperature='0.5'", "pipeline.temperature: expected a valid number, got '0.5'; "
                                   "write the number without quotes: 0.5"),
    ("scaling.d_k='64'", "scaling.d_k: expected a valid integer, got '64'; write the number without quotes: 64"),
    ("positional.base='1e4'", "positional.base: expected a valid number, got '1e4'; "
                              "write the number without quotes: 1e4"),
    ("scaling.d_k='sesenta'", "scaling.d_k: expected a valid integer, got 'sesenta'"),
])
def test_a_quoted_number_hints_at_the_quotes(override, message):
    assert refused(override) == message


def test_a_decimal_comma_in_a_file_names_the_key_and_the_line(tmp_path):
    quoted = tmp_path / "quoted.toml"
    quoted.write_text('[pipeline]\ntemperature = "0,5"\n', encoding="utf-8")
    assert refused(config_file=quoted).endswith("got '0,5'; use a decimal point: 0.5")
    bare = tmp_path / "bare.toml"
    bare.write_text("[matrix]\nscale = true\n\n[pipeline]\n# comment\ntemperature = 0,5  # half\n", encoding="utf-8")
    assert refused(config_file=bare) == f"pipeline.temperature: {bare} line 6 has 0,5; use a decimal point: 0.5"
    other = tmp_path / "other.toml"
    other.write_text("[pipeline]\ntemperature = 0.5.5\n", encoding="utf-8")
    assert refused(config_file=other).startswith(f"config: {other} is not valid TOML: ")


@pytest.mark.parametrize("overrides, message", [
    (("matrix.W_Q=[[1,0],[0,1],[1,1]]",),
     "matrix.W_Q: X (the preset's) is 3x2, so W_Q needs 2 rows (2 x d_k), got 3x2"),
    (("matrix.W_V=[[1,0,0]]",), "matrix.W_V: X (the preset's) is 3x2, so W_V needs 2 rows (2 x d_v), got 1x3"),
    (("matrix.W_K=[[1,0,0],[0,1,0]]",),
     "matrix.W_K: W_Q (the preset's) is 2x2, so W_K needs 2 columns (Q K^T needs the same d_k), got 2x3"),
    (("matrix.W_Q=[[1,0,0],[0,1,0]]",),
     "matrix.W_Q: W_K (the preset's) is 2x2, so W_Q needs 2 columns (Q K^T needs the same d_k), got 2x3"),
    (("matrix.X=[[1,0,1],[0,1,1]]",), "matrix.X: W_Q (the preset's) is 2x2, so X needs 2 columns (n x 2), got 2x3"),
    (("matrix.W_K=[[1],[0]]", "matrix.W_Q=[[1,0],[0,1]]"),
     "matrix.W_K: W_Q is 2x2, so W_K needs 2 columns (Q K^T needs the same d_k), got 2x1"),
    (("matrix.X=[[1],[0]]", "matrix.W_Q=[[1]]", "matrix.W_K=[[1]]"),
     "matrix.X: W_V (the preset's) is 2x2, so X needs 2 columns (n x 2), got 2x1"),
    (("matrix.X=[[1],[0]]", "matrix.W_Q=[[1]]", "matrix.W_K=[[1]]", "matrix.W_V=[[1, 0], [0, 1]]"),
     "matrix.W_V: X is 2x1, so W_V needs 1 row (1 x d_v), got 2x2"),
    (("matrix.X=[[1,0,1],[0,1,1]]", "matrix.W_Q=[[1],[0]]"),
     "matrix.W_Q: X is 2x3, so W_Q needs 3 rows (3 x d_k), got 2x1"),
    (("pipeline.W_Q=[[1,0,0,0,0,0,0,0]]", "pipeline.W_K=[[1,0,0,0,0,0,0,0],[0,1,0,0,0,0,0,0]]"),
     "pipeline.W_K: W_Q is 1x8, so W_K needs 1 row (q . k needs the same d_k), got 2x8"),
    (("pipeline.W_V=[[1,0,0]]",),
     "pipeline.W_V: x (a token's embedding) has 8 dimensions, so W_V needs 8 columns (d_v x 8), got 1x3"),
])
def test_shape_errors_name_both_matrices_and_the_shape_needed(overrides, message):
    assert refused(*overrides) == message


@pytest.mark.parametrize("preset", PRESETS)
def test_a_pipeline_shape_error_names_the_chosen_presets_shape(preset):
    """The shape quoted is the preset's own W_K (lab: d_k = 8, sharp: d_k = 4), read from attn_math."""
    rows, columns = preset_weights(preset).W_K.shape
    assert refused(f'pipeline.preset="{preset}"', "pipeline.W_Q=[[1,0,0,0,0,0,0,0]]") == (
        f"pipeline.W_Q: W_K (the preset's) is {rows}x{columns}, so W_Q needs {rows} rows "
        "(q . k needs the same d_k), got 1x8")


def test_a_consistent_custom_shape_is_accepted():
    """The shapes each message asks for are the ones that work: d = 3, d_k = 1, d_v = 2 here."""
    config = load_config(overrides=("matrix.X=[[1,0,1],[0,1,1]]", "matrix.W_Q=[[1],[0],[2]]",
                                    "matrix.W_K=[[0],[1],[1]]", "matrix.W_V=[[1,0],[0,1],[1,1]]"))
    steps = self_attention(**config.matrix.matrices())
    assert steps.weights.shape == (2, 2) and steps.output.shape == (2, 2)
    np.testing.assert_allclose(steps.scores, [[3 * 1, 3 * 2], [2 * 1, 2 * 2]])  # Q = [3, 2], K = [1, 2]


def test_self_attention_alone_blames_the_weights():
    with pytest.raises(ValueError, match=r"^W_V: X is 3x2, so W_V needs 2 rows \(2 x d_v\), got 3x2$"):
        self_attention(np.ones((3, 2)), np.eye(2), np.eye(2), np.ones((3, 2)))


def test_one_word_is_singular():
    assert refused("pipeline.sentence='hola'", "pipeline.query=1").endswith("(the sentence has 1 word)")
    assert refused("pipeline.sentence='hola mundo'", "pipeline.query=2").endswith("(the sentence has 2 words)")


def test_an_unquoted_matrix_split_by_the_shell_shows_the_quoting():
    # what the shell hands over for: render matrix --set matrix.X=[[1, 0], [0, 1]]
    hint = split_set_hint(("matrix.X=[[1,",), ("matrix", "0],", "[0,", "1]]"))
    assert hint == ("--set matrix.X=[[1,: the shell split the value at its spaces; "
                    "quote it: --set 'matrix.X=[[1, 0], [0, 1]]'")
    hint = split_set_hint(("scaling.d_k=8", "pipeline.temperatures=[0.2,"), ("1.0]", "heads"))
    assert hint.endswith("quote it: --set 'pipeline.temperatures=[0.2, 1.0]'")


def test_an_unquoted_sentence_split_by_the_shell_shows_the_quoting():
    hint = split_set_hint(("heads.sentence=ella",), ("heads", "lo", "vio"))
    assert hint == ("section 'lo': unknown section; if it belongs to --set heads.sentence=ella, quote the value: "
                    "--set 'heads.sentence=ella lo vio'")


@pytest.mark.parametrize("overrides, sections", [
    (("matrix.X=[[1, 0], [0, 1]]",), ("matrix",)),  # quoted: nothing split
    (("pipeline.temperature=0.5",), ("matrx",)),  # a misspelt section, not a split value
    ((), ("0],",)),
    (("matrix.causal=true",), ("heads", "scaling")),
])
def test_nothing_split_gives_no_hint(overrides, sections):
    assert split_set_hint(overrides, sections) is None


LONG = "z" * 100_000  # one argument may hold 128 KiB; a config file 256 KiB


def one_error_line(result) -> str:
    """The single line a refused command prints (exit status 2, nothing on stdout)."""
    assert result.returncode == 2, result.stderr[:500]
    assert result.stdout == "" and result.stderr.endswith("\n") and result.stderr.count("\n") == 1, \
        result.stderr[:500]
    assert result.stderr.startswith("error: ")
    return result.stderr.strip()


def quoted_at_most_about_80(line: str) -> None:
    assert max(map(len, re.findall("z+", line)), default=0) <= 80 and len(line) < 400, line[:500]


@pytest.mark.parametrize("arguments", [
    ("render", "--set", f'audio.volume="{LONG}"'),
    ("render", "--set", f"{LONG}=1"),
    ("render", "--set", f"lecture.{LONG}=1"),
    ("render", "--set", f"matrix.{LONG}.X=1"),
    ("render", "--set", LONG),
    ("render", "--set", "matrix.X=[" + ", ".join(["[1]", "[1, 2]"] * 5_000) + "]"),
    ("render", "--narration", LONG),
    ("render", "--resolution", LONG),
    ("render", LONG),
    ("render", "-q", LONG),
    ("render", "--fps", LONG),
    ("render", f"--{LONG}"),
    (LONG,),
    ("list", LONG),
], ids=["set-value", "set-table", "set-key", "set-nested", "set-no-equals", "row-lengths", "narration",
        "resolution", "section", "click-choice", "click-number", "click-option", "click-command", "click-extra"])
def test_an_error_line_quotes_at_most_about_80_characters_of_a_value(arguments):
    quoted_at_most_about_80(one_error_line(run_cli(*arguments, timeout=60)))


def test_a_long_value_in_a_config_file_is_quoted_clipped(tmp_path):
    config = tmp_path / "long.toml"
    config.write_text(f'[audio]\nvolume = "{"z" * 250_000}"\n', encoding="utf-8")
    line = one_error_line(run_cli("render", "-c", str(config), timeout=60))
    assert line.startswith("error: audio.volume: expected a valid integer, got 'zzz")
    quoted_at_most_about_80(line)


@pytest.mark.parametrize("arguments, named, command", [
    (("render", "--bogus"), "'--bogus'", "render.py render"),
    (("render", "-q", "zzz"), "'zzz'", "render.py render"),
    (("render", "--fps", "0"), "'--fps'", "render.py render"),
    (("render", "--jobs"), "'--jobs'", "render.py render"),
    (("batch",), "'VARIANTS.toml'", "render.py batch"),
    (("bogus",), "'bogus'", "render.py"),
    (("list", "extra"), "(extra)", "render.py list"),
    (("render", "--a\nb"), "'--a\\nb'", "render.py render"),  # a line break in a value: shown, not obeyed
])
def test_clicks_usage_errors_are_one_line_like_ours(arguments, named, command):
    line = one_error_line(run_cli(*arguments, timeout=60))
    assert named in line and line.endswith(f"see '{command} --help'")
    assert run_cli(*command.split()[1:], "--help", timeout=60).returncode == 0


@pytest.mark.parametrize("override, message", [
    ('lecture.sections=["mtrix"]', "lecture.sections: unknown section 'mtrix'; expected some of matrix, scaling, "
                                   "heads, positional, capital, pipeline, learned"),
    ("lecture.sections=[]", "lecture.sections: expected at least one of matrix, scaling, heads, positional, "
                            "capital, pipeline, learned"),
    ('lecture.sections=["heads", "heads"]', "lecture.sections: 'heads' is named twice"),
])
def test_the_sections_a_config_chooses_are_known_and_named_once(override, message):
    assert refused(override) == message


def test_a_config_names_its_sections_and_unset_means_every_section():
    config = load_config(None, ('lecture.sections=["learned", "matrix"]',))
    assert config.lecture.sections == ["learned", "matrix"]
    assert "sections" not in load_config(None, ()).effective()["lecture"]  # unset: every section
