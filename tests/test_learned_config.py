"""The learned section's config (lesson.section_config.LearnedConfig): each refusal one line that names the key,
and the bounds keep the training within its CPU budget."""

import pytest
from pydantic import ValidationError, create_model

from attn_math import learned
from lesson.config import describe
from lesson.section_config import LearnedConfig

Lecture = create_model("Lecture", learned=(LearnedConfig, ...))  # the table as the lecture's config nests it


def refused(**changes) -> str:
    with pytest.raises(ValidationError) as error:
        Lecture.model_validate({"learned": {**learned.DEFAULTS, **changes}})
    message = describe(error.value)
    assert "\n" not in message
    return message


def test_the_defaults_are_valid_and_within_the_budget():
    config = LearnedConfig(**learned.DEFAULTS)
    assert learned.estimated_seconds(config.steps, config.sequence_length, config.heads) <= 0.6 * learned.BUDGET_SECONDS


@pytest.mark.parametrize("changes, message", [
    ({"sequence_length": 21}, "learned.sequence_length: expected an even number (a half and its repetition), got 21"),
    ({"vocabulary": 16}, "learned.vocabulary: expected at least sequence_length = 20 tokens (the training draws "
                         "that many distinct ones per sequence), got 16"),
    ({"heads": 3}, "learned.heads: expected 1, 2 or 4 (d_model = 32 is split evenly between the heads), got 3"),
    ({"heads": 5}, "learned.heads: expected less than or equal to 4, got 5"),
    ({"steps": 50}, "learned.steps: expected greater than or equal to 100, got 50"),
    ({"seed": -1}, "learned.seed: expected greater than or equal to 0, got -1"),
    ({"vocabulary": 100}, "learned.vocabulary: expected less than or equal to 64, got 100"),
    ({"colour": 1}, "learned.colour: unknown key"),
])
def test_a_wrong_value_is_one_line_naming_the_key(changes, message):
    assert refused(**changes).startswith(message)


def test_a_training_over_the_budget_is_refused_with_the_most_steps_that_fit():
    message = refused(steps=12000)
    most = int(12000 * learned.BUDGET_SECONDS / learned.estimated_seconds(12000, 20, learned.DEFAULTS["heads"]))
    assert message.startswith("learned.steps: 12000 steps of sequence_length 20 with 4 heads would train for about ")
    assert message.endswith(f"over the {learned.BUDGET_SECONDS} s budget; at most {most} steps at that size")
    assert LearnedConfig(**{**learned.DEFAULTS, "steps": most})
