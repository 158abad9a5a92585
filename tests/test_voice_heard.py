"""The voice judged by a listener: Whisper (bench/listener.py) transcribes a short narrated clip of a real section,
rendered through the CLI as a user renders it, in Spanish and in English; at most 10 % of the words the voice was
given may be misheard (numbers compared as digits). `make bench` (bench.listen) does the same for every section."""

from __future__ import annotations

import pytest

from bench.listener import section_word_errors
from media_checks import TINY, run_cli

LIMIT = 0.10
# Two steps, about 30 s of speech: the task and the loss. The whole lecture is measured by make bench (2026-12-05:
# Spanish 2.3-8.6 % per section once notation was said by role, "la matriz de las consultas" for "W sub Q"; English
# 0.6-4.1 %; docs/performance.md).
CLIP = ("learned", "1..2")


@pytest.fixture(scope="module", params=["es", "en"])
def heard(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"heard-{request.param}")
    section, steps = CLIP
    result = run_cli("render", section, "--steps", steps, "--narration", "tts", "--lang", request.param, *TINY,
                     "-o", str(out), "-j", "1", timeout=900)
    assert result.returncode == 0, result.stderr
    return request.param, section_word_errors(out, "07-learned-steps-01-02")


def test_the_listener_understands_at_least_nine_words_in_ten(heard):
    language, (rate, misheard) = heard
    assert rate <= LIMIT, f"{language}: {rate:.1%} of the words misheard: {misheard}"
