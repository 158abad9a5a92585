"""The lab's steps 1-3, a vector per token: the embeddings X (each bar named by what it stands for), then the
queries Q and the keys K, each grown out of a copy of X."""

from __future__ import annotations

from manim import DOWN, LEFT, UP, AnimationGroup, GrowFromEdge, LaggedStart, ReplacementTransform, TransformFromCopy, VGroup

from attn_math.lab import lab_sentence_name
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.common import ENTER_SECONDS, STEP_SECONDS, VOICE_LEFT
from scenes.pipeline_parts.lab_canvas import LabCanvas
from scenes.pipeline_parts.projection import Projections
from scenes.vector_stage import VectorStage
from scenes.visuals import label_text

MEANING_GAP = 0.35  # between the sentence's meaning and its tokens
MAKE_ROOM_SECONDS = 0.8  # X's bar names (and the meaning) leaving, X moving up to make room for Q and K
DIMMED_OPACITY = 0.3  # of the rows above the one being projected
VECTOR_LAG = 0.5  # of a vector's growth, before the next token's starts
NOTE_LINE_GAP = 0.1  # between the two lines over the first product


class LabVectors(LabCanvas, Projections):
    """Steps 1-3 on the lab's canvas: ``self.inputs`` (X alone, named bars) becomes ``self.vectors`` (X, Q, K), the
    query token's product ``self.band`` (q = W_Q x, then k = W_K x, with their numbers) under them."""

    def show_embeddings(self):
        """Step 1: the side panel and the tokens land, then each token's embedding grows, one after another."""
        steps, strings = self.run.steps, self.strings["steps"]["embeddings"]
        caption = strings[f"{'caption_one' if len(self.tokens) == 1 else 'caption'}_{self.settings.preset}"]
        self.begin_step("embeddings", caption, n=len(self.tokens), d=steps.X.shape[1])
        self.panel = self.side_panel()
        vectors_box, self.band_box = self.split_box(self.canvas_box())
        left, right, bottom, top = vectors_box
        self.vectors = VectorStage(self.tokens, [(steps.X, style.INPUT, "X"), (steps.Q, style.QUERY, "Q"),
                                                 (steps.K, style.KEY, "K")],
                                   right - left, top - bottom, query=self.query)
        self.place(self.vectors, vectors_box)
        left, right, bottom, top = self.canvas_box()
        # X alone first, tall enough for the name of each bar: what the embedding's numbers stand for
        meaning = self.meaning_label = self.meaning()
        room = meaning.height + MEANING_GAP if len(meaning) else 0.0
        self.inputs = VectorStage(self.tokens, [(steps.X, style.INPUT, "X")], right - left, top - bottom - room,
                                  query=self.query, features=self.feature_names(steps.X.shape[1]))
        if len(meaning):
            self.inputs.add(meaning.next_to(self.inputs.tokens, UP, buff=MEANING_GAP).match_x(self.inputs.tokens))
        self.place(self.inputs, self.canvas_box())
        inputs = self.inputs.rows[0]
        self.dot_states["embeddings"] = self.panel.dots.states
        self.cue("tokens", lands=True, count=len(self.tokens))  # the sentence laid out as its tokens land
        self.play(Appear(self.panel), Appear(self.inputs.tokens), Appear(inputs.name), Appear(self.inputs.features),
                  Appear(meaning), run_time=ENTER_SECONDS)
        self.play(LaggedStart(*[GrowFromEdge(vector, LEFT) for vector in inputs.vectors], lag_ratio=VECTOR_LAG),
                  run_time=self.fill_seconds())

    def convention_note(self, band) -> VGroup:
        """Over the product, how to read it: the guide (and the capital section) writes the same product in rows,
        Q = X W_Q with its W_Q of d × d_k, the transpose of the lab's d_k × d W_Q drawn here (review s8: two conventions
        on screen, never said to be one); and, when the product is written «≈», why: the lab computes from unrounded
        numbers, so redone from the numbers written the last decimal may differ (review s12: 7 of q's and k's 16
        numbers did, and no note said why; the capital section has its own). Centred between Q's row and the
        product's names, where K's row comes at step 3 (the notes leave then)."""
        texts = [self.labels["convention"], *([self.labels["approx_note"]] if band.approximate else [])]
        note = VGroup(*[label_text(text, style.MUTED, style.CAPTION_SIZE) for text in texts])
        note.arrange(DOWN, buff=NOTE_LINE_GAP, aligned_edge=LEFT)
        return self.note_over(band, note, self.vectors.rows[1], self.band_box[1] - self.band_box[0])

    def meaning(self):
        """What the lab's sentence means, to go above its tokens, when the lecture's language is not the lab's (the
        tokens, and so the numbers, stay the lab's Spanish ones); empty in Spanish or for a sentence of one's own."""
        name = lab_sentence_name(self.settings.sentence)
        text = self.strings["meanings"][name] if name else ""
        return VGroup(label_text(text, style.MUTED, style.BODY_SIZE)) if text else VGroup()

    def feature_names(self, d: int) -> list[str]:
        """What each of the embedding's d numbers stands for: the designed features by name; the lab's are
        only numbered (each mixes the word's hash and the position, attn_math.lab), from 0 as the lesson numbers
        the dimensions of its positional encoding."""
        if self.settings.preset == "sharp":
            return self.labels["features_sharp"]
        return [self.labels["feature_lab"].format(number=k) for k in range(d)]

    def show_projection(self, key: str, row: int):
        """Step 2 or 3: the rows above fade, the query token's product q = W_Q x (then k = W_K x) comes under them
        with every number of W, then the new row grows out of a copy of X, token by token, the product's result
        with the query's vector.

        K repeats Q's animation, so it runs in half Q's time; the panel's d_k appears with Q. The caption gives
        W's shape, d_k × d in the lab's q = W x."""
        d_k, d = self.run.steps.Q.shape[1], self.run.steps.X.shape[1]
        # what the last step showed and this one drops leaves with its header: X's bars' names (and the sentence's
        # meaning) for Q's step; q's column and the note on the guide's convention for K's
        leaving = (VGroup(self.inputs.features, self.meaning_label) if key == "queries"
                   else VGroup(self.band.result, self.convention, self.band.matrix))
        animations = self.enter_lab_step(key, new_numbers=3 if key == "queries" else 2, with_header=[Vanish(leaving)],
                                         d_k=d_k, d=d)
        if key == "queries":  # X makes room for Q and K
            self.play(*animations, ReplacementTransform(self.inputs.tokens, self.vectors.tokens),
                      ReplacementTransform(self.inputs.rows[0], self.vectors.rows[0]), run_time=MAKE_ROOM_SECONDS)
            animations = []
        above, projected = self.vectors.rows[:row], self.vectors.rows[row]
        band = self.projection_band({"queries": "Q", "keys": "K"}[key], self.band_box)
        if key == "queries":  # with the first product, once, how the guide writes it (the capital section's Q = X W_Q)
            self.convention = self.convention_note(band)
            product = [Appear(band.product), Appear(band.equals), Appear(self.convention)]
        else:  # W_K in W_Q's place, k's column gone until computed (q's, the note and W_Q left with the header: morphed
            # into W_K, their digits overlapped, review s13); x stays
            product = [Appear(band.matrix), *[ReplacementTransform(getattr(self.band, part), getattr(band, part))
                                              for part in ("embedding", "equals")],
                       Appear(self.approx_band_note(band, projected, self.band_box[1] - self.band_box[0]))]  # where K's row ends: the «≈» note on its own
        self.play(*animations, *[earlier.animate.set_opacity(DIMMED_OPACITY) for earlier in above],
                  Appear(projected.name), *product, run_time=ENTER_SECONDS)
        self.band = band
        self.not_to_read(band)
        growths = [TransformFromCopy(source, target) for source, target
                   in zip(self.vectors.rows[0].vectors, projected.vectors)]
        growths[self.query] = AnimationGroup(growths[self.query], Appear(band.result))  # its numbers as it grows
        reveal = LaggedStart(*growths, lag_ratio=VECTOR_LAG)
        if key == "queries":
            self.show_metric("d_k", reveal, run_time=self.fill_seconds())
        else:
            self.play(reveal, run_time=max(STEP_SECONDS, self.fill_seconds() / 2, self.voice_left(VOICE_LEFT)))
