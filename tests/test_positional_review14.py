"""Review s14 (720p, «04 positional», graded 9), four of its notes:
- 49.6-59.1 s looked still for 9.5 s while the voice said «ya no son un simple reordenamiento», «y hasta las que no se
  movieron cambian» and «escucha la diferencia»: the rows named are now framed as they are named, and what the sound
  compares is boxed and thickened as it sounds;
- «Z_B = Attention(X_B + PE)» stood over the rows computed without PE for up to 6 s: each label now changes with its
  matrix's first new row, and the old rows still to go are dimmed;
- the pulse that grew «1.14» covered the colon of «palabra:» before it;
- step 5's boxes spanned two columns (dims 0-1, 14-15) beside a table naming «dim 0» and «dim 14».
Measured on the built mobjects and on a decoded video spoken at the narration's pace, against numbers worked out
here."""

import numpy as np
import pytest
from manim import Create, Indicate, MathTex, Rectangle, SurroundingRectangle

from lesson.steps import parse_steps
from scenes import style
from scenes.lesson_scene import LONGEST_FREEZE
from scenes.positional import DIMMED, PositionalScene
from tests.scene_checks import PacedSpeaker, Play, render_video, run_scene, video_stills
from tests.test_positional_review12 import step_of
from tests.test_scene_positional import SENTENCES, both_sentences

VIEWER = (640, 360)  # the reviews measure stills at this size


def on_screen(scene) -> list:
    return [part for top in scene.mobjects for part in top.get_family()]


def opacity(mobject) -> float:
    """The most opaque fill among the glyphs of ``mobject``."""
    return max(float(part.fill_rgbas[:, 3].max()) for part in mobject.family_members_with_points())


@pytest.fixture(scope="module")
def watched():
    """The default section spoken at the narration's pace, with every play of the with-PE step (its start, end,
    animations, and after it the parts on screen and the stroke widths of the rectangles), and the parts on screen
    at the end of the frequencies step."""
    plays, seen = [], {}
    play, finish = PositionalScene.play, PositionalScene.finish_step

    def watched_play(scene, *animations, **options):
        start = scene.renderer.time
        play(scene, *animations, **options)
        if scene.steps and scene.steps[-1].key == "with_pe" and not scene.steps[-1].end:
            parts = on_screen(scene)
            plays.append((Play(start, scene.renderer.time, animations), parts,
                          {id(part): part.get_stroke_width() for part in parts if isinstance(part, Rectangle)}))

    def snapshot(scene):
        if scene.steps and not scene.steps[-1].end:
            seen[scene.steps[-1].key] = on_screen(scene)
            if hasattr(scene, "heatmap"):  # its columns' middles and its height where the step leaves them
                seen[f"{scene.steps[-1].key} columns"] = [scene.heatmap.cell_block([0], [j]).get_x()
                                                          for j in range(scene.PE.shape[1])]
                seen[f"{scene.steps[-1].key} height"] = scene.heatmap.grid.height
        finish(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PositionalScene, "play", watched_play)
        patch.setattr(PositionalScene, "finish_step", snapshot)
        scene = run_scene("positional", narration=PacedSpeaker())
    return scene, plays, seen


def phrase_start(scene, words: str) -> float:
    step = step_of(scene, "with_pe")
    return next(start for text, start, _, _ in step.narration["phrases"] if words in text)


def play_at(plays, time: float):
    """The first play that is not a wait starting at ``time``, with what was on screen after it."""
    return next((play, parts, strokes) for play, parts, strokes in plays
                if abs(play.start - time) < 1e-6 and not play.waits)


def contains(frame, point) -> bool:
    return (frame.get_left()[0] < point[0] < frame.get_right()[0]
            and frame.get_bottom()[1] < point[1] < frame.get_top()[1])


def unmoved_rows() -> list[int]:
    """The rows of the words at the same place in both sentences (el, mordió, al)."""
    a, b = (SENTENCES[side].split() for side in "AB")
    return [i for i, (first, second) in enumerate(zip(a, b)) if first == second]


def largest_gap() -> tuple[int, int, int, int]:
    """(row in A, row in B, column) of the largest gap between a word's two output rows with PE, worked out here."""
    outputs = both_sentences(with_pe=True)
    a, b = (SENTENCES[side].split() for side in "AB")
    gaps = {(a.index(word), b.index(word), j): abs(outputs["A"][a.index(word), j] - outputs["B"][b.index(word), j])
            for word in a for j in range(outputs["A"].shape[1])}
    return max(gaps, key=gaps.get)


def test_the_rows_that_did_not_move_are_framed_as_they_are_named(watched):
    """The play that starts with «y hasta las que no se movieron cambian» draws (Create) frames round both output
    rows of each word at the same place in both sentences, and of no other word."""
    scene, plays, _ = watched
    play, _, _ = play_at(plays, phrase_start(scene, "no se movieron"))
    frames = [part for animation in play.animations if isinstance(animation, Create)
              for part in animation.mobject.get_family() if isinstance(part, Rectangle)]
    framed = {(side, i) for side, matrix in enumerate(scene.outputs) for i in range(len(matrix.entries))
              if any(contains(frame, matrix.row(i).get_center()) for frame in frames)}
    assert framed == {(side, i) for side in range(2) for i in unmoved_rows()}, framed


def test_what_the_sound_compares_is_boxed_as_it_is_named_and_thickened_as_it_sounds(watched):
    """«escucha la diferencia» starts with boxes drawn round the two numbers whose gap is the largest difference
    (worked out here in numpy); the listening's sound starts with a play that thickens the frames round them."""
    scene, plays, _ = watched
    row_a, row_b, column = largest_gap()
    cells = [scene.outputs[0].entries[row_a][column].get_center(), scene.outputs[1].entries[row_b][column].get_center()]
    play, _, _ = play_at(plays, phrase_start(scene, "escucha la diferencia"))
    boxes = [part for animation in play.animations if isinstance(animation, Create)
             for part in animation.mobject.get_family() if isinstance(part, SurroundingRectangle)]
    assert len(boxes) == 2 and all(any(contains(box, cell) for box in boxes) for cell in cells)
    assert all(box.width < scene.outputs[0].cell_width * 1.2 for box in boxes)  # a number's box, not a row's
    step = step_of(scene, "with_pe")
    sound = next(cue for cue in scene.cues if cue.kind == "outputs_compared" and cue.values["with_pe"]
                 and step.start <= cue.time < step.end)
    play, _, strokes = play_at(plays, sound.time)
    thickened = [part for mobject in play.animated for part in mobject.get_family()
                 if isinstance(part, SurroundingRectangle)]
    assert thickened and all(any(contains(box, cell) and strokes[id(box)] > 3 for box in thickened)
                             for cell in cells)


def test_a_label_stands_only_over_its_own_numbers_or_dimmed_ones(watched):
    """After every play of the with-PE step: while a matrix's «+ PE» label is on screen, each of its old numbers
    (computed without PE) still on screen is dimmed to DIMMED or less. Before, «Z_B = Attention(X_B + PE)» stood over
    Z_B's old rows at full opacity for 6 s."""
    _, plays, _ = watched
    for play, parts, _ in plays:
        labels = " ".join(part.tex_string for part in parts if isinstance(part, MathTex))
        for name, label in (("X_A", "X_A + PE"), ("X_B", "X_B + PE"), ("Z_A", "(X_A + PE)"), ("Z_B", "(X_B + PE)")):
            if label not in labels:
                continue
            old = [part for part in parts if getattr(part, "tag", ("", 0))[0] == name]
            assert all(opacity(part) <= DIMMED + 1e-6 for part in old), (name, play.start, play.kinds)


def test_the_largest_difference_never_grows_over_its_label(watched):
    """Every Indicate of «1.14 («al»)» in the with-PE step leaves it, at its largest, right of the colon of
    «palabra:» before it."""
    scene, plays, _ = watched
    pulses = [animation for play, _, _ in plays for animation in play.animations if isinstance(animation, Indicate)
              and any(getattr(part, "tag", ("",))[0] == "difference" for part in animation.mobject.get_family())]
    assert pulses
    for pulse in pulses:
        assert pulse.create_target().get_left()[0] > scene.verdict_label.get_right()[0] + 0.05


def test_the_frequency_boxes_frame_the_columns_the_table_names(watched):
    """At the end of the frequencies step, each frame round the heatmap's columns holds exactly one column's cells,
    and those columns are the ones the table beside it names («dim 0», «dim 14»)."""
    scene, _, seen = watched
    step = step_of(scene, "frequencies")
    named = sorted(int(text.text.split()[1]) for text in step.texts if text.text.startswith("dim "))
    boxes = [part for part in seen["frequencies"] if isinstance(part, SurroundingRectangle)
             and part.height >= seen["frequencies height"]]
    centres = seen["frequencies columns"]
    held = sorted(j for box in boxes for j, x in enumerate(centres) if box.get_left()[0] < x < box.get_right()[0])
    assert named == [0, 14] and held == named, (named, held)


def test_the_with_pe_step_never_looks_still_over_six_seconds(tmp_path):
    """Frame to frame as the reviews measure it (scene_checks.video_stills), at 640 x 360 and 10 frames a second, the
    with-PE step alone spoken at the narration's pace: nothing looks still over LONGEST_FREEZE (before: 9.6 s from
    «ya no son un simple reordenamiento» to the listening)."""
    _, path = render_video("positional", tmp_path, narration=PacedSpeaker(), frame_rate=10, pixels=VIEWER,
                           steps=parse_steps("with_pe", list(PositionalScene.STEPS)))
    assert [(round(start, 1), round(end, 1)) for start, end in video_stills(path, LONGEST_FREEZE)] == []


def test_the_sections_last_screen_changes_while_the_voice_still_talks(watched):
    """Review s14: the sum step's last change (its two frames and the note, at once) came with «Con muchas palabras…»
    and the screen then stood still for the sentence, the key sound's replay and the tail (6.3 s with the section's
    end). The last change now lands under LONGEST_FREEZE - 1.5 s before the step ends, while the voice talks."""
    scene, _, _ = watched
    step = step_of(scene, "sum")
    last_phrase = step.narration["phrases"][-1]
    assert step.settled > last_phrase[1] + 1.0 and step.settled < last_phrase[2]
    assert step.end - step.settled <= LONGEST_FREEZE - 1.5, (step.settled, step.end)
