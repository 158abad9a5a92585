"""``--steps``: the steps of a section a clip holds, by number or key, one step or a range ``first..last``.

A clip's files say which steps they hold: ``01-matrix-steps-04-06.mp4`` (one step: ``01-matrix-steps-04``);
its stills keep their step numbers (``04-queries.png``). Clips are kept apart from the full sections in the
manifest (``clips``) and never joined into the lecture. Numbers count the steps shown: a step the config leaves
out (``lecture.skip``, or one its values cannot show) has none, and naming it is refused with why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from lesson.config_hints import shown
from lesson.locale import load_locale


class StepsError(ValueError):
    """A ``--steps`` value that names no step of a section: one line naming the valid steps."""


@dataclass(frozen=True)
class StepRange:
    """Steps ``first`` to ``last`` of a section, numbered from 1, both included."""

    first: int
    last: int

    def __contains__(self, number: int) -> bool:
        return self.first <= number <= self.last

    @property
    def label(self) -> str:
        """What a clip's file names add: ``steps-04-06``, or ``steps-04`` for one step."""
        return f"steps-{self.first:02d}" + (f"-{self.last:02d}" if self.last != self.first else "")


def step_keys(section: str, skipped: Mapping[str, str] = MappingProxyType({})) -> list[str]:
    """The section's step keys in order, as its locale lists them (the scene's STEPS, without manim), less the
    ``skipped`` ones (``LectureConfig.skipped_steps``): the steps a render of it shows."""
    return [key for key in load_locale()[section]["steps"] if key not in skipped]


def parse_steps(text: str, keys: list[str], section: str = "", skipped: dict[str, str] | None = None) -> StepRange:
    """``4``, ``queries``, ``4..6`` or ``queries..softmax`` as a StepRange over ``keys``; raises StepsError,
    saying why for a step the config skips (``skipped``: key -> why)."""
    ends = [_step_number(part.strip(), keys, text, section, skipped or {}) for part in text.split("..", 1)]
    first, last = ends[0], ends[-1]
    if first > last:
        raise StepsError(_message(text, keys, section, "the first step comes after the last"))
    return StepRange(first, last)


def clip_stem(stem: str, steps: StepRange | None) -> str:
    """The file stem of a section's render: ``01-matrix``, or ``01-matrix-steps-04-06`` for a clip."""
    return f"{stem}-{steps.label}" if steps else stem


def _step_number(part: str, keys: list[str], text: str, section: str, skipped: dict[str, str]) -> int:
    if part.isdigit() and 1 <= int(part) <= len(keys):
        return int(part)
    if part in keys:
        return keys.index(part) + 1
    if part in skipped:
        raise StepsError(_message(text, keys, section, f"step {part} is skipped with this config ({skipped[part]})"))
    raise StepsError(_message(text, keys, section, f"no step {shown(part)}"))


def _message(text: str, keys: list[str], section: str, reason: str) -> str:
    where = f" in {section}" if section else ""
    valid = ", ".join(f"{number} {key}" for number, key in enumerate(keys, 1))
    return f"--steps {shown(text)}: {reason}{where}; valid steps: {valid} (or a range, e.g. 2..{len(keys)})"
