"""Review s16, report J («06-pipeline», grade 9): step 14's lines «sin ÷: d_k = 8 → 1.29 · 64 → 0.43 bits» read «1.29 ·
64» as a product, the «·» being only a separator. Each line now names the d_k once («d_k 8 → 64:»), then its two entropies."""

import re

from tests.test_pipeline_review13 import scene, step  # noqa: F401 (scene: a fixture, the default render)

PAIR = re.compile(r"d_k (\d+) → (\d+): ([0-9.]+) → ([0-9.]+) bits$")


def written_lines(record, starts: tuple[str, ...]) -> list[str]:
    """The lines of ``record`` that begin with one of ``starts``, put together from their pieces (words and numbers
    are written apart): the pieces on the same line (centres within a third of a line) that follow it left to right
    with no wider gap than a word space."""
    lines = []
    for first in (text for text in record.texts if text.text.startswith(starts)):
        middle, height = (first.top + first.bottom) / 2, first.top - first.bottom
        beside = sorted((text for text in record.texts if abs((text.top + text.bottom) / 2 - middle) < height / 3
                         and text.left > first.left), key=lambda text: text.left)
        line = [first]
        for text in beside:
            if text.left - line[-1].right > height:
                break
            line.append(text)
        lines.append(" ".join(text.text for text in line))
    return lines


def test_no_entropy_sits_beside_a_dimension_as_if_multiplied(scene):
    """Both sharpness lines (undivided, then ÷ √d_k) name each d_k next to its own entropy in bits; no number is
    followed by «·» and another number: the two d_k once, then the two entropies, each line in bits."""
    lines = written_lines(step(scene, "dimensions"), ("sin ÷,", "÷ √d_k,"))
    assert len(lines) == 2, lines
    for line in lines:
        assert not re.search(r"[0-9] · [0-9]", line), line
        found = PAIR.search(line)
        assert found and (found[1], found[2]) == ("8", "64"), line
