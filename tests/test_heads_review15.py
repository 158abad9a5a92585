"""Review 15 of section 03 heads (review s14, «narrowly» a 9): step 9's claim «cada salida suma lo que marcan los unos de
su columna» could not be traced (W_O a 12 × 12 grid of 11-px cells with no indices), its worked sum was named Z₁ (the
9 × 4 block) and repeated by «0.91·V₁(«y») + …»; head 3's green text rendered at 4.0:1; head 2's pink numbers had no
cue but their colour, which a deuteranope sees as the text's white; «relación semántica (por concordancia)» mixed two
kinds of relation; the matrices' names were 14 px."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Camera, DashedVMobject, Line, VMobject, tempconfig

from attn_math.heads import multi_head_attention
from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scene_checks import families_at_step_ends
from scenes import style
from scenes.heads import HeadsScene
from scenes.lesson_scene import LessonScene
from scenes.visuals import cap_height

from test_heads_review9 import _by_hand  # Concat and its product with W_O, worked out there from X and the projections

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
LEAST_CONTRAST = 4.5  # small text on the background (WCAG AA)
LABEL_PIXELS = 16  # the least cap height of a matrix's name, its subscripts included
BT709 = np.array([[0.2126, 0.7152, 0.0722], [-0.1146, -0.3854, 0.5], [0.5, -0.4542, -0.0458]])


@pytest.fixture(scope="module")
def heads():
    return families_at_step_ends(HeadsScene, "heads")


def _step(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_w_os_ones_are_drawn_from_concats_row_to_the_output_numbers_they_sum_into(heads):
    """Review: to see that output column 9 gets its 5.00 from Concat's column 3 one had to count W_O's 11-px cells.
    Between «ella» en Concat and «ella» en la salida, an arrow from each Concat number that is not 0 to each output
    number its row of W_O has a 1 over: the arrows are W_O's ones that matter, and every output number is the sum of the
    Concat numbers whose arrows land on it (worked out here)."""
    scene, _ = heads
    result, concat, output = _by_hand()
    focus = choice_token(result)
    rows = scene.row_numbers
    drawn = set()
    for arrow in rows.links[1]:
        start, end = arrow.get_start(), arrow.get_end()
        j, = [j for j, number in enumerate(rows.concat[1:]) if number.get_left()[0] < start[0] < number.get_right()[0]]
        k, = [k for k, number in enumerate(rows.output[1:]) if number.get_left()[0] < end[0] < number.get_right()[0]]
        assert 0 < rows.concat[1 + j].get_bottom()[1] - start[1] < 0.1
        assert 0 < end[1] - rows.output[1 + k].get_top()[1] < 0.1
        drawn.add((j, k))
    shown = np.round(concat[focus], 2)
    assert drawn == {(j, k) for j, k in zip(*np.nonzero(result.W_O == 1)) if shown[j]}
    assert {(3, 9)} <= drawn  # the 5.00 of head 1 to output column 9, which the review traced by pixels
    for k in range(result.d_model):
        landing = sum(shown[j] for j, to in drawn if to == k)
        assert landing == pytest.approx(round(output[focus, k], 2), abs=0.011)
    step = _step(scene, "concat")
    assert [parse_number(text) for text in step.numbers["output_row"][focus]] == \
        pytest.approx(np.round(output[focus], 2), abs=0.005)


def test_the_worked_row_is_named_as_a_row_and_its_largest_term_is_not_repeated(heads):
    """Review: «Z₁ = …» named the 9 × 4 block for «ella»'s row, and «0.91·V₁(«y») + …» under the full sum repeated it in
    fewer decimals. The sum is «z₁(«ella») = …», and over head 1's columns stands that name, no second term."""
    scene, _ = heads
    texts = [text.text for text in _step(scene, "concat").texts]
    assert any(text.startswith("z_1(«ella») = 0.0453·") for text in texts)
    assert "z_1(«ella»)" in texts
    assert not any(text.startswith(("Z_1 = ", "0.91·V_1")) for text in texts)
    assert {"1.00·V_2(«calmó»)", "1.00·V_3(«María»)"} <= set(texts)


def _rendered(mobject) -> np.ndarray:
    """``mobject`` drawn alone at 720p on the background, then stored as an H.264 video stores it: full-resolution
    luma, chroma averaged over 2 × 2 pixels (4:2:0), which darkens a thin coloured stroke (the review's 4.0:1 green)."""
    with tempconfig({"pixel_width": 1280, "pixel_height": 720, "frame_height": 8.0, "frame_width": 8.0 * 16 / 9,
                     "background_color": style.BACKGROUND}):
        camera = Camera()
        camera.capture_mobject(mobject.copy().move_to([0.013, 0.007, 0]))  # off the pixel grid, as in a frame
        image = np.asarray(camera.get_image().convert("RGB"), dtype=float)
    ycc = image @ BT709.T
    height, width = (size // 2 * 2 for size in ycc.shape[:2])
    for channel in (1, 2):
        blocks = ycc[:height, :width, channel].reshape(height // 2, 2, width // 2, 2).mean(axis=(1, 3))
        ycc[:height, :width, channel] = np.repeat(np.repeat(blocks, 2, axis=0), 2, axis=1)
    return np.clip(ycc @ np.linalg.inv(BT709).T, 0, 255)


def _luminance(rgb: np.ndarray) -> np.ndarray:
    linear = rgb / 255.0
    linear = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def _ink_contrast(mobject) -> float:
    """The contrast with the background that three quarters of the text's ink reaches as rendered: the ink is the
    pixels at least half as far in luminance from the background as the farthest."""
    luminance = _luminance(_rendered(mobject))
    background = _luminance(np.array(style.BACKGROUND.to_rgb()) * 255)
    distance = np.abs(luminance - background)
    ink = luminance[distance > 0.5 * distance.max()]
    contrast = (np.maximum(ink, background) + 0.05) / (np.minimum(ink, background) + 0.05)
    return float(np.percentile(contrast, 25))


def test_every_head_coloured_text_keeps_4_5_to_1_as_rendered(heads):
    """Review: head 3's green text (the 17-19 px «1.00», Concat's row, the legend) was 4.04:1 in the video. Every text
    on screen in a head's colour, arcs and cells apart, keeps 4.5:1 as a 720p H.264 frame renders it."""
    _, families = heads
    colours = {colour.to_hex().upper() for colour in (*style.HEADS, *style.HEAD_TEXTS)}
    checked = {}
    for key, mobjects in families.items():
        for text in LessonScene._visible_texts(mobjects):
            colour = text.family_members_with_points()[0].get_fill_color().to_hex().upper()
            label = getattr(text, "shown_text", None) or getattr(text, "tex_string", "")
            if colour in colours and (label, colour) not in checked:
                checked[(label, colour)] = (key, _ink_contrast(text))
    assert {colour for _, colour in checked} >= {style.HEAD_TEXTS[2].to_hex().upper()}
    low = {text: found for text, found in checked.items() if found[1] < LEAST_CONTRAST}
    assert low == {}
    assert len(checked) > 20  # the legend, the readouts, the kinds, the names, Concat's row...


def test_a_heads_weights_beside_other_heads_are_underlined_in_its_arcs_pattern(heads):
    """Review: head 2's pink turns grey-white for a deuteranope; its «1.00» under «calmó» (step 7) had no cue but its
    colour. Each head's weights in step 7 and the telling head's in step 5 are underlined in the head's stroke pattern,
    solid, dashed or dotted as its arcs and legend swatch (style.HEAD_DASHES)."""
    scene, families = heads
    focus = choice_token(scene.result)
    for key, heads_shown in (("choose", range(scene.result.n_heads)), ("average", [2])):
        mobjects = families[key]
        numbers = [text for text in LessonScene._visible_texts(mobjects)
                   if getattr(text, "tag", ("", None))[0].startswith("A")]
        for head in heads_shown:
            mine = [number for number in numbers if number.tag[0] == f"A{head + 1}" and number.tag[1][0] == focus
                    and number.family_members_with_points()[0].get_fill_color() == style.HEAD_TEXTS[head]]
            assert mine, (key, head)
            for number in mine:
                under = [mark for mark in mobjects if isinstance(mark, (Line, DashedVMobject))
                         and mark.get_stroke_color() == style.HEADS[head]
                         and number.get_left()[0] - 0.02 <= mark.get_left()[0] < mark.get_right()[0]
                         <= number.get_right()[0] + 0.02
                         and 0 < number.get_bottom()[1] - mark.get_top()[1] < 0.15
                         and mark.width > 0.8 * number.width]  # the whole underline, not one of its dashes
                assert len(under) == 1, (key, head, number.shown_text)
                dashes = [part for part in under[0].get_family() if isinstance(part, VMobject) and part.has_points()
                          and part is not under[0]]
                assert (len(dashes) > 1) == (style.HEAD_DASHES[head] > 0), (key, head)


def test_the_pronoun_heads_kind_no_longer_calls_agreement_semantic(heads):
    """Review: «relación semántica (por concordancia)»: agreement is morphosyntactic. The guide's «semántica» stays;
    its example is the relation the head finds, coreference."""
    scene, _ = heads
    texts = [text.text for text in _step(scene, "illustrative").texts]
    kind, = [text for text in texts if text.startswith("relación semántica")]
    assert "concordancia" not in kind and "correferencia" in kind
    assert {"relación posicional", "relación sintáctica"} <= set(texts)


@pytest.mark.parametrize("key, names", [
    ("previous", ["A_{1}"]), ("subject_verb", ["A_{2}"]), ("pronoun", ["A_{3}"]),
    ("illustrative", ["A_{1}", "A_{2}", "A_{3}"]),
    ("cost", ["W_Q", "W_Q^{1}", "W_Q^{2}", "W_Q^{3}"]),
    ("concat", ["Z_{1}", "Z_{2}", "Z_{3}", "W_O"])])
def test_the_matrices_names_are_16_px(heads, key, names):
    """Review: A₁–A₃, W_Q¹⁻³, Z₁–Z₃ and W_O were 14.2-14.3 px (their subscripts)."""
    scene, _ = heads
    shown = {text.text: text for text in _step(scene, key).texts}
    for name in names:
        assert shown[name].cap_height * PIXELS >= LABEL_PIXELS, (key, name, shown[name].cap_height * PIXELS)


def test_the_worked_row_and_the_arrows_label_keep_16_px(heads):
    """The arrows' band took height from the written-out rows: the caption, on one line now, gave it back, and the
    worked sum takes the body's width: its digits and every name's subscript stay at least 16 px."""
    scene, _ = heads
    step = _step(scene, "concat")
    worked, = [text for text in step.texts if text.text.startswith("z_1(«ella») = ")]
    links, = [text for text in step.texts if text.text == "unos de W_O:"]
    assert min(worked.cap_height, links.cap_height) * PIXELS >= LABEL_PIXELS
    assert min(cap_height(number) for number in [*scene.row_numbers.concat[1:], *scene.row_numbers.output[1:]]) \
        * PIXELS >= LABEL_PIXELS


def test_head_ones_first_token_is_said_to_look_at_itself(heads):
    """Review: «el» attends to itself in head 1 (the self-loop, 1.00 in A₁) with nothing on screen saying why. The
    step's caption says that the first token, with no token before it, looks at itself."""
    scene, _ = heads
    result, _, _ = _by_hand()
    assert result.heads[0].weights[0, 0] > 0.99  # «el» on itself in head 1
    caption = _step(scene, "previous").caption
    assert "el primero, sin anterior, a sí mismo" in caption


def test_the_cards_transpose_sits_over_k_encs_subscript():
    """Review: the card's ⊤ was set after K_enc's subscript, 6 px off «enc» («K_enc ⊤»): isolated apart from K_enc it
    lost its base. Stacked over the subscript, it adds no width to the formula."""
    from manim import MathTex

    from scenes.heads import CROSS_FORMULA, CROSS_PARTS

    formula = MathTex(CROSS_FORMULA, substrings_to_isolate=CROSS_PARTS, font_size=48)
    untransposed = MathTex(CROSS_FORMULA.replace(r"^\top", ""), substrings_to_isolate=CROSS_PARTS, font_size=48)
    assert formula.width <= untransposed.width + 0.01
    assert formula.height > untransposed.height - 0.01  # the ⊤ is there
