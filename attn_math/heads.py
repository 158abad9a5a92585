"""Several attention heads over one Spanish sentence, with designed (not trained) projections.

    Z_h = softmax((X W_Q^h)(X W_K^h)^T / sqrt(d_head)) X W_V^h,   d_head = d_model / h
    concat = [Z_1 | Z_2 | Z_3]   (n, d_model),   output = concat W_O   (n, d_model)
    mean_weights = (1/h) sum_h weights_h   (n, n): to compare the heads, rows sum to 1 (the next
                                           layer sees output, not this)

The columns of X (d_model = 12), derived from the words by ``token_features``:

    0 determinante, 1 sustantivo, 2 pronombre, 3 verbo   role one-hot; all 0 for anything else
    4 sujeto                          1 for the noun or pronoun taken as its clause's subject
    5 género sust.,  6 número sust.   a noun's agreement: +1 femenino / plural,
                                      -1 masculino / singular, 0 unknown
    7 género pron.,  8 número pron.   the same for a pronoun
    9 posición i,  10 posición² i²,  11 the constant 1

Nouns and pronouns keep their agreement in separate columns because a score is bilinear,
x_i^T W_Q W_K^T x_j: it cannot multiply "x_i is a pronoun" by "x_i is feminine". With separate
columns, W_Q reads the agreement a pronoun looks for and W_K the agreement a noun has, and the
pronoun head fits in d_head = 4.

Every head spends its dimensions 2-3 on position: query (c p, c), key (2 j, -j^2), so the score
is c (2 p j - j^2) = -c (p - j)^2 + c p^2. The c p^2 is the same along a query's row and cancels
in the softmax: each query looks at a window centred on position p, losing c per squared step.

* token anterior: p = i - 1, nothing else (dimensions 0-1 are 0). Token 0 falls back on itself.
* sujeto–verbo: p = i, so a token attends to itself by default. A verb's query adds
  SUBJECT_BONUS on every subject (dimension 0) and LOOK_BACK times minus the key's position
  (dimension 1), which moves its window 1.5 tokens to the left: a verb attends to the nearest
  subject, preferring one on its left (and, with no subject at all, to the words just before it).
* pronombre–antecedente: p = i again. A pronoun's query is its agreement times AGREEMENT and a
  noun's key is its agreement, so a pronoun attends to the nearest noun that agrees with it in
  gender and number; every other token attends to itself.

The values say what each head carries: the previous token's role, the subject's agreement, the
antecedent's noun, agreement and subject columns. W_O is the stack of the W_V^h transposed: it
writes each head's four numbers back into the feature columns they were read from, so the
output reads with the same labels as X. These patterns are illustrative: in a trained model
such roles emerge from training and are rarely this clean.
"""

from __future__ import annotations

import string
import unicodedata
from dataclasses import dataclass

import numpy as np

from attn_math.attention import AttentionSteps, self_attention
from attn_math.validation import as_words, frozen

DEFAULT_SENTENCE = "el perro de María ladró y ella lo calmó"
HEAD_NAMES = ("token anterior", "sujeto–verbo", "pronombre–antecedente")
FEATURE_NAMES = ("determinante", "sustantivo", "pronombre", "verbo", "sujeto", "género sust.",
                 "número sust.", "género pron.", "número pron.", "posición", "posición²", "1")
(DETERMINER, NOUN, PRONOUN, VERB, SUBJECT, NOUN_GENDER, NOUN_NUMBER, PRONOUN_GENDER,
 PRONOUN_NUMBER, POSITION, POSITION_SQUARED, ONE) = range(len(FEATURE_NAMES))

MAX_TOKENS = 12
N_HEADS = len(HEAD_NAMES)
D_MODEL = len(FEATURE_NAMES)
D_HEAD = D_MODEL // N_HEADS

# c: a step away from the window's centre costs c, i.e. c / 2 after the division by sqrt(4);
# c = 6 leaves about 0.9 of a row on the centre with a neighbour on each side.
LOCALITY = 6.0
LOOK_BACK = 3 * LOCALITY
# A relation has to beat any distance. Over one row of n <= MAX_TOKENS words, a verb's position
# terms span at most c (n^2 + n + 1/4) < 2 c n^2, a subject's worth; a pronoun's span at most
# c (n-1)^2 < c n^2, what one agreeing feature (gender or number) of a noun is worth.
SUBJECT_BONUS = 2 * LOCALITY * MAX_TOKENS ** 2
AGREEMENT = LOCALITY * MAX_TOKENS ** 2

FEMININE = PLURAL = 1
MASCULINE = SINGULAR = -1

# Determiners with their (gender, number); "al" and "del" also open a prepositional phrase.
_DETERMINERS = {
    "el": (MASCULINE, SINGULAR), "la": (FEMININE, SINGULAR), "los": (MASCULINE, PLURAL),
    "las": (FEMININE, PLURAL), "un": (MASCULINE, SINGULAR), "una": (FEMININE, SINGULAR),
    "unos": (MASCULINE, PLURAL), "unas": (FEMININE, PLURAL), "al": (MASCULINE, SINGULAR),
    "del": (MASCULINE, SINGULAR), "este": (MASCULINE, SINGULAR), "esta": (FEMININE, SINGULAR),
    "estos": (MASCULINE, PLURAL), "estas": (FEMININE, PLURAL), "ese": (MASCULINE, SINGULAR),
    "esa": (FEMININE, SINGULAR), "esos": (MASCULINE, PLURAL), "esas": (FEMININE, PLURAL),
    "mi": (0, SINGULAR), "tu": (0, SINGULAR), "su": (0, SINGULAR),
    "mis": (0, PLURAL), "tus": (0, PLURAL), "sus": (0, PLURAL),
}
_SUBJECT_PRONOUNS = {
    "él": (MASCULINE, SINGULAR), "ella": (FEMININE, SINGULAR), "ellos": (MASCULINE, PLURAL),
    "ellas": (FEMININE, PLURAL), "nosotros": (MASCULINE, PLURAL), "nosotras": (FEMININE, PLURAL),
    "vosotros": (MASCULINE, PLURAL), "vosotras": (FEMININE, PLURAL), "usted": (0, SINGULAR),
    "ustedes": (0, PLURAL), "yo": (0, 0), "tú": (0, 0),
}
# Object pronouns; la, las and los count as pronouns only right before a verb. me, te, se, nos
# and os point at the speakers, not at a noun of the sentence: no agreement to look for.
_OBJECT_PRONOUNS = {
    "lo": (MASCULINE, SINGULAR), "la": (FEMININE, SINGULAR), "los": (MASCULINE, PLURAL),
    "las": (FEMININE, PLURAL), "le": (0, SINGULAR), "les": (0, PLURAL),
    "me": (0, 0), "te": (0, 0), "se": (0, 0), "nos": (0, 0), "os": (0, 0),
}
_PREPOSITIONS = {"a", "al", "ante", "bajo", "con", "contra", "de", "del", "desde", "en", "entre",
                 "hacia", "hasta", "para", "por", "según", "sin", "sobre", "tras"}
# Words that start a new clause (and so a new subject). "que" does not: it usually opens a
# relative clause whose subject is the noun just before it.
_CLAUSE_STARTERS = {"y", "e", "o", "u", "ni", "pero", "sino", "porque", "cuando", "aunque",
                    "mientras", "si", "pues"}
_OTHER_WORDS = {"que", "no", "sí", "ya", "muy", "más", "menos", "también", "tampoco", "siempre",
                "nunca", "luego", "después", "antes", "ayer", "hoy", "aquí", "allí", "bien",
                "mal", "tan", "solo", "como", "entonces"}
_VERBS = {
    "es", "son", "era", "eran", "fue", "fueron", "está", "están", "estaba", "estaban", "ha",
    "han", "había", "hay", "tiene", "tienen", "tenía", "va", "van", "iba", "hace", "hizo",
    "dice", "dijo", "ve", "ven", "vio", "viene", "vino", "puede", "pueden", "quiere", "quería",
    "sabe", "sabía", "come", "comen", "comía", "vive", "viven", "vivía", "lee", "leen", "ama",
    "aman", "canta", "cantan", "corre", "corren", "duerme", "duermen", "juega", "juegan",
    "llega", "llegan", "mira", "miran", "ríe", "ríen", "sonríe", "sonríen", "ladra", "ladran",
    "compra", "compran", "busca", "buscan", "encuentra", "encuentran", "quiso", "pudo", "tuvo",
}
# Past, imperfect, future and gerund endings; present-tense forms look too much like nouns
# ("canta" / "manta") to guess, so only the listed ones are recognised.
_VERB_ENDINGS = ("ó", "aron", "ieron", "aba", "aban", "ían", "ará", "erá", "irá", "arán",
                 "erán", "irán", "ando", "iendo")
_FEMININE_NOUN_ENDINGS = ("a", "as", "ción", "ciones", "dad", "dades", "tud", "tudes")
_MASCULINE_NOUN_ENDINGS = ("o", "os")
_CLAUSE_ENDING_PUNCTUATION = ",;:.!?…"
_CLOSED_CLASSES = (_DETERMINERS, _SUBJECT_PRONOUNS, _OBJECT_PRONOUNS, _PREPOSITIONS, _CLAUSE_STARTERS,
                   _OTHER_WORDS)


@dataclass(frozen=True)
class MultiHeadResult:
    """Every intermediate of the designed multi-head attention over one sentence."""

    tokens: tuple  # (n,) words as typed, for display
    X: np.ndarray  # (n, d_model) token features, columns named by feature_names
    feature_names: tuple  # (d_model,)
    W_Q: np.ndarray  # (h, d_model, d_head) one query projection per head
    W_K: np.ndarray  # (h, d_model, d_head)
    W_V: np.ndarray  # (h, d_model, d_head)
    heads: tuple  # (h,) AttentionSteps, one per head
    head_names: tuple  # (h,)
    d_model: int
    d_head: int
    concat: np.ndarray  # (n, d_model) = [Z_1 | ... | Z_h]
    W_O: np.ndarray  # (d_model, d_model)
    output: np.ndarray  # (n, d_model) = concat @ W_O
    mean_weights: np.ndarray  # (n, n) mean of the heads' weights, rows sum to 1

    @property
    def n_heads(self) -> int:
        """How many heads ran (h)."""
        return len(self.heads)


def tokenize(sentence: str) -> tuple:
    """Split an NFC-normalised sentence on whitespace; 1..MAX_TOKENS words, kept as typed."""
    return as_words("sentence", sentence, MAX_TOKENS)


def token_features(tokens) -> np.ndarray:
    """(n, d_model) feature matrix X for the words, from a small Spanish lexicon (see module docstring).

    The heuristic, honestly: determiners, pronouns, prepositions, conjunctions and a few adverbs
    come from closed lists; a verb is a listed form or has a past, imperfect, future or gerund
    ending; a capitalised word after the first is a name; everything else is a noun (adjectives
    included). A noun takes gender and number from the determiner right before it, else from its
    ending (-a feminine, -o masculine, final -s plural). Clauses are split at commas and at
    conjunctions such as "y" or "porque"; in each clause with a verb, the subject is the first noun or
    subject pronoun outside a prepositional phrase ("al perro", "de la niña") before the verb,
    else the first one after it.
    """
    if isinstance(tokens, str) or not all(isinstance(token, str) for token in tokens):
        raise ValueError("tokens: expected a sequence of words (strings)")
    tokens = tuple(unicodedata.normalize("NFC", token) for token in tokens)
    if not tokens or len(tokens) > MAX_TOKENS:
        raise ValueError(f"tokens: expected 1..{MAX_TOKENS} words, got {len(tokens)}")
    forms = [_lookup_form(token) for token in tokens]
    roles = _roles(tokens, forms)
    X = np.zeros((len(tokens), D_MODEL))
    for i, (form, role) in enumerate(zip(forms, roles)):
        X[i, POSITION], X[i, POSITION_SQUARED], X[i, ONE] = i, i * i, 1.0
        if role == "det":
            X[i, DETERMINER] = 1.0
        elif role == "verb":
            X[i, VERB] = 1.0
        elif role in ("subject pronoun", "object pronoun"):
            X[i, PRONOUN] = 1.0
            lexicon = _SUBJECT_PRONOUNS if role == "subject pronoun" else _OBJECT_PRONOUNS
            X[i, PRONOUN_GENDER], X[i, PRONOUN_NUMBER] = lexicon[form]
        elif role == "noun":
            X[i, NOUN] = 1.0
            previous = (forms[i - 1], roles[i - 1]) if i else (None, None)
            X[i, NOUN_GENDER], X[i, NOUN_NUMBER] = _noun_agreement(form, *previous)
    for i in _subjects(tokens, forms, roles):
        X[i, SUBJECT] = 1.0
    frozen(X)
    return X


def multi_head_attention(sentence: str = DEFAULT_SENTENCE, n_heads: int = 3) -> MultiHeadResult:
    """Designed heads over ``sentence``: each head's AttentionSteps, concat, concat @ W_O, mean weights.

    ``n_heads`` must be 3: each head is designed for one relation and d_model = 12 splits into
    three heads of 4, so there is no meaningful fewer- or more-head variant to offer.
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads != N_HEADS:
        raise ValueError(f"n_heads: expected {N_HEADS} (one designed head per relation: "
                         f"{', '.join(HEAD_NAMES)}), got {n_heads!r}")
    tokens = tokenize(sentence)
    X = token_features(tokens)
    W_Q, W_K, W_V, W_O = _designed_projections()
    heads = tuple(self_attention(X, W_Q[h], W_K[h], W_V[h]) for h in range(N_HEADS))
    concat = np.hstack([head.output for head in heads])  # (n, h * d_head) = (n, d_model)
    output = concat @ W_O
    mean_weights = np.mean([head.weights for head in heads], axis=0)
    frozen(concat, output, mean_weights)
    return MultiHeadResult(tokens=tokens, X=X, feature_names=FEATURE_NAMES, W_Q=W_Q, W_K=W_K,
                           W_V=W_V, heads=heads, head_names=HEAD_NAMES, d_model=D_MODEL,
                           d_head=D_HEAD, concat=concat, W_O=W_O, output=output,
                           mean_weights=mean_weights)


def _designed_projections():
    """W_Q, W_K, W_V (h, d_model, d_head) and W_O (d_model, d_model), as the module docstring says."""
    W_Q, W_K, W_V = (np.zeros((N_HEADS, D_MODEL, D_HEAD)) for _ in range(3))
    previous, subject_verb, pronoun = range(N_HEADS)

    # Dimensions 2-3, every head: window centred on p = i (query (c i, c), key (2 j, -j^2)).
    for head in range(N_HEADS):
        W_Q[head, POSITION, 2], W_Q[head, ONE, 3] = LOCALITY, LOCALITY
        W_K[head, POSITION, 2], W_K[head, POSITION_SQUARED, 3] = 2.0, -1.0
    W_Q[previous, ONE, 2] = -LOCALITY  # centre on p = i - 1
    W_Q[subject_verb, VERB, 0], W_K[subject_verb, SUBJECT, 0] = SUBJECT_BONUS, 1.0
    W_Q[subject_verb, VERB, 1], W_K[subject_verb, POSITION, 1] = LOOK_BACK, -1.0
    W_Q[pronoun, PRONOUN_GENDER, 0], W_K[pronoun, NOUN_GENDER, 0] = AGREEMENT, 1.0
    W_Q[pronoun, PRONOUN_NUMBER, 1], W_K[pronoun, NOUN_NUMBER, 1] = AGREEMENT, 1.0

    carried = {previous: (DETERMINER, NOUN, PRONOUN, VERB),
               subject_verb: (NOUN_GENDER, NOUN_NUMBER, PRONOUN_GENDER, PRONOUN_NUMBER),
               pronoun: (NOUN, NOUN_GENDER, NOUN_NUMBER, SUBJECT)}
    for head, columns in carried.items():
        for slot, column in enumerate(columns):
            W_V[head, column, slot] = 1.0
    W_O = np.vstack([W_V[head].T for head in range(N_HEADS)])  # (h * d_head, d_model)
    frozen(W_Q, W_K, W_V, W_O)
    return W_Q, W_K, W_V, W_O


def _lookup_form(token: str) -> str:
    """The word as the lexicon sees it: lowercase, without surrounding punctuation."""
    return token.strip(string.punctuation + "¿¡«»“”‘’…—–").lower()


def _is_verb(token: str, form: str, position: int) -> bool:
    if form in _VERBS:
        return True
    is_name = position > 0 and token[:1].isupper()
    closed = any(form in words for words in _CLOSED_CLASSES)
    return not is_name and not closed and form.endswith(_VERB_ENDINGS)


def _roles(tokens, forms) -> list:
    """Per word: det, noun, verb, subject pronoun, object pronoun, preposition, clause starter or other."""
    verbs = [_is_verb(token, form, i) for i, (token, form) in enumerate(zip(tokens, forms))]
    roles = []
    for i, form in enumerate(forms):
        before_verb = i + 1 < len(forms) and verbs[i + 1]
        if verbs[i]:
            roles.append("verb")
        elif form in _SUBJECT_PRONOUNS:
            roles.append("subject pronoun")
        elif form in _OBJECT_PRONOUNS and (before_verb or form not in _DETERMINERS):
            roles.append("object pronoun")
        elif form in _DETERMINERS:
            roles.append("det")
        elif form in _PREPOSITIONS:
            roles.append("preposition")
        elif form in _CLAUSE_STARTERS:
            roles.append("clause starter")
        elif not form or form in _OTHER_WORDS:
            roles.append("other")
        else:
            roles.append("noun")
    return roles


def _noun_agreement(form: str, previous_form, previous_role) -> tuple:
    """(gender, number) of a noun: from the determiner just before it, else from its ending."""
    if previous_role == "det":
        determiner_gender, number = _DETERMINERS[previous_form]
        if determiner_gender:
            return determiner_gender, number
    else:
        number = PLURAL if form.endswith("s") else SINGULAR
    if form.endswith(_FEMININE_NOUN_ENDINGS):
        return FEMININE, number
    if form.endswith(_MASCULINE_NOUN_ENDINGS):
        return MASCULINE, number
    return 0, number


def _subjects(tokens, forms, roles) -> list:
    """Positions of the words taken as subjects: at most one per clause that has a verb."""
    clauses, current = [], []
    for i, (token, role) in enumerate(zip(tokens, roles)):
        if role == "clause starter" and current:
            clauses.append(current)
            current = []
        current.append(i)
        if token.rstrip("»”’)\"'")[-1:] in _CLAUSE_ENDING_PUNCTUATION:
            clauses.append(current)
            current = []
    clauses.append(current)

    subjects = []
    for clause in clauses:
        verbs = [i for i in clause if roles[i] == "verb"]
        candidates = [i for i in clause if roles[i] in ("noun", "subject pronoun")
                      and not _in_prepositional_phrase(i, forms, roles)]
        if verbs and candidates:
            before = [i for i in candidates if i < verbs[0]]
            subjects.append(before[0] if before else candidates[0])
    return subjects


def _in_prepositional_phrase(i: int, forms, roles) -> bool:
    """True when a preposition comes right before word i, determiners skipped ("de la niña", "al perro")."""
    j = i - 1
    while j >= 0 and roles[j] == "det":
        if forms[j] in _PREPOSITIONS:  # "al", "del"
            return True
        j -= 1
    return j >= 0 and roles[j] == "preposition"
