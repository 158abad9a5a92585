"""Each section's config table as a typed model: the checks that name the key and what was expected. A section's
record (lesson.sections) names its model; its defaults are its table in ``assets/default.toml``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from attn_math import heads, lab, learned, worked_example
from attn_math.attention import MATRICES, check_shapes, instructive_row, plural, self_attention
from attn_math.geometry import PLANE_DIMENSIONS
from attn_math.validation import as_words
from lesson.config_hints import clipped
from lesson.sentences import check_sentence

MATRIX_MAX_TOKENS = 6  # rows of X that fit on screen with their numbers
MATRIX_MAX_DIM = 4  # columns of X, W_Q, W_K, W_V that fit on screen
MATRIX_WORD_LETTERS = 12  # a row's word left of X: "transformers" fits
MATRIX_ENTRY_LIMIT = 10.0  # |entry| of an editable matrix, so every number fits its cell
PIPELINE_MAX_DIM = 16  # rows (d_k, d_v) of a custom lab weight matrix: bars per token that still read


Matrix = list[list[float]]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)

    def effective(self) -> dict[str, Any]:
        """The table as plain data for TOML, no empty keys (a table with derived values gives those too)."""
        return self.model_dump(exclude_none=True)

    def warnings(self, lang: str) -> list[str]:
        """What to say before rendering with these values in ``lang`` (valid, but the section shows less)."""
        return [f"step {key} skipped: {why}" for key, why in self.skipped_steps().items()]

    def skipped_steps(self) -> dict[str, str]:
        """Steps of the section that these values cannot show truthfully, each with why: they are left out of
        the section (its steps are numbered without them) and ``--steps`` refuses them."""
        return {}


def check_tokens(tokens: list[str], rows: int) -> list[str]:
    """One word of at most MATRIX_WORD_LETTERS letters for each of X's ``rows``, of the scripts the scenes draw."""
    if len(tokens) != rows:
        raise ValueError(f"tokens: expected one word for each of the {rows} rows of X, got {len(tokens)}")
    for token in tokens:
        if len(token.split()) != 1 or as_words("tokens", token, 1)[0] != token.strip():
            raise ValueError(f"tokens: expected one word per row, got {clipped(repr(token))}")
        if len(token.strip()) > MATRIX_WORD_LETTERS:
            raise ValueError(f"tokens: expected words of at most {MATRIX_WORD_LETTERS} letters (they label X's rows), "
                             f"got {clipped(repr(token))}")
    try:
        check_sentence(" ".join(tokens), rows)
    except ValueError as error:
        raise ValueError(f"tokens: {error}") from None
    return tokens


def check_row(row, rows: int) -> None:
    """``row`` (the walkthrough's, from 1) names one of X's ``rows``."""
    if isinstance(row, str) or not 1 <= row <= rows:
        raise ValueError(f"row: expected a whole number from 1 to {rows} (a row of X), got {row}")


def check_matrix(key: str, value: Matrix | None, max_rows: int, max_cols: int) -> Matrix | None:
    """Rectangular, non-empty, within the screen's size and the entry limit."""
    if value is None:
        return None
    if not value or not value[0]:
        raise ValueError(f"{key}: expected a non-empty matrix (a list of rows)")
    lengths = [len(row) for row in value]
    if len(set(lengths)) != 1:
        raise ValueError(f"{key}: expected rows of equal length, got lengths {clipped(str(lengths))}")
    if len(value) > max_rows or len(value[0]) > max_cols:
        raise ValueError(f"{key}: at most {max_rows}x{max_cols} fits on screen, got {len(value)}x{len(value[0])}")
    if any(abs(entry) > MATRIX_ENTRY_LIMIT for row in value for entry in row):
        raise ValueError(f"{key}: expected entries between -{MATRIX_ENTRY_LIMIT:g} and {MATRIX_ENTRY_LIMIT:g}")
    return value


class MatrixConfig(StrictModel):
    """Section 1: X, W_Q, W_K, W_V start from ``preset``; any matrix given here replaces the preset's."""

    preset: Literal["default", "large_scores", "shared_projection"]
    X: Matrix | None = None
    W_Q: Matrix | None = None
    W_K: Matrix | None = None
    W_V: Matrix | None = None
    tokens: list[str] | None = None  # the word of each row of X, its label on screen and in the answers
    row: int | None = None  # the row of X the walkthrough follows, from 1; none: attention.instructive_row's
    scale: bool
    causal: bool

    @model_validator(mode="after")
    def _fits_and_computes(self) -> "MatrixConfig":
        rows = {"X": MATRIX_MAX_TOKENS, "W_Q": MATRIX_MAX_DIM, "W_K": MATRIX_MAX_DIM, "W_V": MATRIX_MAX_DIM}
        for name, max_rows in rows.items():
            check_matrix(name, getattr(self, name), max_rows, MATRIX_MAX_DIM)
        given = {name for name in MATRICES if getattr(self, name) is not None}
        check_shapes({name: matrix.shape for name, matrix in self.matrices().items()}, given, " (the preset's)")
        self_attention(**self.matrices(), scale=self.scale, causal=self.causal)
        if self.tokens is not None:
            check_tokens(self.tokens, len(self.matrices()["X"]))
        if self.row is not None:
            check_row(self.row, len(self.matrices()["X"]))
        return self

    @field_validator("row", mode="before")
    @classmethod
    def _row_is_a_number(cls, value, info):
        """A row that is not a whole number is refused with the range too (X's rows, as far as they are known)."""
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            preset = worked_example.PRESETS.get(info.data.get("preset"), worked_example.PRESETS["default"])
            X = info.data.get("X") or preset.X
            check_row(clipped(repr(value)), len(X))
        return value

    def warnings(self, lang: str) -> list[str]:
        unlabelled = self.X is not None and self.tokens is None
        return super().warnings(lang) + (
            [f"X has no words (matrix.tokens): its rows are shown unlabelled, and the answers call them "
             f"t1 ... t{len(self.X)}"]
            if unlabelled else [])

    def skipped_steps(self) -> dict[str, str]:
        """The pictures in the plane, when their vectors have more than two components: no faithful drawing; a
        contrast step whose one change the example already has: it would show the same matrices again."""
        matrices = self.matrices()
        sizes = {"alignment": ("W_Q", "d_k", "queries and keys"), "weighted_average": ("W_V", "d_v", "values")}
        skipped = {key: f"matrix.{matrix} gives {name} = {matrices[matrix].shape[1]}; its picture draws {what} as "
                        f"arrows in the plane, which needs {name} <= {PLANE_DIMENSIONS}"
                   for key, (matrix, name, what) in sizes.items() if matrices[matrix].shape[1] > PLANE_DIMENSIONS}
        if self.causal:
            skipped["causal"] = "matrix.causal = true: every step already shows the mask this step would add"
        if np.array_equal(matrices["W_K"], matrices["W_Q"]):
            skipped["shared_projection"] = "W_K already equals W_Q: this step would show the same scores again"
        return skipped

    def effective(self) -> dict[str, Any]:
        """The preset's matrices resolved: every matrix the section shows."""
        return {"preset": self.preset, **{name: matrix.tolist() for name, matrix in self.matrices().items()},
                **({"row": self.row} if self.row is not None else {}), "scale": self.scale, "causal": self.causal}

    def followed_row(self) -> int:
        """The row of X the walkthrough follows, from 0: ``row``'s, or the most instructive one."""
        if self.row is not None:
            return self.row - 1
        result = self_attention(**self.matrices(), scale=self.scale, causal=self.causal)
        return instructive_row(result.weights, result.mask)

    def own_matrices(self) -> bool:
        """The lecturer gave an example of their own (a matrix or the words), not only a preset."""
        return self.tokens is not None or any(getattr(self, name) is not None for name in MATRICES)

    def matrices(self) -> dict[str, np.ndarray]:
        """The effective X, W_Q, W_K, W_V: the preset's, replaced by any given here."""
        preset = worked_example.PRESETS[self.preset]
        return {name: np.array(getattr(self, name) if getattr(self, name) is not None else getattr(preset, name))
                for name in ("X", "W_Q", "W_K", "W_V")}


class ScalingConfig(StrictModel):
    d_k: int = Field(ge=1, le=4096)
    seed: int = Field(ge=0, le=2**32 - 1)
    n_keys: int = Field(ge=2, le=16)


class HeadsConfig(StrictModel):
    sentence: str

    @field_validator("sentence")
    @classmethod
    def _sentence(cls, value: str) -> str:
        return check_sentence(value, heads.MAX_TOKENS)

    def warnings(self, lang: str) -> list[str]:
        """A head that finds no relation in the sentence."""
        return heads.missing_relations(self.sentence, lang)


class PositionalConfig(StrictModel):
    n_positions: int = Field(ge=2, le=64)
    d_model: int = Field(ge=2, le=64)
    base: float = Field(gt=1.0, le=1e9)


class CapitalConfig(StrictModel):
    country: Literal["france", "italy"]  # attn_math.capital.COUNTRY_IDENTITY; the locale writes each
    identity: float | None = Field(default=None, ge=-1.0, le=1.0)


class PipelineConfig(StrictModel):
    """Section 6: the lab's controls and the weights preset; W_Q, W_K, W_V (lab layout, d_k x 8) replace the preset's."""

    sentence: str
    preset: Literal["lab", "sharp"]
    query: int = Field(ge=0)
    temperature: float = Field(ge=0.1, le=5.0)
    causal: bool
    temperatures: list[Annotated[float, Field(ge=0.1, le=5.0)]] = Field(min_length=1, max_length=6)
    W_Q: Matrix | None = None
    W_K: Matrix | None = None
    W_V: Matrix | None = None

    @field_validator("sentence")
    @classmethod
    def _sentence(cls, value: str) -> str:
        return check_sentence(lab.LAB_SENTENCES.get(value, value), lab.MAX_TOKENS)

    @model_validator(mode="after")
    def _query_is_a_token(self) -> "PipelineConfig":
        n = len(self.tokens)
        if self.query >= n:
            raise ValueError(f"query: expected a token index from 0 to {n - 1} (the sentence has {plural(n, 'word')})")
        return self

    @model_validator(mode="after")
    def _weights_fit(self) -> "PipelineConfig":
        given = self.given_weights()
        for name, matrix in given.items():
            check_matrix(name, matrix, PIPELINE_MAX_DIM, lab.LAB_D)
        if given:
            check_lab_shapes(set(given), {name: np.shape(matrix)
                                          for name, matrix in self.weight_matrices().items()})
        return self

    @property
    def tokens(self) -> tuple[str, ...]:
        """The sentence's words; a lab sentence may be named by its key (gato, red, atencion)."""
        return lab.lab_tokens(self.sentence)

    def given_weights(self) -> dict[str, Matrix]:
        """The projection matrices given here (none: the preset's)."""
        return {name: getattr(self, name) for name in ("W_Q", "W_K", "W_V") if getattr(self, name) is not None}

    def weight_matrices(self) -> dict[str, Any]:
        """W_Q, W_K, W_V: the preset's, each replaced by the one given here."""
        from attn_math.sharp import preset_weights  # imported here: the module's imports belong to the file reader
        preset = preset_weights(self.preset)
        return {"W_Q": preset.W_Q, "W_K": preset.W_K, "W_V": preset.W_V, **self.given_weights()}

    def lab_weights(self) -> lab.LabWeights | None:
        """None for the preset's weights, else the preset's with any matrix given here replacing its own."""
        return lab.LabWeights(**self.weight_matrices()) if self.given_weights() else None


class LearnedConfig(StrictModel):
    """Section 7: the tiny transformer trained on repeated random tokens (attn_math.learned); its size is bounded
    so that training stays within its CPU budget (learned.BUDGET_SECONDS on the reference machine)."""

    seed: int = Field(ge=0, le=2**32 - 1)
    steps: int = Field(ge=learned.MIN_STEPS, le=learned.MAX_STEPS)
    sequence_length: int = Field(ge=2 * learned.MIN_HALF, le=2 * learned.MAX_HALF)
    vocabulary: int = Field(ge=2 * learned.MIN_HALF, le=learned.MAX_VOCABULARY)
    heads: int = Field(ge=1, le=learned.MAX_HEADS)

    @model_validator(mode="after")
    def _trainable(self) -> "LearnedConfig":
        if self.sequence_length % 2:
            raise ValueError(f"sequence_length: expected an even number (a half and its repetition), "
                             f"got {self.sequence_length}")
        if self.vocabulary < self.sequence_length:
            raise ValueError(f"vocabulary: expected at least sequence_length = {self.sequence_length} tokens (the "
                             f"training draws that many distinct ones per sequence), got {self.vocabulary}")
        if learned.D_MODEL % self.heads:
            divisors = [str(h) for h in range(1, learned.MAX_HEADS + 1) if learned.D_MODEL % h == 0]
            raise ValueError(f"heads: expected {', '.join(divisors[:-1])} or {divisors[-1]} (d_model = "
                             f"{learned.D_MODEL} is split evenly between the heads), got {self.heads}")
        seconds = learned.estimated_seconds(self.steps, self.sequence_length, self.heads)
        if seconds > learned.BUDGET_SECONDS:
            most = int(self.steps * learned.BUDGET_SECONDS / seconds)
            raise ValueError(f"steps: {self.steps} steps of sequence_length {self.sequence_length} with "
                             f"{self.heads} heads would train for about {seconds:.0f} s, over the "
                             f"{learned.BUDGET_SECONDS} s budget; at most {most} steps at that size")
        return self


def check_lab_shapes(given: set[str], shapes: dict[str, tuple[int, int]]) -> None:
    """The lab's products q = W_Q x, k = W_K x (x the 8-dimensional embedding) and q . k, as one line naming
    both matrices and the shape each needs; ``given`` tells the user's matrices from the preset's."""
    for matrix, rows in (("W_Q", "d_k"), ("W_K", "d_k"), ("W_V", "d_v")):
        if shapes[matrix][1] != lab.LAB_D:
            raise ValueError(f"{matrix}: x (a token's embedding) has {lab.LAB_D} dimensions, so {matrix} needs "
                             f"{lab.LAB_D} columns ({rows} x {lab.LAB_D}), got {shape_text(shapes[matrix])}")
    if shapes["W_Q"][0] != shapes["W_K"][0]:
        wrong, right = ("W_K", "W_Q") if "W_K" in given else ("W_Q", "W_K")
        source = "" if right in given else " (the preset's)"
        raise ValueError(f"{wrong}: {right}{source} is {shape_text(shapes[right])}, so {wrong} needs "
                         f"{plural(shapes[right][0], 'row')} (q . k needs the same d_k), "
                         f"got {shape_text(shapes[wrong])}")


def shape_text(shape: tuple[int, ...]) -> str:
    """``3x2`` for a 3 x 2 matrix."""
    return "x".join(map(str, shape))
