"""The pipeline section's questions and answers follow the lecturer's example: for random valid configs (a lab
sentence or one of their own, either preset, their own weights or not, any query, temperature, mask and
temperatures), every number in every answer is one that plain Python arithmetic here gets for that config, every
number the answer should quote is there, the tokens it quotes are the sentence's, and its yes or no is the one the
numbers give.

The answers are filled in as the scene fills them (lesson.pipeline_answers through lesson.questions.step_question,
with the locale's text); the attention below is computed with lists and loops from the lab's embeddings and
weights (attn_math.lab, itself checked against a literal re-implementation of the lab in tests/test_lab.py).
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_math.lab import LAB_SENTENCES, lab_embedding, spelled
from attn_math.sharp import article_and_noun, preset_weights, roles_language, sharp_features
from lesson.locale import load_locale
from lesson.pipeline_answers import lab_sentence_readings, question_fields
from lesson.questions import step_question
from lesson.section_config import PipelineConfig
from tests.answer_texts import numbers, written_as
from tests.test_lab import literal_lab

QUOTED = re.compile(r"[«“]([^»”]+)[»”]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[¿¡«“\"A-ZÁÉÍÓÚÑ])")
STEPS = ("embeddings", "queries", "keys", "scores", "scaled", "softmax", "output", "presets", "temperature",
         "temperature_plot", "causal", "entropy")
GUIDE_TEMPERATURES = (0.5, 1.0, 3.0)
YES = {"es": ", sí", "en": ", yes"}
WORDS = ("el", "la", "un", "una", "gato", "perro", "mesa", "niña", "libro", "come", "lee", "ve", "y", "en", "se",
         "sienta", "rapido", "Ana")


class Run:
    """One pass of the lab's attention, by hand: x_i the embeddings, q_i = W_Q x_i, softmax of q·k / (√d_k T)."""

    def __init__(self, X, W_Q, W_K, W_V, temperature: float, causal: bool):
        project = lambda W: [[sum(w * x for w, x in zip(row, x_i)) for row in W] for x_i in X]
        Q, K, V = project(W_Q), project(W_K), project(W_V)
        n, root = len(X), math.sqrt(len(W_Q))
        self.scores = [[sum(a * b for a, b in zip(q, k)) for k in K] for q in Q]
        self.seen = [[j for j in range(n) if not causal or j <= i] for i in range(n)]
        self.weights = []
        for i in range(n):
            scaled = [self.scores[i][j] / (root * temperature) for j in self.seen[i]]
            top = max(scaled)
            exps = [math.exp(s - top) for s in scaled]
            row = [0.0] * n
            for j, e in zip(self.seen[i], exps):
                row[j] = e / sum(exps)
            self.weights.append(row)
        self.entropies = [-sum(p * math.log2(p) for p in row if p > 0) for row in self.weights]
        self.outputs = [[sum(w * v[m] for w, v in zip(row, V)) for m in range(len(V[0]))] for row in self.weights]
        self.V = V


def spread(run: Run) -> float:
    """How far apart the outputs are, for values as far apart as V's (0: all alike)."""
    mean = lambda rows: [sum(column) / len(rows) for column in zip(*rows)]
    farthest = lambda rows: max(math.dist(row, mean(rows)) for row in rows)
    return farthest(run.outputs) / farthest(run.V) if farthest(run.V) else 0.0


def runs_of(config: PipelineConfig, lang: str):
    """run(temperature, causal, preset) for ``config``: its custom weights replace its own preset's."""
    tokens = config.tokens
    inputs = {"lab": [lab_embedding(token, i).tolist() for i, token in enumerate(tokens)],
              "sharp": sharp_features(tokens, roles_language(config.sentence, lang)).tolist()}

    def run(temperature: float, causal: bool, preset: str | None = None) -> Run:
        preset = preset or config.preset
        weights = config.weight_matrices() if preset == config.preset else vars(preset_weights(preset))
        return Run(inputs[preset], *[[list(map(float, row)) for row in weights[name]] for name in ("W_Q", "W_K", "W_V")],
                   temperature, causal)
    return run


def by_hand(config: PipelineConfig, lang: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """The numbers each answer may quote, and those it must quote."""
    run, q, n = runs_of(config, lang), config.query, len(config.tokens)
    shown = run(config.temperature, config.causal)
    flat_scores = [s for row in shown.scores for s in row]
    expected = {"embeddings": [8], "scores": [max(flat_scores), min(flat_scores)], "output": [max(shown.weights[q])]}
    pair = article_and_noun(config.sentence, lang)
    expected["softmax"] = []
    if pair:
        for preset in ("lab", "sharp"):
            row = run(config.temperature, False, preset).weights[pair[0]]
            expected["softmax"] += [row[pair[1]], max(row)]
    visible = len(shown.seen[q])
    extremes = (min(config.temperatures), max(config.temperatures))
    expected["temperature"] = [*extremes, *[max(run(t, config.causal).weights[q]) for t in extremes],
                               1, visible, 1 / visible]
    expected["temperature_plot"] = [*GUIDE_TEMPERATURES, *[max(run(t, config.causal).weights[q])
                                                          for t in GUIDE_TEMPERATURES], 1, visible, 1 / visible]
    expected["causal"] = [n - 1, n]
    masked, fourth = run(config.temperature, True), min(3, n - 1)
    expected["entropy"] = [0, fourth + 1, masked.entropies[fourth], math.log2(fourth + 1)]
    must = {"scores": expected["scores"][:1], "softmax": expected["softmax"][::2],
            "temperature": expected["temperature"][2:4] + [1 / visible],
            "temperature_plot": expected["temperature_plot"][3:6] + [1 / visible],
            "causal": expected["causal"] if n > 1 else [], "entropy": [masked.entropies[fourth]]}
    return expected, must


def weights_matrix(rows: int):
    entries = st.one_of(st.integers(-3, 3).map(float), st.integers(-300, 300).map(lambda v: v / 100))
    return st.lists(st.lists(entries, min_size=8, max_size=8), min_size=rows, max_size=rows)


@st.composite
def configs(draw):
    sentence = draw(st.one_of(st.sampled_from([*LAB_SENTENCES, *LAB_SENTENCES.values()]),
                              st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join)))
    temperature = st.integers(10, 500).map(lambda v: v / 100)
    custom = {}
    if draw(st.booleans()):
        d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        custom = {"W_Q": draw(weights_matrix(d_k)), "W_K": draw(weights_matrix(d_k)), "W_V": draw(weights_matrix(d_v))}
    tokens = PipelineConfig.model_validate({"sentence": sentence, "preset": "lab", "query": 0, "temperature": 1.0,
                                            "causal": False, "temperatures": [1.0]}).tokens
    return PipelineConfig(sentence=sentence, preset=draw(st.sampled_from(["lab", "sharp"])),
                          query=draw(st.integers(0, len(tokens) - 1)), temperature=draw(temperature),
                          causal=draw(st.booleans()), temperatures=draw(st.lists(temperature, min_size=1, max_size=4)),
                          **custom)


def answers(config: PipelineConfig, language: str) -> dict[str, tuple[str, str]]:
    """Each step's question and answer as the handout prints them for ``config`` (the scene's own calls)."""
    locale = load_locale(language)
    fields = question_fields(config, language, locale["pipeline"]["answer_pieces"])
    return {key: (q.question, q.answer) for key in STEPS
            if (q := step_question("pipeline", key, locale, fields.get(key)))}


def exercise_numbers(key: str, question: str) -> list[float]:
    """The numbers a question may write of its own: the guide's exercise number."""
    return [float(number) for number in re.findall(r"(?:Ejercicio|Exercise) (\d)", question)]


@pytest.mark.parametrize("language", ["es", "en"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs())
def test_every_number_of_an_answer_is_the_lecturers_example(config, language):
    expected, must = by_hand(config, language)
    words = {spelled(token) for token in config.tokens}
    for key, (question, answer) in answers(config, language).items():
        allowed = [*expected.get(key, []), *exercise_numbers(key, question)]
        written = numbers(f"{question} {answer}")
        assert [value for value in written if not any(written_as(value, number) for number in allowed)] == [], \
            (key, question, answer, allowed)
        for number in must.get(key, []):
            assert any(written_as(value, number) for value in written), (key, number, answer)
        assert set(QUOTED.findall(answer)) - words <= {"el gato se sienta en la mesa"}, (key, answer)
        assert len(SENTENCE_END.split(answer.strip())) <= 2, (key, answer)


@pytest.mark.parametrize("language", ["es", "en"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs())
def test_every_yes_and_no_is_the_one_the_numbers_give(config, language):
    run, q = runs_of(config, language), config.query
    got = answers(config, language)
    pair = article_and_noun(config.sentence, language)
    if pair:  # exercise 1: a yes for each preset whose article row gives its noun the largest weight
        rows = [run(config.temperature, False, preset).weights[pair[0]] for preset in ("lab", "sharp")]
        yes = sum(max(row) - row[pair[1]] < 5e-3 for row in rows)
        verdicts = [sentence.partition(":")[0] for sentence in SENTENCE_END.split(got["softmax"][1])]
        assert sum(verdict.endswith(YES[language]) for verdict in verdicts) == yes, got["softmax"][1]
    tokens = [spelled(token) for token in config.tokens]
    scores = run(config.temperature, config.causal).scores
    named = QUOTED.findall(got["scores"][1])
    if named:  # the pair named is one with the largest score
        cells = [scores[i][j] for i, a in enumerate(tokens) for j, b in enumerate(tokens) if (a, b) == tuple(named)]
        assert max(cells) == max(max(row) for row in scores)
    cold = max(run(min(config.temperatures), config.causal).weights[q])
    assert got["temperature"][1].partition(":")[0].endswith(YES[language]) <= (cold >= 0.5)
    assert QUOTED.findall(got["entropy"][1])[0] == tokens[0]  # the first token, with 0 bits under the mask


def test_the_default_example_answers_as_the_guide_asks():
    """The default config (the guide's sentence, «gato» followed): exercise 2 at the guide's T = 0.5, 1 and 3 for
    «gato», exercise 3's first token losing all 6 weights but its own out of 7 (the last none), exercise 4 comparing
    «el» (0 bits) with the fourth token, «sienta», and step 5 ÷ √8: the numbers each answer quotes are the lab's."""
    config = PipelineConfig(sentence="gato", preset="lab", query=1, temperature=1.0, causal=False,
                            temperatures=[0.2, 1.0, 3.0])
    got = {key: answer for key, (_, answer) in answers(config, "es").items()}
    assert got["temperature_plot"] == ("Baja: con T = 0.5, 1 y 3, el peso máximo de «gato» es 0.18, 0.16 y 0.15, "
                                       "cada vez más cerca del uniforme, 1/7 ≈ 0.14.")
    assert got["causal"].startswith("El primero pierde 6 de sus 7 pesos")
    assert "«el» solo puede mirarse a sí mismo (0 bits), mientras que «sienta» reparte entre cuatro tokens: 1.99 bits" \
        in got["entropy"]
    assert got["softmax"].startswith("Con los pesos aleatorios del lab, no: «el» da 0.15 a «gato»")
    assert got["softmax"].endswith("Con los pesos diseñados, sí: 0.67.")
    assert "aun con T = 0.2 el peso mayor de «gato» es solo 0.24, y con T = 3 baja a 0.15" in got["temperature"]
    assert got["scores"].startswith("La fila de «gato» con la columna de «la», 0.47")
    english = {key: answer for key, (_, answer) in answers(config, "en").items()}
    assert english["causal"].startswith("The first loses 6 of its 7 weights")


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_each_lab_sentence_is_read_for_exercises_1_and_4(temperature):
    """The guide's exercises 1 and 4 say "en cada oración" (review 43: two of the three were never run): each of the
    lab's sentences gives its article's weight on its noun and its row's largest (none in «atencion es todo lo que
    necesitas»: «lo» is followed by «que»), and under the mask 0 bits for the first token and the fourth's entropy,
    each as the literal lab (tests/test_lab.py) computes it."""
    readings = lab_sentence_readings(temperature)
    assert [reading.tokens for reading in readings] == [tuple(spelled(word) for word in sentence.split())
                                                        for sentence in LAB_SENTENCES.values()]
    articles = {"gato": (0, 1), "red": (0, 1), "atencion": None}
    for (name, sentence), reading in zip(LAB_SENTENCES.items(), readings):
        free, masked = literal_lab(sentence, temperature, False), literal_lab(sentence, temperature, True)
        assert reading.article == articles[name]
        if reading.article is not None:
            article, noun = reading.article
            assert reading.article_weight == pytest.approx(free["weights"][article][noun], abs=1e-12)
            assert reading.article_max == pytest.approx(max(free["weights"][article]), abs=1e-12)
        assert reading.fourth == 3 and reading.first_bits == pytest.approx(0.0, abs=1e-12)
        assert reading.fourth_bits == pytest.approx(masked["entropies"][3], abs=1e-12)
        assert 1.9 < reading.fourth_bits <= 2.0  # four tokens seen, nearly evenly: about log₂ 4
