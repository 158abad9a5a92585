"""Review s15, report E («06-pipeline», grade 8, «close to a 9»): exercise 1's «la → mesa» was two dashed boxes with no
words; exercise 4 gave the lab's other sentences only their last row's entropy, not the first-vs-fourth pair it asks
«en cada oración»; step 4's discussed score «0.47» was lit to white digits on pale pink (2.08:1); «T = 0.20» morphed
into «0.50» between steps 10 and 11 (half-drawn digits); k and v were written «≈» with no note on why at steps 3 and
7; the designed row's «H sin redondear = 0.93» stood beside a row that gives 0.90. Measured on the mobjects the scene
builds and the plays it runs; numbers redone with numpy from the numbers as drawn or from the lab's scores."""

import numpy as np
import pytest
from manim import Transform, interpolate_color

from attn_math.lab import LAB_SENTENCES, lab_attention
from lesson.numbers import as_read, format_number, parse_number
from scenes.lesson_scene import LessonScene
from scenes.pipeline_parts.projection import ProjectionBand
from scenes.visuals import cap_height
from tests.scene_checks import flattened, run_scene
from tests.test_pipeline_review13 import step, texts
from tests.test_pipeline_review15 import contrast

PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
LEAST_CONTRAST = 4.5  # WCAG AA for text
FOURTH = 3  # exercise 4's fourth token, from 0


@pytest.fixture(scope="module")
def run():
    """The default scene, every play's animations kept, and step 4's discussed score as it stands when step 4 ends:
    its cell's fill, its digits' colour and the light over it if one is on screen."""
    plays, at_scores_end = [], {}
    play, finish = LessonScene.play, LessonScene.finish_step

    def recording(scene, *animations, **options):
        plays.append(animations)
        play(scene, *animations, **options)

    def snapshot(scene):
        if scene.steps and scene.steps[-1].key == "scores" and not scene.steps[-1].end:
            matrix, q = scene.scores.matrix, scene.query
            top = int(np.argmax(scene.run.steps.scores[q]))
            on_screen = {id(part) for mobject in scene.mobjects for part in mobject.get_family()}
            light = scene.top_score_light
            at_scores_end.update(
                cell=matrix.cells[q][top].get_fill_color(), digits=matrix.entries[q][top].get_color(),
                light=(light.get_fill_color(), light.get_fill_opacity())
                if len(light.get_family()) and id(light) in on_screen else None)
        finish(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        patch.setattr(LessonScene, "finish_step", snapshot)
        scene = run_scene("pipeline", "lecture.questions='none'")
    return scene, plays, at_scores_end


def entropy_bits(row) -> float:
    """−Σ α log₂ α over the nonzero weights, with numpy."""
    row = np.asarray(row, dtype=float)
    row = row[row > 0]
    return float(-(row * np.log2(row)).sum())


def softmax_rows(scores) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def test_exercise_1_names_the_other_article_with_both_weights(run):
    """Step 9: «la → mesa», ringed dashed on both maps, is named on screen with its weight under the lab's weights and
    under the designed ones, each redone as the softmax of that preset's scaled scores."""
    scene = run[0]
    record = step(scene, "article")
    la, mesa = scene.tokens.index("la"), scene.tokens.index("mesa")
    expected = [format_number(softmax_rows(scene.attention(scene.settings.temperature, False, preset).steps.scaled)
                              [la, mesa]) for preset in ("lab", "sharp")]
    assert record.numbers["other_article"] == [expected]
    assert any(text.startswith("«la» → «mesa»") for text in texts(scene, "article"))


def test_exercise_1s_other_article_line_overlaps_nothing(run):
    """That line stands where the entropy formula stood, clear of the colour legend and of the readouts above it."""
    scene = run[0]
    named = scene.presets_stage.rings[-1]
    stage = scene.presets_stage
    neighbours = [scene.presets_legend, *stage.readouts]
    for other in neighbours:
        apart_x = named.get_right()[0] < other.get_left()[0] or other.get_right()[0] < named.get_left()[0]
        apart_y = named.get_top()[1] < other.get_bottom()[1] or other.get_top()[1] < named.get_bottom()[1]
        assert apart_x or apart_y
    assert scene.presets_formula not in scene.presets_extras.get_family()  # gone, not faded back later


def test_exercise_4_gives_each_other_sentence_its_first_and_fourth_rows_entropy(run):
    """Step 13: for «la red neuronal aprende rápido» and «atención es todo lo que necesitas», H of the first and the
    fourth row under the mask, redone with numpy from the lab's masked weights; the guide's «7 tokens» for a 6-word
    sentence is noted."""
    scene = run[0]
    others = [lab_attention(sentence, scene.settings.temperature, causal=True)
              for name, sentence in LAB_SENTENCES.items() if name != "gato"]
    expected = [[format_number(entropy_bits(other.weights[row])) for row in (0, FOURTH)] for other in others]
    assert step(scene, "entropy").numbers["entropy_others"] == expected
    shown = texts(scene, "entropy")
    assert any("H(la) =" in text for text in shown) and any("H(aprende) =" in text for text in shown)
    assert "(la guía dice 7 tokens; son 6 palabras)" in shown


def test_step_4s_discussed_score_reads_best(run):
    """Step 4, «un valor alto, mucha afinidad»: the query's highest score, lit, reads at 4.5:1 or more on what is behind
    it, any light over the digits counted (white digits under a translucent white light read 2.08:1)."""
    lit = run[2]
    behind, digits = lit["cell"], lit["digits"]
    if lit["light"] is not None:
        colour, opacity = lit["light"]
        behind, digits = interpolate_color(behind, colour, opacity), interpolate_color(digits, colour, opacity)
    assert contrast(digits, behind) >= LEAST_CONTRAST


def numbers_in(mobject) -> list[str]:
    return [part.shown_text for part in mobject.get_family() if hasattr(part, "shown_text")]


def test_no_number_is_morphed_into_another(run):
    """No Transform carries a written number into a different one (steps 10-11: «T = 0.20» into «0.50», «H = 2.67»
    into «2.78» drew half of each at 195.2): a number changes by fading out, then in."""
    morphed = []
    for animations in run[1]:
        for animation in flattened(animations):
            if isinstance(animation, Transform) and animation.target_mobject is not None:
                before, after = numbers_in(animation.mobject), numbers_in(animation.target_mobject)
                if before and after and before != after:
                    morphed.append((before, after))
    assert not morphed


@pytest.mark.parametrize("key, role", [("keys", "K"), ("output", "V")])
def test_products_written_approx_carry_the_note(run, key, role):
    """Steps 3 and 7: k ≈ W_K x and v ≈ W_V x carry the «≈» note (step 2's q did; a student redoing k got last digits
    apart with none), between the row of vectors above the product (K's, Z's) and the product, inside the frame, its
    letters at least 12 px tall (caption text; q's note is 13)."""
    scene, plays = run[:2]
    if key == "keys":  # on screen as the step ends
        assert scene.labels["approx_note"] in texts(scene, key)
    else:  # v's band (and its note) leaves for Z's table before the step ends: drawn with it
        assert any(isinstance(animation.mobject, ProjectionBand) and "W_V" in getattr(animation.mobject.matrix.label, "tex_string", "")
                   and getattr(animation.mobject[-1], "text", None) == scene.labels["approx_note"].replace(" ", "")
                   for animations in plays for animation in flattened(animations))
    _, band_box = scene.split_box(scene.canvas_box())
    band = scene.projection_band(role, band_box)
    above = scene.vectors.rows[2] if role == "K" else scene.output_stage[0].rows[1]
    top = band.get_top()[1]
    note = scene.approx_band_note(band, above, band_box[1] - band_box[0])
    assert band.approximate and note in band.submobjects  # leaves with the band
    assert top < note.get_bottom()[1] and note.get_top()[1] < above.get_bottom()[1]
    assert note.get_left()[0] > -7.1 + 0.3 and note.get_right()[0] < 7.1 - 0.3
    assert cap_height(note) * PIXELS_PER_UNIT >= 12


def test_the_designed_rows_readout_gives_the_entropy_of_the_row_as_written(run):
    """Step 8: beside the designed row's unrounded H (0.93), the H a student redoes from its written digits (0.90),
    from the drawn row with numpy."""
    scene = run[0]
    record = step(scene, "presets")
    row = np.array([parse_number(text) for text in record.numbers["weights_sharp"][scene.query]])
    [[written]] = record.numbers["entropy_written_sharp"]
    assert written == format_number(entropy_bits(row))
    [[unrounded]] = record.numbers["entropy_sharp"]
    weights = scene.attention(scene.settings.temperature, False, "sharp").weights[scene.query]
    assert unrounded == format_number(entropy_bits(weights)) != written
    assert written == format_number(entropy_bits(as_read(weights)))
