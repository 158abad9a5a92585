"""The heads section's questions and answers, filled in from the lecturer's own sentence: the relations its heads
find, the token whose heads disagree most and the head that tells most about it (as the scene picks them, with
``choice_token`` and ``telling_head``), the pronoun's antecedent and a noun it agrees with less.

Where a claim holds only for some sentences (a head finds no relation, every head looks at the same token, the
average keeps a weight whole), the field ``variant`` (or ``answer_variant``) names the step's
``question_<variant>`` / ``answer_<variant>`` that holds. Tokens are quoted as the scene shows them
(``MultiHeadResult.labels``: a repeated word numbered).
"""

from __future__ import annotations

import numpy as np

from attn_math.heads import (DETERMINER, NOUN, NOUN_GENDER, NOUN_NUMBER, PRONOUN_GENDER, PRONOUN_NUMBER, VERB,
                             MultiHeadResult, relations)

PREVIOUS, SUBJECT_VERB, PRONOUN = range(3)  # the designed heads, in attn_math.heads' order


def choice_token(result: MultiHeadResult) -> int:
    """The token whose heads disagree most: most distinct other tokens attended (a head left on the token itself
    finds no relation for it), then most distinct places, then farthest."""
    targets = np.array([np.argmax(head.weights, axis=1) for head in result.heads])  # (h, n)
    return max(range(targets.shape[1]),
               key=lambda i: (len(set(targets[:, i]) - {i}), len(set(targets[:, i])),
                              int(np.abs(targets[:, i] - i).sum()), -i))


def telling_head(result: MultiHeadResult, focus: int) -> int:
    """The head whose row for ``focus`` says most: its largest weight on another token, the farthest such token
    first (a relation nearness alone does not explain), then the largest weight."""
    rows = [head.weights[focus] for head in result.heads]
    return max(range(len(rows)), key=lambda h: (int(np.argmax(rows[h])) != focus,
                                               abs(int(np.argmax(rows[h])) - focus), float(rows[h].max())))


def question_fields(result: MultiHeadResult, pieces: dict) -> dict[str, dict]:
    """Fields for each step's question and answer; ``pieces``: the locale's ``heads.answer_pieces``."""
    found = relations(result)
    verb_subject = [(i, j) for i, j in found[SUBJECT_VERB] if result.X[i, VERB]]  # a subject's look back left out
    return {"sentence": {"subjects": _pairs(result, verb_subject, pieces),
                         "antecedents": _pairs(result, found[PRONOUN], pieces)},
            "previous": _previous(result, found[PREVIOUS]),
            "subject_verb": {"pairs": _pairs(result, verb_subject, pieces),
                             "answer_variant": "" if verb_subject else "none"},
            "pronoun": _pronoun(result, found[PRONOUN]),
            "average": _average(result),
            "choose": _choice(result, found, pieces),
            "concat": {"d_model": result.d_model}}


def _pairs(result: MultiHeadResult, pairs, pieces: dict) -> str:
    """«ladró» → «perro», «calmó» → «ella»; or the locale's "none here"."""
    labels = result.labels
    return ", ".join(pieces["pair"].format(query=labels[i], attended=labels[j]) for i, j in pairs) or pieces["none"]


def _previous(result: MultiHeadResult, pairs) -> dict:
    """A token and the one before it, a noun and its article where the sentence has one."""
    if not pairs:
        return {"answer_variant": "one"}
    noun_article = [(i, j) for i, j in pairs if result.X[i, NOUN] and result.X[j, DETERMINER]]
    i, j = (noun_article or pairs)[0]
    return {"query": result.labels[i], "attended": result.labels[j], "answer_variant": "" if noun_article else "other"}


def agreement(result: MultiHeadResult, pronoun: int, noun: int) -> float:
    """How well a noun's gender and number match what a pronoun looks for (the pronoun head's bonus, unscaled)."""
    X = result.X
    return float(X[pronoun, PRONOUN_GENDER] * X[noun, NOUN_GENDER] + X[pronoun, PRONOUN_NUMBER] * X[noun, NOUN_NUMBER])


def _pronoun(result: MultiHeadResult, pairs) -> dict:
    """A pronoun, the noun its head attends to, and another noun: one that agrees less ("") or as well
    ("nearer": the nearer wins), or none ("alone")."""
    if not pairs:
        return {"variant": "none"}
    nouns = [j for j in range(len(result.tokens)) if result.X[j, NOUN]]
    options = []
    for pronoun, noun in pairs:
        others = [j for j in nouns if j != noun]
        worse = [j for j in others if agreement(result, pronoun, j) < agreement(result, pronoun, noun)]
        options.append((0 if worse else 1 if others else 2, pronoun, noun, (worse or others or [None])[0]))
    rank, pronoun, noun, other = min(options)
    labels = result.labels
    return {"pronoun": labels[pronoun], "noun": labels[noun], "other": labels[other] if other is not None else "",
            "variant": ("", "nearer", "alone")[rank]}


def _average(result: MultiHeadResult) -> dict:
    """The telling head's largest weight for the choice token, and what the average leaves of it."""
    focus = choice_token(result)
    head = telling_head(result, focus)
    row = result.heads[head].weights[focus]
    attended = int(np.argmax(row))
    weight, mean = f"{row[attended]:.2f}", f"{result.mean_weights[focus, attended]:.2f}"
    return {"token": result.labels[focus], "number": head + 1, "attended": result.labels[attended],
            "weight": weight, "mean": mean, "h": result.n_heads, "answer_variant": "same" if weight == mean else ""}


def _choice(result: MultiHeadResult, found, pieces: dict) -> dict:
    """Where each head's row for the choice token puts its largest weight, each place said once, with the
    relation that brought a head there (the previous word, its subject or its verb, its antecedent) or itself."""
    focus = choice_token(result)
    attended = [int(np.argmax(head.weights[focus])) for head in result.heads]
    places = sorted(dict.fromkeys(attended), key=lambda j: j == focus)  # itself last
    said = [_place(result, focus, j, [h for h, target in enumerate(attended) if target == j], found, pieces)
            for j in places]
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])}{pieces['and']}{said[-1]}"
    return {"token": result.labels[focus], "targets": listed, "h": result.n_heads,
            "answer_variant": "same" if len(places) == 1 else ""}


def _place(result: MultiHeadResult, focus: int, j: int, heads: list[int], found, pieces: dict) -> str:
    """«perro», its antecedent; itself; or «x» (head 2) when no head there finds its relation."""
    if j == focus:
        return pieces["itself"]
    named = [h for h in heads if (focus, j) in found[h]]
    if named:
        # what the head's relation makes of the attended token (``answer_pieces.roles``): head 2 runs both ways
        role = ("previous", "subject" if result.X[focus, VERB] else "verb", "antecedent")[named[0]]
        return pieces["role"].format(word=result.labels[j], role=pieces["roles"][role])
    return pieces["head"].format(word=result.labels[j], number=heads[0] + 1)
