"""The quick section's scene: a formula, the halves it makes, the last one."""

from manim import DOWN, Create, MathTex, Text, Write

from quick_section.halves import halves
from scenes.lesson_scene import LessonScene


class QuickScene(LessonScene):
    section_id = "quick"
    STEPS = ("start", "halved", "last")

    def lesson(self):
        values = halves(self.settings.count)
        seconds = self.settings.draw_seconds
        self.begin_step("start", count=self.settings.count)
        self.cue("ping", value=float(values[0]))
        self.play(Write(MathTex(r"x_{k+1} = \tfrac{1}{2}\,x_k")), run_time=seconds)
        self.begin_step("halved")
        self.play(Create(Text("  ".join(f"{value:g}" for value in values)).scale(0.5).shift(DOWN)), run_time=seconds)
        self.begin_step("last", last=f"{values[-1]:g}")
        self.play(Create(Text(f"{values[-1]:g}").shift(2 * DOWN)), run_time=seconds)
