"""Section 6: the AI Visual Lab's 7-step self-attention pipeline, then its temperature and its causal mask.

Steps 1-7 are the lab's canvas and side panel on the weights of ``pipeline.preset``: "lab" (the default)
gives the browser's numbers exactly (``attn_math.lab``: seed 42, d_k = 8), "sharp" designed weights under
which the attention does something a student can name (``attn_math.sharp``). Then the two side by side
(why the lab's is flat: random, untrained weights), the guide's exercise 1 on both (does the article
attend to its noun?), the guide's step 8 (temperature) and exercises 2-4 (max weight against T, the
causal mask, entropy) on the configured preset. The header's counter ("Paso 3/13") is the section's one step
counter throughout; the panel's step dots say which of the lab's 7 steps is on, its status bar the query.
LessonScene keeps each step on screen for its reading time (``reading_seconds``); here the main reveal of a
step is stretched to fill that time (``LessonScene.reveal_seconds``), so that no step ends on a long frozen stretch.

The scene is composed of one mixin per part, each in its module under ``scenes/pipeline_parts/`` (named by what it
shows: see that package's docstring); this class only declares the steps and plays them in order.
"""

from __future__ import annotations

from attn_math.lab import spelled
from lesson.pipeline_answers import question_fields
from scenes.lesson_scene import LessonScene
from scenes.pipeline_parts.causal import CausalMask
from scenes.pipeline_parts.dimensions import DimensionSteps
from scenes.pipeline_parts.lab_canvas import LAB_STEPS
from scenes.pipeline_parts.lab_matrices import LabMatrices
from scenes.pipeline_parts.lab_output import LabOutput
from scenes.pipeline_parts.lab_vectors import LabVectors
from scenes.pipeline_parts.presets import PresetComparison
from scenes.pipeline_parts.temperature import TemperatureSteps


class PipelineScene(LabVectors, LabMatrices, LabOutput, PresetComparison, TemperatureSteps, CausalMask,
                    DimensionSteps, LessonScene):
    section_id = "pipeline"
    STEPS = (*LAB_STEPS, "presets", "article", "temperature", "temperature_plot", "causal", "entropy", "dimensions")

    def lesson(self):
        settings = self.settings
        self.labels = self.strings["labels"]
        self.custom_weights = settings.lab_weights()
        self.run = self.attention(settings.temperature, settings.causal)
        self.answers = question_fields(settings, self.job.config.lecture.lang, self.strings["answer_pieces"])
        # the tokens as the screen writes them; the runs read the sentence itself, as the lab types it
        self.tokens, self.query = tuple(self.shown_words(self.run.tokens)), settings.query
        self.dot_states: dict[str, tuple[str, ...]] = {}  # the panel's dots while each lab step is on screen
        self.heard_figures: set[tuple[tuple[float, ...], float]] = set()  # attention notes played (keys_to_sound)
        self.show_embeddings()
        self.show_projection("queries", row=1)
        self.show_projection("keys", row=2)
        self.show_scores()
        self.show_scaled()
        self.show_softmax()
        self.show_output()
        self.show_presets()
        self.show_article()
        self.show_temperatures()
        self.show_temperature_plot()
        self.show_causal_comparison()
        self.show_entropy_comparison()
        self.show_dimensions()


    def shown_word(self, token: str) -> str:
        """A token as Spanish writes it: the lab types «atencion» and «rapido» without their accents (its numbers
        come from the tokens as typed, ``attn_math.lab.spelled``)."""
        return spelled(token)

