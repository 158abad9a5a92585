"""render.py batch: every variant checked before any work, each from the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lecture.batch import batch_command
from lecture.batch_variants import read_variants

TINY = 'sections = ["matrix"]\nresolution = "256x144"\nfps = 5\nformat = "png"\n'


def variants_file(folder: Path, steps: str, variants: dict[str, str]) -> Path:
    """A variants file of tiny stills of matrix's ``steps``: each variant's TOML lines by name."""
    text = f"[defaults]\n{TINY}steps = \"{steps}\"\n" + "".join(
        f"[variants.{name}]\n{lines}\n" for name, lines in variants.items())
    path = folder / "variants.toml"
    path.write_text(text)
    return path


def test_each_variant_starts_from_the_defaults_not_from_the_variant_before(tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text('[defaults]\nconfig."matrix.scale" = false\n'
                    '[variants.ana]\nconfig."matrix.causal" = true\nquality = "h"\n[variants.luis]\n')
    ana, luis = (variant.request for variant in read_variants(path, tmp_path / "out", jobs=3))
    assert (ana.config.matrix.scale, ana.config.matrix.causal, ana.quality.label) == (False, True, "1920x1080@60")
    assert (luis.config.matrix.scale, luis.config.matrix.causal, luis.quality.label) == (False, False, "1280x720@30")
    assert (ana.out_dir, luis.out_dir, luis.jobs) == (tmp_path / "out" / "ana", tmp_path / "out" / "luis", 3)


@pytest.mark.parametrize("lines, named", [
    ('config."matrix.temperature" = 1', "matrix.temperature: unknown key"),
    ('config."matrix.X" = [[1, 0], [0]]', "matrix.X: expected rows of equal length"),
    ('quality = "z"', "quality: expected 'l', 'm', 'h' or 'k'"),
    ('qualty = "l"', "qualty: unknown key; did you mean 'quality'"),
    ('sections = ["matrix", "nope"]', "sections: unknown section 'nope'"),
    ('steps = "99"', "no step '99' in matrix"),
    ('lang = "fr"', "lecture.lang: expected 'es' or 'en'"),
    ('resolution = "15x10"', "resolution: expected even sizes"),
])
def test_a_bad_variant_stops_the_batch_before_any_task_naming_variant_and_key(tmp_path, lines, named):
    path = variants_file(tmp_path, "1", {"ana": "", "luis": lines})
    out = tmp_path / "out"
    # no scheduler listens there: the variants are refused before the batch even connects
    result = CliRunner().invoke(batch_command, [str(path), "-o", str(out), "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"error: {path}: variant 'luis': ") and named in result.output
    assert not out.exists()