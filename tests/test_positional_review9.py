"""Review s8 (frames-a, «04 positional»), the items that kept the section from a 9:
- after the heatmap's row sweep the screen stood 4 s with no voice (9.2 s in all with nothing said, 90.7-99.9 s):
  the voice now says what the walk showed;
- the matrices' row words («perro», «hombre») were 15 px and sat 4 px above their rows' digits; the similarity
  plot was 180 x 120 px, its ticks and the table's digits 15 px;
- step 2 adds a PE with d = 4 while the steps after it present d = 16, and nothing on screen said so;
- the lines pairing Z_A's rows with Z_B's (a reordering) stayed once PE made the rows no longer a reordering;
- the frames round the «perro» rows touched «−1.00» and «−2.00»;
- the seeds' «El ejemplo del apunte» was only in the voice: the step's title now names it.
Each measure is taken from the built mobjects and the step records, against numbers worked out here."""

import math
import re

import numpy as np
import pytest
from manim import Axes, Line, Rectangle


from attn_math.positional import permutation_demo
from lesson.locale import load_locale
from scenes.positional import PositionalScene
from tests.scene_checks import PacedSpeaker, families_at_step_ends

PX = 720 / 8  # pixels of a 720p frame per frame unit (the frame is 8 units high)
LEAST_PX = 16  # cap height, at 720p, of a digit or a row's word that the student reads
DESCENDERS = set("gjpqy")


@pytest.fixture(scope="module")
def watched():
    """The default section with a stand-in voice at the narration's pace, and at each step's end what was on
    screen (every mobject of the scene's family)."""
    return families_at_step_ends(PositionalScene, "positional", narration=PacedSpeaker())


def step_of(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_the_heatmap_step_says_what_its_row_sweep_showed(watched):
    """Before: the voice said «Cada fila se suma…» and stopped; the frame walked the 32 rows in the clear, then the
    finished heatmap stood 4 s more with nobody speaking. Now a sentence about the rows follows the sweep, and the
    step ends within a second of the voice."""
    scene, _ = watched
    step = step_of(scene, "heatmap")
    (sweep_start, sweep_end), = step.narration["listening"]
    after = [(text, start, end) for text, start, end, _ in step.narration["phrases"] if start >= sweep_end - 1e-6]
    assert after, "nothing is said after the rows' sweep"
    assert any("fila" in text for text, _, _ in after)
    last_voice = max(end for _, _, end in after)
    assert step.read_until - last_voice <= 1.0, (step.read_until, last_voice)


def glyph_baseline(text, skip=DESCENDERS) -> float:
    """The median bottom of the glyphs of ``text``'s characters that rest on the line (no descender, no sign)."""
    characters = "".join(text.shown_text.split())
    glyphs = text.family_members_with_points()
    assert len(glyphs) == len(characters), (text.shown_text, len(glyphs))
    bottoms = [glyph.get_bottom()[1] for glyph, character in zip(glyphs, characters)
               if character.isalnum() and character not in skip]
    return float(np.median(bottoms))


def test_row_words_sit_on_their_digits_line_and_are_legible(watched):
    """Each word left of a row of X or Z stands on the line the row's digits stand on (within 1 px at 720p;
    «perro» was 3-4 px above it) and its capitals would be at least 16 px high (14.8 px before)."""
    scene, _ = watched
    for matrices, words in ((scene.inputs, scene.input_words), (scene.outputs, scene.words)):
        for matrix, labels in zip(matrices, words):
            for i, label in enumerate(labels):
                digits = glyph_baseline(matrix.entries[i][0])
                assert abs(glyph_baseline(label) - digits) * PX <= 1.0, (label.shown_text, i)
    for key in ("permutation", "with_pe"):
        tokens = set(permutation_demo().tokens_a)
        sizes = [text.pixels(1280, 720)[1] for text in step_of(scene, key).texts if text.text in tokens]
        assert len(sizes) == 20 and min(sizes) >= LEAST_PX, (key, min(sizes))


def test_the_similarity_plot_and_its_numbers_are_larger(watched):
    """The d = 16 plot at least 250 x 125 px at 720p (180 x 120 before), and every number of the step (the ticks,
    the table's digits, the heatmap's ticks beside it) at least 16 px high (15.1-15.4 before)."""
    scene, seen = watched
    axes = max((part for part in seen["similarity"] if isinstance(part, Axes)), key=lambda axes: axes.x_axis.width)
    assert axes.x_axis.width * PX >= 250 and axes.y_axis.height * PX >= 125, (axes.x_axis.width * PX,
                                                                              axes.y_axis.height * PX)
    step = step_of(scene, "similarity")
    heatmap_labels = {"posición", "dimensión", "valor"}  # the heatmap beside the plots, its frames walking its rows
    assert heatmap_labels <= {text.text for text in step.texts}
    numbers = [text for text in step.texts if re.fullmatch(r"[−\-]?[\d.]+", text.text)]
    assert len(numbers) > 30
    small = [(text.text, round(text.pixels(1280, 720)[1], 1)) for text in numbers
             if text.pixels(1280, 720)[1] < LEAST_PX - 0.05]
    assert small == []


def test_the_hands_dials_are_larger(watched):
    """The clock hands' dials at least 70 px across at 720p (60 px before), the turns under them 16 px high."""
    scene, _ = watched
    sizes = [dial.face.width * PX for dial in scene.hand_row.dials.values()]
    assert len(sizes) == 8 and min(sizes) >= 70, sizes
    turns = [text.pixels(1280, 720)[1] for text in step_of(scene, "clock_hands").texts
             if re.fullmatch(r"[\d.]+", text.text)]
    assert len(turns) >= 16 and min(turns) >= LEAST_PX


def sinusoid(pos: int, dim: int, d: int, base: float = 10000.0) -> float:
    angle = pos / base ** (2 * (dim // 2) / d)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


def test_step_two_says_its_pe_has_d_4(watched):
    """The PE added in step 2 is the 4-dimensional one (X + PE − X, recomputed from the formula with d = 4, matches);
    step 2 says «d = 4» on screen above both inputs, where step 3 on presents d = 16."""
    scene, _ = watched
    demo = permutation_demo()
    added = demo.steps_a_pe.X - demo.steps_a.X
    d = added.shape[1]
    assert d == 4
    assert np.allclose(added, [[sinusoid(pos, dim, 4) for dim in range(4)] for pos in range(len(added))])
    step = step_of(scene, "with_pe")
    said = [text for text in step.texts if re.search(rf"\(d\s*=\s*{d}\)", text.text)]
    assert len(said) == 2, [text.text for text in step.texts]
    for text, matrix in zip(sorted(said, key=lambda text: text.left), scene.inputs):
        top_row = max(entry.get_top()[1] for entry in matrix.entries[0])
        assert text.bottom >= top_row - 1e-6
        assert matrix.brackets[0].get_left()[0] - 1.0 <= text.left <= matrix.brackets[1].get_right()[0]


def link_lines(parts, scene) -> list:
    """Lines between Z_A's right bracket and Z_B's words: the pairing of rows."""
    left = scene.outputs[0].brackets[1].get_right()[0]
    right = max(word.get_right()[0] for word in scene.words[1])
    return [part for part in parts if type(part) is Line
            and left - 1e-6 <= min(part.get_start()[0], part.get_end()[0])
            and max(part.get_start()[0], part.get_end()[0]) <= right + 1e-6]


def test_the_reordering_lines_go_once_pe_is_added(watched):
    """Without PE, five lines pair each row of Z_A with the row of Z_B of the same word (a reordering); with PE the
    rows are no longer a reordering, and the lines are gone by the step's end (all five stayed before)."""
    scene, seen = watched
    assert len(link_lines(seen["permutation"], scene)) == len(permutation_demo().tokens_a)
    assert link_lines(seen["with_pe"], scene) == []


def word_frames(parts, brackets, y):
    """The highlight rectangles whose middle is at height ``y`` between ``brackets``."""
    left, right = brackets[0].get_left()[0], brackets[1].get_right()[0]
    return [part for part in parts if isinstance(part, Rectangle) and part.get_stroke_width() > 0
            and abs(part.get_y() - y) < 0.05 and left - 0.3 < part.get_x() < right + 0.3]


def shown_rows(parts, name) -> dict:
    """The numbers on screen tagged (name, (i, j)), by row: {i: [number, ...] left to right}."""
    rows = {}
    for part in parts:
        tag = getattr(part, "tag", None)
        if tag and tag[0] == name:
            rows.setdefault(tag[1][0], []).append((tag[1][1], part))
    return {i: [number for _, number in sorted(row, key=lambda item: item[0])] for i, row in rows.items()}


@pytest.mark.parametrize("key", ["permutation", "with_pe"])
def test_the_word_frames_stand_half_way_between_digits_and_neighbours(watched, key):
    """The frames round «perro»'s rows (inputs and outputs, both sentences): each edge at least a third of the way
    from the row's outermost digits to what is next to them (the row above and below; the brackets left and
    right), and no further than two thirds. A frame 0.02 outside the cells touched «−1.00» and «−2.00»."""
    scene, seen = watched
    demo = permutation_demo()
    rows = (demo.tokens_a.index("perro"), demo.tokens_b.index("perro"))
    suffix = "" if key == "permutation" else "_pe"  # with PE, the new numbers take the old matrices' places
    for kind, matrices in (("X", scene.inputs), ("Z", scene.outputs)):
        for side, matrix, i in zip("AB", matrices, rows):
            numbers = shown_rows(seen[key], f"{kind}_{side}{suffix}")
            row = numbers[i]
            frames = word_frames(seen[key], matrix.brackets, np.mean([number.get_y() for number in row]))
            assert len(frames) == 1, (key, kind, side, len(frames))
            frame = frames[0]
            half_stroke = frame.get_stroke_width() / 100 / 2  # manim: a stroke of 100 is one frame unit wide
            digits_top = max(number.get_top()[1] for number in row)
            digits_bottom = min(number.get_bottom()[1] for number in row)
            gaps = [(row[0].get_left()[0] - frame.get_left()[0] - half_stroke,
                     row[0].get_left()[0] - matrix.brackets[0].get_right()[0]),
                    (frame.get_right()[0] - row[-1].get_right()[0] - half_stroke,
                     matrix.brackets[1].get_left()[0] - row[-1].get_right()[0])]
            if i - 1 in numbers:
                above = min(number.get_bottom()[1] for number in numbers[i - 1])
                gaps.append((frame.get_top()[1] - digits_top - half_stroke, above - digits_top))
            if i + 1 in numbers:
                below = max(number.get_top()[1] for number in numbers[i + 1])
                gaps.append((digits_bottom - frame.get_bottom()[1] - half_stroke, digits_bottom - below))
            assert len(gaps) >= 3
            for clear, room in gaps:
                assert room > 0 and 1 / 3 <= clear / room <= 2 / 3, (key, kind, side, clear, room)


def test_the_table_step_is_named_as_the_apuntes_example():
    """The seed's heading «El ejemplo del apunte: tres tokens contiguos con d = 4»: the title says it is the
    apunte's example (it read only «Tres tokens contiguos con d = 4»); English the same."""
    for lang, words in (("es", "ejemplo del apunte"), ("en", "notes’ example")):
        title = load_locale(lang)["positional"]["steps"]["table"]["title"]
        assert words in title.lower() and re.search(r"d = 4", title), (lang, title)
