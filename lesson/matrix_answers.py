"""The matrix section's questions and answers, filled in from the numbers of the lecturer's own example.

Every field is computed from the matrices the section shows (its config's X, W_Q, W_K, W_V, scale and mask),
never copied from the default example; where a claim holds only for some examples, the field ``variant`` names
the step's ``question_<variant>`` / ``answer_<variant>`` that holds for this one. ``names`` are the tokens as the
answers quote them: the words of X's rows, or t₁, t₂, … for an X without words.
"""

from __future__ import annotations

import numpy as np

from attn_math.attention import ONE_HOT, AttentionSteps, softmax, softmax_slope
from lesson.numbers import MINUS, format_number

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SUPERSCRIPTS = str.maketrans("0123456789" + MINUS, "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
WEIGHT_DECIMALS = 4  # as the answers write a weight of A
SAME = 5e-5  # weights closer than this print the same with WEIGHT_DECIMALS


def neutral_names(n: int) -> list[str]:
    """t₁, t₂, …: the names of X's rows when it has no words."""
    return [f"t{str(i + 1).translate(SUBSCRIPTS)}" for i in range(n)]


def question_fields(result: AttentionSteps, W_Q: np.ndarray, names: list[str], large: AttentionSteps,
                    pieces: dict, row: int) -> dict[str, dict]:
    """Fields for each step's question and answer. ``large``: the result the large-scores step shows; ``pieces``:
    the locale's ``matrix.answer_pieces`` (how a list joins, how a row's pull is said); ``row``: the row the
    walkthrough follows (MatrixConfig.followed_row)."""
    return {"inputs": _shapes(result), "queries": _hand_product(result, W_Q), "keys": _own_scores(result, pieces),
            "scaled": _unscaled(result, names, row), "softmax": _strongest(result, names, pieces, row),
            "output": _pulls(result, pieces),
            "large_scores": _collapse(result, large)}


def _collapse(result: AttentionSteps, large: AttentionSteps) -> dict:
    """The softmax's largest slope before and after the scores grow; ``answer_variant`` "soft" when some row of
    ``large`` is still not one-hot (its largest weight at most ONE_HOT)."""
    collapsed = bool(np.all(large.weights.max(axis=1) > ONE_HOT))
    return {"before": format_number(softmax_slope(result.weights)),
            "after": format_number(softmax_slope(large.weights)), "answer_variant": None if collapsed else "soft"}


def listed(items: list[str], pieces: dict) -> str:
    """``items`` as a sentence lists them: «a, b y c»."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])}{pieces['and']}{items[-1]}"


def weight(value: float) -> str:
    """A weight of A as the answers write it: four decimals, or its power of ten when that would print 0."""
    if value == 0 or value >= SAME:
        return format_number(value, WEIGHT_DECIMALS)
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}·10{str(int(exponent)).replace('-', MINUS).translate(SUPERSCRIPTS)}"


def entry(value: float) -> str:
    """A matrix entry as the screen writes it: whole numbers without decimals."""
    return format_number(value, 0 if float(value).is_integer() else 2)


def _factor(value: float) -> str:
    """An entry inside a worked product: a negative one in parentheses."""
    return f"({entry(value)})" if value < 0 else entry(value)


def _vector(values) -> str:
    return f"({', '.join(entry(value) for value in values)})"


def _shapes(result: AttentionSteps) -> dict:
    n, d = result.X.shape
    return {"n": n, "d": d, "d_k": result.d_k, "d_v": result.V.shape[1]}


def _hand_product(result: AttentionSteps, W_Q: np.ndarray) -> dict:
    """Q[r, 1] = Σ X[r, m] W_Q[m, 1], term by term, for r = 2 (or 1 when X has one row)."""
    row = min(2, len(result.X))
    x, column = result.X[row - 1], W_Q[:, 0]
    return {"row": row, "x_row": _vector(x), "w_column": _vector(column),
            "products": " + ".join(f"{_factor(a)} · {_factor(b)}" for a, b in zip(x, column)),
            "value": entry(result.Q[row - 1, 0])}


def _own_scores(result: AttentionSteps, pieces: dict) -> dict:
    """With W_K = W_Q the scores are q_i · q_j: the diagonal |q_i|², and the rows where it is the largest."""
    shared = result.Q @ result.Q.T
    diagonal = np.diag(shared)
    largest = [i for i in range(len(shared)) if diagonal[i] >= shared[i].max()]
    variant = "all" if len(largest) == len(shared) else "some" if largest else "none"
    return {"diagonal": listed([entry(value) for value in diagonal], pieces),
            "rows": listed([str(i + 1) for i in largest], pieces) if largest else "", "variant": variant}


def _top(weights: np.ndarray, names: list[str], pieces: dict) -> tuple[str, float]:
    """The token(s) with the largest weight of a row (all of them when they tie), and that weight."""
    best = weights.max()
    return listed([names[j] for j in range(len(weights)) if best - weights[j] < SAME], pieces), float(best)


def _unscaled(result: AttentionSteps, names: list[str], row: int) -> dict:
    """The followed row's strongest key: its weight as shown, and with the other choice of dividing by √d_k
    (``answer_variant`` "same" when the choice changes nothing that prints)."""
    visible = ~result.mask[row]
    divided, undivided = (softmax(np.where(visible, result.scores[row] / factor, -np.inf)[None])[0]
                          for factor in (np.sqrt(result.d_k), 1.0))
    shown, other = (divided, undivided) if result.scale else (undivided, divided)
    top = int(np.argmax(shown))
    return {"row_word": names[row], "top_word": names[top], "weight": weight(shown[top]), "other": weight(other[top]),
            "d_k": result.d_k, "scores": _vector(result.scores[row][visible]),
            "variant": "" if result.scale else "unscaled",
            "answer_variant": "same" if abs(shown[top] - other[top]) < SAME else None}


def _strongest(result: AttentionSteps, names: list[str], pieces: dict, row: int) -> dict:
    """Whom the followed row attends to most, and the smallest weight of a key it sees (never exactly 0)."""
    weights = result.weights[row]
    top, best = _top(weights, names, pieces)
    smallest = float(weights[~result.mask[row]].min())
    return {"row_word": names[row], "top_word": top, "weight": weight(best), "smallest": weight(smallest),
            "variant": "causal" if result.mask.any() else ""}


def _pulls(result: AttentionSteps, pieces: dict) -> dict:
    """For each row of Z, the row of V with the largest weight in its row of A."""
    said = [pieces["pull"].format(row=i + 1, key=int(np.argmax(row)) + 1, weight=weight(row.max()))
            for i, row in enumerate(result.weights)]
    return {"pulls": listed(said, pieces)}
