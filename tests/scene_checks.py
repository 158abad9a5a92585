"""Render a section's scene in-process, quickly, and check what a viewer would notice.

Every check takes a rendered scene (or a video) and returns a list of problems, empty when all is
well, so a section's test reads ``assert legibility_problems(scene) == []``, or, for all four checks a
lecture must pass, ``assert lecture_problems(scene) == []``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import av
import numpy as np
import pytest
from manim import Wait, config, tempconfig

from lecture.render.output_folder import private_lock
from lesson.config import load_config
from lesson.locale import load_locale
from lesson.narration_text import TAIL
from lesson.sections import BY_ID
from scenes.lesson_scene import LONGEST_FREEZE, LessonScene, SceneJob, reading_seconds
from scenes.visuals import keep_typeset_labels
from sonify.synth import SAMPLE_RATE

TINY = {"pixel_width": 256, "pixel_height": 144, "frame_rate": 5}
# A scene run without drawing (``run_scene``) times its steps as a drawn video at this frame rate does (each play
# whole frames: scenes.lesson_scene.drawn_frames), the default quality's; no frame is drawn, so the rate costs nothing.
RECORDS_FPS = 30
FRAME = 1 / RECORDS_FPS  # s: one frame of those records
# Tex and text renderings are cached by content, so every test run on a machine shares them;
# manim's caches are not process-safe, so one scene at a time uses them.
CACHE = Path(tempfile.gettempdir()) / "lecture-test-cache" / os.environ.get("PYTEST_XDIST_WORKER", "main")


keep_typeset_labels(4096)  # a test process runs the same sections' scenes many times: about 0.15 MB a label

MIN_CAP_PIXELS = 14  # at 720p: the least cap height of a text a student must read
NOTATION = [(re.compile(r"(?<![\w\u2212-])-(?=\d)"), "a hyphen for a minus sign (write \u2212)"),
            (re.compile(r"\d(?:\.\d+)?e[+\u2212-]?\d"), "a number in e-notation (write 10⁴)")]


def scene_job(overrides: tuple[str, ...], locale: dict | None = None, **job) -> SceneJob:
    """The job of a scene run with ``overrides``: the config and the locale of its ``lecture.lang``, or ``locale``."""
    config = load_config(overrides=overrides)
    return SceneJob(config=config, locale=locale or load_locale(config.lecture.lang), **job)


def run_scene(section_id: str, *overrides: str, stills_dir=None, locale: dict | None = None, steps=None,
              frame_rate: int = RECORDS_FPS, narration=None):
    """Run the whole scene (or the clip of ``steps``, a StepRange) with animations skipped (state only, no video),
    timed as a video at ``frame_rate``, and return it; ``narration`` speaks its steps (a Speaker), ``locale`` stands in
    for the locale of the config's
    ``lecture.lang``."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with private_lock(CACHE / ".lock"), tempfile.TemporaryDirectory() as media, tempconfig({
            **TINY, "frame_rate": frame_rate, "media_dir": media, "tex_dir": str(CACHE / "Tex"), "text_dir": str(CACHE / "texts"),
            "write_to_movie": False, "save_last_frame": False,
            "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
        scene = BY_ID[section_id].scene()(scene_job(overrides, locale, stills_dir=stills_dir, steps=steps,
                                                    narration=narration), skip_animations=True)
        scene.render()
    return scene


def families_at_step_ends(scene_class, section: str, *overrides: str, **options):
    """``run_scene(section, ...)`` with, at each step's end, every mobject on screen (the scene's family) recorded:
    (scene, {step key: mobjects})."""
    import pytest

    seen = {}
    finish = scene_class.finish_step

    def snapshot(scene):
        if scene.steps and not scene.steps[-1].end:
            seen[scene.steps[-1].key] = [part for top in scene.mobjects for part in top.get_family()]
        finish(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scene_class, "finish_step", snapshot)
        scene = run_scene(section, *overrides, **options)
    return scene, seen

def render_video(section_id: str, folder: Path, *overrides: str, frame_rate: int = TINY["frame_rate"],
                 narration=None, steps=None, pixels: tuple[int, int] | None = None):
    """Render the scene (or the clip of ``steps``) as a tiny video (256 x 144 unless ``pixels``, 5 fps unless
    ``frame_rate``) in ``folder``, spoken by ``narration`` if given; returns the scene and the file. At 256 x 144 a
    digit's strokes cover a fraction of a pixel: a row of numbers appearing in 0.2 s, which the reviews' 640 x 360
    sees move, changes too few pixels by too little there (``video_stills`` of a scene built of such rows wants
    ``pixels=(640, 360)``)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    size = {} if pixels is None else {"pixel_width": pixels[0], "pixel_height": pixels[1]}
    with private_lock(CACHE / ".lock"), tempconfig({
            **TINY, **size, "frame_rate": frame_rate, "media_dir": str(folder), "tex_dir": str(CACHE / "Tex"),
            "text_dir": str(CACHE / "texts"), "write_to_movie": True, "save_last_frame": False, "format": None,
            "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
        scene = BY_ID[section_id].scene()(scene_job(overrides, narration=narration, steps=steps))
        scene.render()
        return scene, Path(scene.renderer.file_writer.movie_file_path)


def records(scene):
    """Every screen a step record describes: each step's end, then each question or closing card."""
    return [*scene.steps, *getattr(scene, "cards", [])]


def layout_problems(scene) -> list[str]:
    """Texts overlapping other texts, or leaving the frame, at the end of each step."""
    half_width, half_height = config.frame_width / 2, config.frame_height / 2
    problems = []
    for step in records(scene):
        for index, text in enumerate(step.texts):
            if text.left < -half_width or text.right > half_width or text.bottom < -half_height or text.top > half_height:
                problems.append(f"{step.key}: {text.text!r} leaves the frame")
            for other in step.texts[index + 1:]:
                if text.overlaps(other):
                    problems.append(f"{step.key}: {text.text!r} overlaps {other.text!r}")
    return problems


def legibility_problems(scene, exempt=lambda text: False) -> list[str]:
    """Texts whose capitals (or digits, or subscripts) are under MIN_CAP_PIXELS high at 720p; ``exempt``
    names texts no one needs to read (a decoration), by their record."""
    least = MIN_CAP_PIXELS / 720 * config.frame_height
    return [f"{step.key}: {text.text!r} cap height {text.cap_height * 720 / config.frame_height:.1f} px"
            for step in records(scene) for text in step.texts if text.cap_height < least and not exempt(text)]


def notation_problems(scene) -> list[str]:
    """Numbers written as a program prints them: a hyphen for minus, 2.0e4 for 10⁴."""
    return [f"{step.key}: {text.text!r} has {what}" for step in records(scene) for text in step.texts
            for pattern, what in NOTATION if pattern.search(text.text)]


def pacing_problems(scene) -> list[str]:
    """Steps shorter than their reading time (a spoken step: its new numbers' and its voice), and stretches where nothing moves longer than LONGEST_FREEZE."""
    problems = []
    for step in scene.steps:
        spoken = "seconds" in step.narration  # a voice says the caption: not on screen, not read; the voice is heard
        needed = max(reading_seconds("", step.new_numbers), step.narration["seconds"] + TAIL) if spoken \
            else reading_seconds(step.caption, step.new_numbers)
        if step.read_until - step.start < needed - 1e-6:
            problems.append(f"{step.key}: on screen {step.read_until - step.start:.1f} s, reading needs {needed:.1f} s")
    return problems + [f"nothing moves from {start:.1f} s to {end:.1f} s ({end - start:.1f} s)"
                       for start, end in freezes(scene) if end - start > LONGEST_FREEZE + 1e-6]


def lecture_problems(scene) -> list[str]:
    """Everything a viewer would notice: overlaps or texts out of frame, texts under 14 px, numbers written
    as a program prints them, steps shorter than their reading time or standing still too long."""
    return [*layout_problems(scene), *legibility_problems(scene), *notation_problems(scene), *pacing_problems(scene)]


def step_tone_problems(scene) -> list[str]:
    """Sounds land with what they announce: a step's tone sounds as its new header lands (when the step starts),
    not as it starts to fade in; one tone a step, in order."""
    tones = [cue for cue in scene.cues if cue.kind == "step"]
    if [cue.values["step"] for cue in tones] != list(range(1, len(scene.steps) + 1)):
        return [f"step tones {[cue.values['step'] for cue in tones]} for {len(scene.steps)} steps"]
    return [f"{step.key}: its tone at {tone.time} s, the step at {step.start} s"
            for tone, step in zip(tones, scene.steps) if tone.time != pytest.approx(step.start, abs=1e-6)]


class PacedSpeaker:
    """A stand-in voice at the narration's pace, 166 words a minute (docs/performance.md): each phrase a quiet tone
    as long as its words take, no synthesis. For ``run_scene(..., narration=PacedSpeaker())``."""

    WORD_SECONDS = 60 / 166

    def speak(self, name, phrases, spoken):
        return [0.1 * np.sin(np.arange(int(self.WORD_SECONDS * len(phrase.split()) * SAMPLE_RATE)) / 10.0)
                for phrase in phrases]


def stills_in(scene, key: str) -> list[tuple[float, float]]:
    """The still stretches over LONGEST_FREEZE that start within step ``key``."""
    record = next(step for step in scene.steps if step.key == key)
    return [(start, end) for start, end in freezes(scene)
            if record.start <= start < record.end and end - start > LONGEST_FREEZE + 1e-6]


def stills_outside_cards(scene) -> list[tuple[float, float]]:
    """The still stretches over LONGEST_FREEZE that do not lie within a card (cards follow the card rules:
    ``lesson_scene.hold_card``), rounded to 0.1 s for a readable failure."""
    cards = [(card.start, card.end) for card in getattr(scene, "cards", [])]
    return [(round(start, 1), round(end, 1)) for start, end in freezes(scene) if end - start > LONGEST_FREEZE + 1e-6
            and not any(first - 1e-6 <= start and end <= last + 1e-6 for first, last in cards)]


def freezes(scene) -> list[tuple[float, float]]:
    """The scene's waits, back-to-back ones merged: the (start, end) of every still stretch."""
    merged: list[list[float]] = []
    for start, end in sorted(scene.freezes):
        if merged and start - merged[-1][1] < 1e-6:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def video_freezes(path: Path, longest: float = LONGEST_FREEZE, level: int = 24, share: float = 0.001,
                  through_key_frames: bool = True) -> list[tuple[float, float]]:
    """(start, end) in seconds of every still stretch longer than ``longest``, decoded from the file.

    A stretch is still while each frame differs from the stretch's first frame in fewer than ``share``
    of its pixels by more than ``level`` of 255: the encoder's flicker on a still frame does not count, a
    bar shrinking for a second does. Every play and wait of a scene is a movie part of its own that starts
    on a key frame, so a still screen is re-encoded every few seconds: at 256x144 that moves 30 to 50 edge
    pixels by up to ~60 of 255 (measured: heads, 47-51 s). A key frame that differs from the frame before
    it by less than a tenth of what a finished reveal moves is that re-encoding: the stretch goes on, and
    the next frames are compared with the key frame as well as with the stretch's first, and with the frame after
    it when that one is still (the P-frames after a noisy key frame settle: measured, pipeline's entropy step, 40 px
    off the key frame and 5 px off the frame before it; or, after the dots' eased landing, 36 px off the key frame and
    0 px off the frame after them). One faint frame (under twice ``share`` off the stretch, no pixel
    by twice ``level``) whose next frame is back on it is the encoder's flicker too (measured: matrix's inputs step,
    one P-frame 37 px off a still screen at 256x144 by at most 35 levels, against a floor of 36.9 px; the frames
    before and after it 0-6 px off; a light running round a row changes as few pixels, by 160-210 levels); a change
    that stays, however faint, ends the stretch where it began. Not ``through_key_frames``: a key frame is where a
    play or a wait began, so an animation's last easing frames end there (where a landing cue sounds).
    """
    runs, references, previous, flicker, settling, run_start, time = [], [], None, None, False, 0.0, 0.0

    def moved(pixels, reference, most):
        return np.mean(np.abs(pixels - reference) > level) >= most

    def still(pixels):
        return any(not moved(pixels, reference, share) for reference in references)

    def faint(pixels):  # under twice the floor's pixels, none of them by twice its level: not a drawing's contrast
        return any(not moved(pixels, reference, 2 * share) and np.abs(pixels - reference).max() < 2 * level
                   for reference in references)

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            time = float(frame.pts * stream.time_base)
            pixels = frame.to_ndarray(format="gray").astype(np.int16)
            if flicker is not None:
                if still(pixels):  # back on the stretch: the frame before was the encoder's
                    flicker, previous = None, pixels
                    continue
                runs.append((run_start, flicker[0]))  # it began a change
                references, run_start, flicker = [flicker[1]], flicker[0], None
            if not references or still(pixels):
                references = references + [pixels] if settling or not references else references
            elif frame.key_frame and through_key_frames and not moved(pixels, previous, 2 * share):
                references.append(pixels)  # the same picture, encoded again
            elif faint(pixels):
                flicker = (time, pixels)  # just over the floor: the next frame tells
            else:
                runs.append((run_start, time))
                references, run_start = [pixels], time
            settling = frame.key_frame and references[-1] is pixels and len(references) > 1
            previous = pixels
        if flicker is not None:
            runs.append((run_start, flicker[0]))
            run_start = flicker[0]
        runs.append((run_start, time + 1 / float(stream.average_rate)))
    return [(start, end) for start, end in runs if end - start > longest + 1e-6]


VIEWER_PIXELS = 40 / (640 * 360)  # the reviewers' still: fewer than 40 pixels of a 640 x 360 frame change...
VIEWER_LEVEL = 24  # ...by more than 24 grey levels from one frame to the next, at 30 frames a second
VIEWER_SIZE = (640, 360)  # a larger video is measured scaled to this size, as the reviews measure 720p


def video_stills(path: Path, longest: float = LONGEST_FREEZE) -> list[tuple[float, float]]:
    """(start, end) of every stretch longer than ``longest`` that a viewer sees as still, measured as the reviews
    measure it: frame to frame, fewer than VIEWER_PIXELS of the pixels change by more than VIEWER_LEVEL grey levels
    a thirtieth of a second apart. A slow fade (a label taking 10 s to appear) is still by this measure, where
    ``video_freezes`` sees it move. At a lower frame rate a frame spans more of a fade: the level scales with it,
    so a fade counts as moving at any rate exactly when it takes under ~0.35 s."""
    runs, previous, run_start, time = [], None, None, 0.0
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        level = VIEWER_LEVEL * 30 / float(stream.average_rate)
        for frame in container.decode(stream):
            time = float(frame.pts * stream.time_base)
            if frame.width > VIEWER_SIZE[0]:  # as the reviews see a larger video: scaled to 640 x 360
                frame = frame.reformat(width=VIEWER_SIZE[0], height=VIEWER_SIZE[1])
            pixels = frame.to_ndarray(format="gray").astype(np.int16)
            moving = previous is not None and np.mean(np.abs(pixels - previous) > level) >= VIEWER_PIXELS
            if moving and run_start is not None:
                runs.append((run_start, time))
                run_start = None
            elif not moving and run_start is None:
                run_start = time
            previous = pixels
        if run_start is not None:
            runs.append((run_start, time + 1 / float(stream.average_rate)))
    return [(start, end) for start, end in runs if end - start > longest + 1e-6]


class Play:
    """One play as the scene ran it: when, whether it only waited, and what it animated (a transform's target too:
    what it lands on)."""

    def __init__(self, start: float, end: float, animations):
        self.start, self.end, self.animations = start, end, list(animations)
        self.waits = all(isinstance(animation, Wait) for animation in animations)
        self.animated = [mobject for animation in flattened(animations) if not isinstance(animation, Wait)
                         for mobject in (animation.mobject, getattr(animation, "target_mobject", None))
                         if mobject is not None]
        self.kinds = {type(animation).__name__ for animation in animations}

    def shows(self, mobject) -> bool:
        """Whether ``mobject`` (or a part of it) is animated in this play."""
        return any(part is mobject for animated in self.animated for part in animated.get_family())

    def tags(self) -> set:
        """The tagged numbers (name, (i, j)) this play animates."""
        return {part.tag for animated in self.animated for part in animated.get_family() if hasattr(part, "tag")}


def flattened(animations) -> list:
    """The animations and, for a composition (Succession, LaggedStart, AnimationGroup), the ones inside it: a
    Succession's own group holds only what its first animation shows when the play starts."""
    found = []
    for animation in animations:
        found.append(animation)
        found.extend(flattened(getattr(animation, "animations", ())))
    return found


def recorded(section_id: str, narration=None):
    """The section's scene, run with every play and every cue's place among them logged in order:
    [("cue", index in scene.cues) | ("play", Play)]; ``narration`` speaks its steps (a Speaker)."""
    log = []
    play, cue = LessonScene.play, LessonScene.cue

    def logged_play(self, *animations, **options):
        start = self.renderer.time
        play(self, *animations, **options)
        log.append(("play", Play(start, self.renderer.time, animations)))

    def logged_cue(self, kind, *arguments, **values):
        log.append(("cue", len(self.cues)))
        cue(self, kind, *arguments, **values)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged_play)
        patch.setattr(LessonScene, "cue", logged_cue)
        scene = run_scene(section_id, narration=narration)
    return scene, log


def _shared_defaults() -> dict[str, tuple]:
    """One cache in the process, whether this module was imported as ``scene_checks`` or ``tests.scene_checks``."""
    for name in ("scene_checks", "tests.scene_checks"):
        found = getattr(sys.modules.get(name), "_DEFAULTS", None)
        if found is not None:
            return found
    return {}


_DEFAULTS: dict[str, tuple] = _shared_defaults()


def shared_recorded(section_id: str):
    """``recorded(section_id)``, the section's scene at the default config with its log, run once in this process
    and shared by the tests that only read it (a test that patches the scene as it runs calls ``run_scene`` or
    ``recorded`` itself). The modules that read it run on one xdist worker (conftest.SHARED_SCENES), so each
    default scene runs once in the session; its records, plays and cues are the same as a plain ``run_scene``'s."""
    if section_id not in _DEFAULTS:
        _DEFAULTS[section_id] = recorded(section_id)
    return _DEFAULTS[section_id]


def shared_scene(section_id: str):
    """The section's scene at the default config (``shared_recorded`` without its log)."""
    return shared_recorded(section_id)[0]
