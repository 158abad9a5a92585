"""Review s11 («06 pipeline», grade 8): a new step's title landed over the old step's drawing (the pipeline cleared it
after begin_step's header change, not with it); the products' 8 × 8 grids were cramped; step 14 was text panels."""

import math

import numpy as np
import pytest
from manim import ReplacementTransform

from lesson.numbers import parse_number
from scenes.lesson_scene import LessonScene
from scenes.visuals import cap_height
from tests.scene_checks import flattened, run_scene

SHOWN = 0.02  # opacity under which a part reads as gone
PART_OF_THE_STEP = 2.0  # s: an old drawing still there this long under the new title is the new step's picture (step
# 12 frames the maps of step 11 before they leave)


def opacity(part) -> float:
    return max(float(np.max(rgbas[:, 3], initial=0.0))
               for rgbas in (part.fill_rgbas, part.stroke_rgbas))


def drawn(scene) -> dict:
    """The parts on screen (by identity) with some opacity, the header's left out."""
    header = {id(part) for part in (scene.header.get_family() if scene.header is not None else [])}
    return {id(part): part for mobject in scene.mobjects for part in mobject.family_members_with_points()
            if id(part) not in header and opacity(part) > SHOWN}


class Played:
    """One play: the header it began under, what was drawn before it and after it (``ended``), and the lab's side panel
    then: it stays through steps 1-7, its metrics' values replacing their «n/d» as a step computes them."""

    def __init__(self, scene, animations):
        self.header, self.animations, self.start = scene.header, animations, scene.renderer.time
        self.before = drawn(scene)
        panel = getattr(scene, "panel", None)
        self.panel = {id(part) for part in panel.get_family()} if panel is not None else set()
        # its parts then: a caption that grows later adds parts to it
        self.header_parts = scene.header.family_members_with_points() if scene.header is not None else []
        self.after, self.end = {}, None

    def ended(self, scene):
        self.after, self.end = drawn(scene), scene.renderer.time


def record_plays(*overrides):
    """The scene with, for each play, the header it began under and what was drawn before and after it."""
    plays = []
    play = LessonScene.play

    def recording(scene, *animations, **options):
        plays.append(Played(scene, animations))
        play(scene, *animations, **options)
        plays[-1].ended(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        scene = run_scene("pipeline", "lecture.questions='none'", *overrides)
    return scene, plays


@pytest.fixture(scope="module")
def played():
    """The default scene, its plays recorded (``record_plays``)."""
    return record_plays()


def transformed(play) -> set:
    """Parts a ReplacementTransform of ``play`` carries on into another: they stay, moved or reshaped."""
    return {id(part) for animation in flattened(play.animations) if isinstance(animation, ReplacementTransform)
            for part in animation.mobject.get_family()}


def header_changes(plays) -> list[int]:
    """Indices of the plays that changed the header: each the last play begun under the old one."""
    return [k for k, (play, following) in enumerate(zip(plays, plays[1:]))
            if play.header is not None and following.header is not play.header]


def leaving_after_the_title(plays, change: int, end: int) -> list:
    """What was on screen as the header began to change and left in the new step's first PART_OF_THE_STEP seconds,
    after the header play: the old step's drawing under the new title (a part carried on by a transform stays)."""
    header_play = plays[change]
    late = []
    for play in plays[change + 1:end]:
        if play.start - header_play.end >= PART_OF_THE_STEP:
            break
        carried = transformed(play) | play.panel
        late += [(round(play.start, 2), type(part).__name__) for key, part in header_play.before.items()
                 if key in play.before and key not in play.after and key not in carried]
    return late


def late_leavers(scene, plays) -> dict:
    """For each step, what of the last step's drawing left after its header play (``leaving_after_the_title``)."""
    changes = header_changes(plays)
    assert len(changes) == len(scene.steps) - 1
    bounds = [*changes, len(plays)]
    late = {scene.steps[k + 1].key: leaving_after_the_title(plays, change, following)
            for k, (change, following) in enumerate(zip(bounds, bounds[1:]))}
    return {key: (parts[0][0], len(parts), sorted({kind for _, kind in parts})) for key, parts in late.items() if parts}


def test_every_step_change_clears_the_old_drawing_with_the_header(played):
    """At every step change the old drawing leaves in the header play's first half, with the old header, not in a play
    after it: no frame shows the new title (even partly drawn) over the last step's drawing."""
    assert late_leavers(*played) == {}


@pytest.mark.parametrize("overrides", [
    ("pipeline.sentence='el gato negro se sienta en la mesa de madera'",),  # 10 tokens: matrices in colours only
    ("pipeline.temperatures=[0.2, 0.5, 1.0, 2.0, 4.0]",)])  # rows beyond exercise 2's three leave with its header
def test_other_layouts_clear_the_old_drawing_with_the_header_too(overrides):
    assert late_leavers(*record_plays(*overrides)) == {}


def test_the_new_title_never_shows_over_what_leaves(played):
    """Frame by frame through each header play: once the new header has any opacity, what the play clears away has
    none (measured as test_header_change does, on the built animations)."""
    scene, plays = played
    overlaps = {}
    for change in header_changes(plays):
        play, new_header = plays[change], plays[change + 1].header_parts
        leaving = [part for key, part in play.before.items() if key not in play.after]
        shared = []
        for alpha in np.linspace(0, 1, 41):
            for animation in play.animations:
                animation.interpolate(alpha)
            if max(opacity(part) for part in new_header) > SHOWN and leaving \
                    and max(opacity(part) for part in leaving) > SHOWN:
                shared.append(round(float(alpha), 3))
        for animation in play.animations:
            animation.interpolate(1.0)
        if shared:
            overlaps[scene.steps[header_changes(plays).index(change) + 1].key] = shared
    assert overlaps == {}


PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
LEAST_DIGITS = 16  # px at 720p
LEAST_ROW_GAP = 12  # px at 720p between one row's digits and the next's


def digits_and_gaps(matrix) -> tuple[float, float]:
    """(smallest digit height, narrowest gap between a row's numbers and the next row's), in px at 720p."""
    rows = [[entry for entry in row] for row in matrix.entries]
    digits = min(cap_height(entry) for row in rows for entry in row)
    gaps = [min(entry.get_bottom()[1] for entry in above) - max(entry.get_top()[1] for entry in below)
            for above, below in zip(rows, rows[1:])]
    return digits * PIXELS_PER_UNIT, min(gaps) * PIXELS_PER_UNIT


def test_the_products_eight_rows_have_room_between_them(played):
    """Steps 2, 3 and 7's products q = W_Q x, k = W_K x, v = W_V x (W: 8 × 8 in the lab) had 16 px digits with 7 px
    between rows at 720p, and Z = AV 9 px: cramped. Each now keeps at least 12 px between rows, digits still at least
    16 px tall, as the scene builds them in their place under the vectors."""
    scene, _ = played
    _, band_box = scene.split_box(scene.canvas_box())
    measured = {}
    for role in ("Q", "K", "V"):
        band = scene.projection_band(role, band_box)
        for part in ("result", "matrix", "embedding"):
            measured[f"{role} {part}"] = digits_and_gaps(getattr(band, part))
    for name, matrix in zip(("α", "V", "Z"), scene.output_stage[2][1]):  # Z = AV beside α and V (review s14)
        measured[name] = digits_and_gaps(matrix)
    cramped = {name: (round(float(digits), 1), round(float(gap), 1)) for name, (digits, gap) in measured.items()
               if digits < LEAST_DIGITS or gap < LEAST_ROW_GAP}
    assert cramped == {}


def test_the_same_sharpness_is_two_bars_in_frames_of_log2_n(played):
    """Step 14, exercise 5's «la misma nitidez» was text only. Under the two mean entropies (d_k = 8 and 64), each is a
    bar in a frame of log₂ n bits, the most n weights can spread: the bars as long as the numbers written above them
    (read off the step's records), both short of their frames."""
    scene, _ = played
    record = next(record for record in scene.steps if record.key == "dimensions")
    shown = [parse_number(text) for text in record.numbers["exercise_5_sharpness"][0]]
    most = math.log2(len(scene.tokens))
    bars = scene.pointed["sharpness"][-1]
    shares = [bar.width / frame.width for frame, bar in bars]
    np.testing.assert_allclose(shares, np.array(shown) / most, rtol=0.01)
    assert all(share < 0.9 for share in shares)
    assert bars[0].get_right()[0] < bars[1].get_left()[0]  # side by side, each under its own number
