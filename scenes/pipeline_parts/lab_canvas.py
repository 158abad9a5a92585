"""The lab's screen for its 7 steps: the canvas, left, and the side panel, right (sentence selector, step dots,
metrics, status bar). A lab step enters by moving the panel's dots; each metric appears from the step that
computes it."""

from __future__ import annotations

import numpy as np
from manim import LEFT, VGroup, smooth, squish_rate_func

from attn_math.lab import LAB_SENTENCES, lab_sentence_name
from scenes import style
from scenes.fades import Appear
from scenes.lab_panel import SentenceSelector, SidePanel
from scenes.pipeline_parts.common import PipelineCommon
from scenes.token_labels import abbreviated
from scenes.visuals import label_text, tagged_number, text_with_numbers

LAB_STEPS = ("embeddings", "queries", "keys", "scores", "scaled", "softmax", "output")
PANEL_WIDTH = 3.4
PANEL_GAP = 0.3  # between the canvas and the panel
SELECTOR_MARGIN = 0.4  # of the panel's width, left free around its sentence selector
METRIC_SWAP_SECONDS = 0.3  # a metric's «n/d» fading out, then its value fading in: each this long


class LabCanvas(PipelineCommon):
    """The lab's canvas and side panel; ``self.panel`` is on screen through steps 1-7."""

    def enter_lab_step(self, key: str, caption: str | None = None, new_numbers: int = 0, with_header=(),
                       **fields) -> list:
        """Header and caption (begin_step also cues the step's tone; ``with_header``, the last step's drawing
        leaving with the old header), and the panel's animations to play with the step's own."""
        number = LAB_STEPS.index(key) + 1
        self.begin_step(key, caption, new_numbers, with_header=with_header, **fields)
        animations = self.panel.go_to(number)
        self.dot_states[key] = self.panel.dots.states
        return animations

    def status(self) -> str:
        """The status bar: the query, as the lab writes it, named as the matrices name it (a long word would not fit).
        Not the lab's step ("Paso: 3/7"): the header's counter is the section's one step counter."""
        return self.labels["status"].format(query=abbreviated(self.tokens[self.query]))

    def selector(self, width: float) -> SentenceSelector:
        """The lab's three sentences by name, the configured one lit; for a sentence of one's own none is, and
        the title says so."""
        names, chosen = list(LAB_SENTENCES), lab_sentence_name(self.settings.sentence)
        title = self.labels["sentence_selector"] if chosen else self.labels["own_sentence"]
        return SentenceSelector(title, self.shown_words(names), names.index(chosen) if chosen else None, width)

    def canvas_box(self) -> tuple[float, float, float, float]:
        """The body left of the side panel."""
        left, right, bottom, top = self.body()
        return left, right - PANEL_WIDTH - PANEL_GAP, bottom, top

    def side_panel(self) -> SidePanel:
        """The panel with every metric of the query's row; the scene shows each value only from the step that
        computes it. The query is named once, in the status bar: a long word would not fit beside a metric's name."""
        _, right, bottom, top = self.body()
        run, labels, q = self.run, self.labels, self.query
        bits = text_with_numbers(labels["bits_value"], {"value": tagged_number(run.entropies[q], "entropy",
                                                                               font_size=style.CAPTION_SIZE)},
                                 font_size=style.CAPTION_SIZE)
        metrics = [(labels["metric_d_k"], tagged_number(run.steps.d_k, "d_k", font_size=style.CAPTION_SIZE, decimals=0)),
                   (labels["metric_entropy"], bits),
                   (labels["metric_max_weight"], tagged_number(run.max_weights[q], "max_weight",
                                                               font_size=style.CAPTION_SIZE))]
        panel = SidePanel(PANEL_WIDTH, top - bottom, metrics, self.status(),
                          self.selector(PANEL_WIDTH - SELECTOR_MARGIN), len(LAB_STEPS))
        panel.move_to(np.array([right - PANEL_WIDTH / 2, (top + bottom) / 2, 0]))
        self.pending_metrics = {"d_k": VGroup(panel.metric_values[0]), "softmax": VGroup(*panel.metric_values[1:])}
        panel.metrics[1].remove(*panel.metric_values)
        # until a step computes a value, «n/d» stands in its place: a metric's name is never left without one
        shrunk = panel.metrics[0][0].height / label_text(self.labels["metric_d_k"], style.MUTED, style.CAPTION_SIZE).height
        self.metric_blanks = {key: VGroup(*[self.blank_beside(self.labels["not_yet"], value, shrunk) for value in values])
                              for key, values in self.pending_metrics.items()}
        panel.metrics[1].add(*self.metric_blanks.values())
        return panel

    @staticmethod
    def blank_beside(text: str, value, shrunk: float) -> VGroup:
        """``text`` («n/d»: not yet computed) where ``value`` will be, on its line, as much smaller than written as the
        panel's texts are (a dash was 7 px tall at 720p: too small to read as a value)."""
        blank = label_text(text, style.MUTED, style.CAPTION_SIZE).scale(shrunk)
        return blank.align_to(value, LEFT).set_y(value.get_y())

    def show_metric(self, key: str, *animations, run_time: float):
        """Play ``animations`` while the panel's values computed at this step replace their «n/d», then file them in
        the panel."""
        value, blank = self.pending_metrics.pop(key), self.metric_blanks.pop(key)
        # the «n/d» fades in place (a Vanish would take it off the scene, and with it split the panel into pieces that
        # the value filed in it below would not be drawn with)
        # and the value fades in only once it has gone, both quickly at the play's start: cross-faded over the whole
        # play, «n/d» and «2.80 bits» stood one over the other (review s10, 77.5-78.0)
        swap = min(0.5, METRIC_SWAP_SECONDS / run_time) if run_time > 0 else 0.5
        self.play(*animations, blank.animate(rate_func=squish_rate_func(smooth, 0.0, swap)).set_opacity(0),
                  Appear(value, rate_func=squish_rate_func(smooth, swap, 2 * swap)), run_time=run_time)
        self.panel.metrics[1].remove(blank)
        self.remove(value)  # from the scene's top level, before it joins the panel that leaves with it
        self.panel.metrics[1].add(value)
