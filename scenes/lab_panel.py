"""The AI Visual Lab's side panel: ``SidePanel`` holds the lab's equation (``lab_equation``), its sentence selector
(the chosen one of its three sentences), its step dots (inactive, active, completed), its metrics and its status
bar with the query ("Q: gato")."""

from __future__ import annotations

from collections.abc import Sequence

from manim import DOWN, LEFT, RIGHT, UP, Circle, MathTex, RoundedRectangle, Text, VGroup

from scenes import style
from scenes.token_labels import smallest_line_height
from scenes.visuals import baseline, fit, label_text, sit_on

ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}
EQUATION = (r"\text{Attention}(Q,K,V) =", r"\text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V")  # the lab's


def lab_equation(font_size: float = 34) -> VGroup:
    """Attention(Q, K, V) = softmax(QK^T / (sqrt(d_k) T)) V on two lines, Q, K and V in their colours.

    The first line a size down: it has no scripts, and as wide as the second it would shrink d_k with it."""
    lines = VGroup()
    for line, size in zip(EQUATION, (0.85 * font_size, font_size)):
        tex = MathTex(line, substrings_to_isolate=list(ROLE_COLOURS), font_size=size, color=style.TEXT)
        for role, colour in ROLE_COLOURS.items():
            tex.set_color_by_tex(role, colour)
        lines.add(tex)
    return lines.arrange(DOWN, buff=0.15)


class StepDots(VGroup):
    """The lab's step indicator: one dot per step, inactive (outline), active (white), completed (filled)."""

    STYLES = {
        "inactive": dict(fill_color=style.PANEL, fill_opacity=0.0, stroke_color=style.MUTED, stroke_width=2),
        "active": dict(fill_color=style.HIGHLIGHT, fill_opacity=1.0, stroke_color=style.HIGHLIGHT, stroke_width=5),
        "completed": dict(fill_color=style.MUTED, fill_opacity=1.0, stroke_color=style.MUTED, stroke_width=2),
    }

    def __init__(self, count: int, step: int = 0, radius: float = 0.13, buff: float = 0.24):
        super().__init__(*[Circle(radius=radius) for _ in range(count)])
        self.arrange(RIGHT, buff=buff)
        self.states = self.states_at(step)
        for dot, state in zip(self, self.states):
            dot.set_style(**self.STYLES[state])

    def states_at(self, step: int) -> tuple[str, ...]:
        """Each dot's state while step ``step`` (1-based; 0 before the first) is on screen."""
        return tuple("completed" if k < step else "active" if k == step else "inactive"
                     for k in range(1, len(self) + 1))

    def go_to(self, step: int) -> list:
        """Animations that restyle the dots that change."""
        states = self.states_at(step)
        animations = [dot.animate.set_style(**self.STYLES[new]) for dot, old, new in zip(self, self.states, states)
                      if old != new]
        self.states = states
        return animations


class SentenceSelector(VGroup):
    """The lab's sentence selector: its title, then one chip per sentence name, the chosen one lit (none for
    a sentence of one's own, which the title then says)."""

    def __init__(self, title: str, names: Sequence[str], chosen: int | None, width: float):
        super().__init__()
        self.title = label_text(title, style.MUTED, style.CAPTION_SIZE)
        self.chips = VGroup()
        for index, name in enumerate(names):
            lit = index == chosen
            text = label_text(name, style.BACKGROUND if lit else style.MUTED, style.CAPTION_SIZE,
                              weight="BOLD" if lit else "NORMAL")
            chip = RoundedRectangle(width=text.width + 0.24, height=smallest_line_height() * 1.25 + 0.1,
                                    corner_radius=0.08, stroke_color=style.MUTED, stroke_width=1.5,
                                    fill_color=style.HIGHLIGHT, fill_opacity=1.0 if lit else 0.0)
            self.chips.add(VGroup(chip, text.move_to(chip)))
        self.chips.arrange(RIGHT, buff=0.12)
        self.add(self.title, self.chips)
        self.arrange(DOWN, buff=0.15)
        fit(self, width, 1.2)


class SidePanel(VGroup):
    """The lab's side panel, built to ``width`` x ``height``: equation, sentence selector, step dots, metrics,
    status bar.

    ``metrics`` is a list of (name, value) with value a tagged number or a text; ``status`` the
    status bar's text (the query), a Text in the lab's monospaced font, so step records list it.
    ``metric_values[k]`` is the k-th value, which a scene may show only once computed.
    """

    MARGIN = 0.2  # above the content and between it and the status bar

    def __init__(self, width: float, height: float, metrics: Sequence[tuple[str, VGroup]], status: str,
                 selector: SentenceSelector, steps: int = 7, step: int = 1):
        super().__init__()
        self.background = RoundedRectangle(width=width, height=height, corner_radius=0.15, stroke_width=0,
                                           fill_color=style.PANEL, fill_opacity=1.0)
        self.equation = fit(lab_equation(), width - 0.4, 1.3)
        self.selector = selector
        self.dots = fit(StepDots(steps, step), width - 0.5, 1.0)
        self.metrics = self._metrics(metrics, width - 0.6)
        self.metric_values = list(self.metrics[1])
        self.status_width = width - 0.4
        self.status = self.status_text(status)
        self.status_strip = RoundedRectangle(width=width - 0.3, height=self.status.height + 0.25, corner_radius=0.08,
                                             stroke_width=0, fill_color=style.BACKGROUND, fill_opacity=1.0)
        self.status_strip.align_to(self.background, DOWN).shift(UP * 0.15)
        self.status.move_to(self.status_strip)
        content = VGroup(self.equation, self.selector, self.dots, self.metrics).arrange(DOWN, buff=0.22)
        room = self.background.get_top()[1] - self.status_strip.get_top()[1] - 2 * self.MARGIN
        fit(content, width - 0.3, room)  # a short panel shrinks its content rather than run it under the status bar
        content.move_to(self.background).align_to(self.background, UP).shift(DOWN * self.MARGIN)
        self.add(self.background, content, self.status_strip, self.status)

    def status_text(self, status: str) -> Text:
        text = Text(status, font=style.NUMBER_FONT, font_size=style.CAPTION_SIZE - 2, color=style.TEXT,
                    line_spacing=0.8)
        text.shown_text = status
        return fit(text, self.status_width, 2.0)

    @staticmethod
    def _metrics(metrics, width: float) -> VGroup:
        """Two columns: names (muted) left-aligned, values left-aligned after the widest name, on one baseline."""
        names = VGroup(*[label_text(name, style.MUTED, style.CAPTION_SIZE) for name, _ in metrics])
        names.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        values = VGroup(*[value for _, value in metrics])
        for name, value in zip(names, values):
            sit_on(value.align_to(names.get_right() + RIGHT * 0.3, LEFT), baseline(name))
        return fit(VGroup(names, values), width, 10.0)

    def go_to(self, step: int) -> list:
        """Animations that light dot ``step``."""
        return self.dots.go_to(step)
