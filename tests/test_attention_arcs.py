"""Attention arcs as a viewer reads them over a long row: arcs of one length stay apart (issue 43: over the learned
section's twenty tokens, the induction head's arcs merged into one band)."""

import numpy as np
import pytest

from scenes.attention_arcs import AttentionArcs, TokenRow

STROKE_UNIT = 0.01  # frame units per unit of manim's stroke width (cairo's line width multiple)


def deepest(arc) -> float:
    """The lowest point of an arc hanging under the row, on its curve (manim's bottom reads the anchors only)."""
    return min(float(arc.curve.point_from_proportion(share)[1]) for share in np.linspace(0, 1, 201))


@pytest.mark.parametrize("tokens, shift", [(20, 9), (16, 7)])
def test_parallel_arcs_under_a_long_row_stay_apart(tokens, shift):
    """An induction head's pattern: each token of the second half attends to the one ``shift`` back. Neighbouring
    arcs, all as long, reach depths at least their strokes' width apart, so each is seen as one line."""
    row = TokenRow([chr(ord("A") + k % 26) for k in range(tokens)], slot_width=0.3, gap=0.05)
    weights = np.zeros((tokens, tokens))
    queries = range(tokens // 2, tokens)
    for t in queries:
        weights[t, t - shift] = 0.95
    arcs = AttentionArcs(row, weights, "#219333", height=1.5, above=False)
    depths = [deepest(arcs.arcs[t, t - shift]) for t in queries]
    strokes = [arcs.arcs[t, t - shift].curve.get_stroke_width() * STROKE_UNIT for t in queries]
    gaps = np.abs(np.diff(depths))
    assert np.all(gaps >= np.maximum(strokes[:-1], strokes[1:])), (gaps, strokes)


def test_a_sentences_arcs_keep_their_full_width_and_depth():
    """A sentence of a few words spaced for reading is drawn as before: strokes at full width, one depth a length."""
    row = TokenRow(["el", "perro", "de", "María", "ladró"], slot_width=0.9)
    weights = np.zeros((5, 5))
    weights[2, 0] = weights[4, 2] = 1.0
    arcs = AttentionArcs(row, weights, "#219333", height=1.5, above=False)
    assert arcs.arcs[2, 0].curve.get_stroke_width() == pytest.approx(9.0)
    assert deepest(arcs.arcs[2, 0]) == pytest.approx(deepest(arcs.arcs[4, 2]))
