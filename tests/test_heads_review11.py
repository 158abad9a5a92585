"""Review 11 of section 03 heads: in the average's heatmap the row labels sat tight against each other («ladró» 12 px
over «y»), and a focused row's frame 2 px from its neighbours' labels: a 24 pt label's line nearly filled a square row.
The rows now grow into the panel's spare height (taller than wide), the labels keep their size."""

from __future__ import annotations

import pytest
from manim import config

from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes.heads import HeadsScene
from scenes.visuals import cap_height

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
LEAST_LABEL_GAP = 15.0  # px at 720p between two row labels' glyphs, one over the other (12.0 before)
LEAST_FRAME_GAP = 3.5  # px at 720p from a focused row's frame to its neighbours' labels (2.4 before)
LEAST_LABEL_GRID_GAP = 12.0  # px at 720p from a row label to the bracket beside the grid
LABEL_CAP = 21.5  # px at 720p: the labels' cap height, 24 pt (review 8: x-height 16 px), not shrunk to make room
CAPTION_GAP = 12.0  # px at 720p from the heatmap to the caption under it


@pytest.fixture(scope="module")
def average():
    return run_scene("heads", steps=parse_steps("average", list(HeadsScene.STEPS)))


def glyphs_bottom_top(label) -> tuple[float, float]:
    """The lowest and highest point of a label's glyphs (its ink, not its line box)."""
    points = [point for glyph in label.family_members_with_points() for point in glyph.points]
    return min(point[1] for point in points), max(point[1] for point in points)


def test_adjacent_row_labels_keep_clear_room(average):
    labels = list(average.heatmap.row_labels)
    assert [label.text for label in labels] == ["el", "perro", "de", "María", "ladró", "y", "ella", "lo", "calmó"]
    gaps = {(upper.text, lower.text): (glyphs_bottom_top(upper)[0] - glyphs_bottom_top(lower)[1]) * PIXELS
            for upper, lower in zip(labels, labels[1:])}
    assert min(gaps.values()) >= LEAST_LABEL_GAP, gaps


def test_a_focused_rows_frame_clears_its_neighbours_labels(average):
    heatmap = average.heatmap
    labels = list(heatmap.row_labels)
    gaps = {}
    for i in range(len(labels)):
        frame = heatmap.row_box(i)
        if i > 0:
            gaps[(i, i - 1)] = (glyphs_bottom_top(labels[i - 1])[0] - frame.get_top()[1]) * PIXELS
        if i + 1 < len(labels):
            gaps[(i, i + 1)] = (frame.get_bottom()[1] - glyphs_bottom_top(labels[i + 1])[1]) * PIXELS
    assert min(gaps.values()) >= LEAST_FRAME_GAP, gaps


def test_the_labels_keep_their_size_their_rows_and_the_heatmap_its_place(average):
    heatmap = average.heatmap
    grid = heatmap.matrix.cell_grid
    for label, row in zip(heatmap.row_labels, heatmap.matrix.cells):
        assert cap_height(label) * PIXELS >= LABEL_CAP
        assert abs(label.get_y() - row[0].get_y()) < 1e-6  # centred on its row
        assert (heatmap.matrix.brackets[0].get_left()[0] - label.get_right()[0]) * PIXELS >= LEAST_LABEL_GRID_GAP
    for row in heatmap.matrix.cells:  # the rows grown taller than wide, still tiling the grid without gaps
        assert row[0].height > 1.05 * row[0].width
    assert sum(row[0].height for row in heatmap.matrix.cells) == pytest.approx(grid.height)
    caption = average.header[2]
    assert (heatmap.get_bottom()[1] - caption.get_top()[1]) * PIXELS >= CAPTION_GAP
    assert heatmap.get_top()[1] <= config.frame_height / 2 and heatmap.get_right()[0] <= config.frame_width / 2 - 0.3
