"""Several attention heads over one sentence (Spanish or English), with designed (not trained) projections.

    Z_h = softmax((X W_Q^h)(X W_K^h)^T / sqrt(d_head)) X W_V^h,   d_head = d_model / h
    concat = [Z_1 | Z_2 | Z_3]   (n, d_model),   output = concat W_O   (n, d_model)
    mean_weights = (1/h) sum_h weights_h   (n, n): to compare the heads, rows sum to 1 (the next
                                           layer sees output, not this)

The columns of X (d_model = 12), derived from the words by ``token_features``:

    0 determiner, 1 noun, 2 pronoun, 3 verb        role one-hot; all 0 for anything else
    4 subject                         1 for the noun or pronoun taken as its clause's subject
    5 noun gender,  6 noun number     a noun's agreement pair (the lexicon's [agreement]); in
                                      Spanish +1 femenino / plural, -1 masculino / singular, 0 unknown
    7 pronoun gender, 8 pronoun number the same for a pronoun
    9 position i,  10 position² i²,  11 the constant 1

The word classes come from the lexicon of the sentence's language (``attn_math.lexicon``). English
pronouns tell apart she, he, it and they rather than gender and number; the pair of columns holds
what the English lexicon gives them, under the same names.

Nouns and pronouns keep their agreement in separate columns because a score is bilinear,
x_i^T W_Q W_K^T x_j: it cannot multiply "x_i is a pronoun" by "x_i is feminine". With separate
columns, W_Q reads the agreement a pronoun looks for and W_K the agreement a noun has, and the
pronoun head fits in d_head = 4.

Every head spends its dimensions 2-3 on position: query (c p, c), key (2 j, -j^2), so the score
is c (2 p j - j^2) = -c (p - j)^2 + c p^2. The c p^2 is the same along a query's row and cancels
in the softmax: each query looks at a window centred on position p, losing c per squared step.

* token anterior: p = i - 1, nothing else (dimensions 0-1 are 0). Token 0 falls back on itself.
* sujeto–verbo: p = i, so a token attends to itself by default. A verb's query adds
  SUBJECT_BONUS on every subject (dimension 0) and -LOOK_BACK / 2 to its position column
  (dimension 2: -3c j on key j), which moves its window 1.5 tokens to the left: a verb attends to
  the nearest subject, preferring one on its left (and, with no subject at all, to the words just
  before it). A subject's query, the other way, adds SUBJECT_BONUS on every verb (dimension 1) and
  +LOOK_BACK / 2 (window 1.5 to the right): a subject attends to the nearest verb, preferring one
  on its right.
* pronombre–antecedente: p = i again. A pronoun's query is its agreement times AGREEMENT and a
  noun's key is its agreement, so a pronoun attends to the nearest noun that agrees with it best
  (in gender and number; in English, the kind of referent); every other token attends to itself.

The values say what each head carries (``CARRIED_BY_*``), never nothing from the token it attends to: the
previous token's role and position, the verb or the subject found and the subject's number, the antecedent's
noun, agreement and subject columns. W_O is the stack of the W_V^h transposed: it writes each head's four
numbers back into the feature columns they were read from (two heads' numbers add up in a column both carry),
so the output reads with the same labels as X. These patterns are illustrative: in a trained model
such roles emerge from training and are rarely this clean.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from attn_math.attention import self_attention
from attn_math.lexicon import DEFAULT_LANGUAGE, Lexicon, load_lexicon
from attn_math.validation import as_words, frozen
from attn_math.words import punctuation_between, told_apart

DEFAULT_SENTENCE = "el perro de María ladró y ella lo calmó"
# Names for messages and code; a lecture shows its locale's (``heads.labels.head_names``, ``features``).
HEAD_NAMES = ("previous token", "subject–verb", "pronoun–antecedent")
FEATURE_NAMES = ("determiner", "noun", "pronoun", "verb", "subject", "noun gender",
                 "noun number", "pronoun gender", "pronoun number", "position", "position²", "1")
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
# A relation has to beat any distance. Over one row of n <= MAX_TOKENS words, a verb's (or a subject's)
# position terms span at most c (n^2 + n + 1/4) < 2 c n^2, a subject's (a verb's) worth; a pronoun's span at most
# c (n-1)^2 < c n^2, what one agreeing feature (gender or number) of a noun is worth.
SUBJECT_BONUS = 2 * LOCALITY * MAX_TOKENS ** 2
AGREEMENT = LOCALITY * MAX_TOKENS ** 2

CLAUSE_ENDING_PUNCTUATION = ",;:.!?…"

# The feature columns each head's W_V copies (its value's four numbers), so that the token a head attends to always
# brings something: the previous token its role and its position (a conjunction such as «y» has no role, only a
# place); the subject–verb head a verb to its subject (the verb column) and a subject to its verb (the subject column
# and its number, what the verb agrees in); the antecedent its noun, gender, number and subject columns.
CARRIED_BY_PREVIOUS = (DETERMINER, NOUN, PRONOUN, POSITION)
CARRIED_BY_SUBJECT_VERB = (SUBJECT, VERB, NOUN_NUMBER, PRONOUN_NUMBER)
CARRIED_BY_PRONOUN = (NOUN, NOUN_GENDER, NOUN_NUMBER, SUBJECT)


@dataclass(frozen=True)
class MultiHeadResult:
    """Every intermediate of the designed multi-head attention over one sentence."""

    sentence: str  # as typed (NFC), punctuation included
    tokens: tuple  # (n,) its words, punctuation split off
    labels: tuple  # (n,) the words as shown: a repeated word numbered (la₁, la₂)
    lang: str  # the lexicon's language
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
    """The sentence's words (``attn_math.validation.as_words``: NFC, punctuation split off), 1..MAX_TOKENS."""
    return as_words("sentence", sentence, MAX_TOKENS)


def token_features(tokens, lang: str = DEFAULT_LANGUAGE, clause_ends=()) -> np.ndarray:
    """(n, d_model) feature matrix X for the words, from the lexicon of ``lang`` (see module docstring).

    The heuristic, honestly (``word_roles`` says how a word's class is found): a noun takes gender
    and number from the determiner right before it when that says them, else its gender from the
    lexicon's list, its ending or its default, and its number from its ending (a name is singular).
    Clauses end after the positions in ``clause_ends`` (a comma, a full stop...) and before a
    conjunction such as "y" or "and"; in each clause with a verb, the subject is the first noun or
    subject pronoun outside a prepositional phrase ("al perro", "of Mary") before the verb, else the
    first one after it.
    """
    if isinstance(tokens, str) or not all(isinstance(token, str) for token in tokens):
        raise ValueError("tokens: expected a sequence of words (strings)")
    tokens = tuple(unicodedata.normalize("NFC", token) for token in tokens)
    if not tokens or len(tokens) > MAX_TOKENS:
        raise ValueError(f"tokens: expected 1..{MAX_TOKENS} words, got {len(tokens)}")
    lexicon = load_lexicon(lang)
    forms = [token.lower() for token in tokens]
    roles = word_roles(tokens, lang)
    X = np.zeros((len(tokens), D_MODEL))
    for i, (form, role) in enumerate(zip(forms, roles)):
        X[i, POSITION], X[i, POSITION_SQUARED], X[i, ONE] = i, i * i, 1.0
        if role == "det":
            X[i, DETERMINER] = 1.0
        elif role == "verb":
            X[i, VERB] = 1.0
        elif role in ("subject pronoun", "object pronoun"):
            X[i, PRONOUN] = 1.0
            words = lexicon.subject_pronouns if role == "subject pronoun" else lexicon.object_pronouns
            X[i, PRONOUN_GENDER], X[i, PRONOUN_NUMBER] = lexicon.vector(*words[form])
        elif role in ("noun", "name"):
            X[i, NOUN] = 1.0
            determiner = forms[i - 1] if i and roles[i - 1] == "det" else None
            X[i, NOUN_GENDER], X[i, NOUN_NUMBER] = lexicon.vector(*_noun_agreement(lexicon, form, role, determiner))
    for i in _subjects(forms, roles, set(clause_ends), lexicon):
        X[i, SUBJECT] = 1.0
    frozen(X)
    return X


def multi_head_attention(sentence: str = DEFAULT_SENTENCE, n_heads: int = 3,
                         lang: str = DEFAULT_LANGUAGE) -> MultiHeadResult:
    """Designed heads over ``sentence`` in ``lang``: each head's AttentionSteps, concat, concat @ W_O, mean weights.

    ``n_heads`` must be 3: each head is designed for one relation and d_model = 12 splits into
    three heads of 4, so there is no meaningful fewer- or more-head variant to offer.
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads != N_HEADS:
        raise ValueError(f"n_heads: expected {N_HEADS} (one designed head per relation: "
                         f"{', '.join(HEAD_NAMES)}), got {n_heads!r}")
    tokens = tokenize(sentence)
    text = unicodedata.normalize("NFC", sentence)
    clause_ends = [i for i, marks in enumerate(punctuation_between(text))
                   if any(mark in CLAUSE_ENDING_PUNCTUATION for mark in marks)]
    X = token_features(tokens, lang, clause_ends)
    W_Q, W_K, W_V, W_O = _designed_projections()
    heads = tuple(self_attention(X, W_Q[h], W_K[h], W_V[h]) for h in range(N_HEADS))
    concat = np.hstack([head.output for head in heads])  # (n, h * d_head) = (n, d_model)
    output = concat @ W_O
    mean_weights = np.mean([head.weights for head in heads], axis=0)
    frozen(concat, output, mean_weights)
    return MultiHeadResult(sentence=text, tokens=tokens, labels=told_apart(tokens), lang=lang, X=X,
                           feature_names=FEATURE_NAMES, W_Q=W_Q, W_K=W_K, W_V=W_V, heads=heads,
                           head_names=HEAD_NAMES, d_model=D_MODEL, d_head=D_HEAD, concat=concat, W_O=W_O,
                           output=output, mean_weights=mean_weights)


def relations(result: MultiHeadResult) -> tuple:
    """Per head, the (query, attended) pairs of the relation it was designed for, where its weights find one:
    a token to the one before it; a verb to a subject, and a subject to the verb that looks back at it; a
    pronoun to a noun."""
    X = result.X
    targets = [np.argmax(head.weights, axis=1) for head in result.heads]  # (h, n): each row's largest weight
    _, verb_subject_rows, _ = targets
    wanted = (lambda i, j: j == i - 1,
              lambda i, j: (X[i, VERB] == 1 and X[j, SUBJECT] == 1) or (X[i, SUBJECT] == 1 and X[j, VERB] == 1
                                                                          and verb_subject_rows[j] == i),
              lambda i, j: X[i, PRONOUN] == 1 and X[j, NOUN] == 1)
    return tuple(tuple((i, int(j)) for i, j in enumerate(rows) if found(i, j)) for rows, found in zip(targets, wanted))


def missing_relations(sentence: str, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """One English line per designed head that finds no relation in ``sentence`` (it then attends each
    word to itself): what to say before rendering. Empty when all three heads have something to show."""
    result = multi_head_attention(sentence, lang=lang)
    roles = word_roles(result.tokens, lang)
    found = {kind: [token for token, role in zip(result.tokens, roles) if role in kinds] or ["none"]
             for kind, kinds in (("verbs", ("verb",)), ("pronouns", ("subject pronoun", "object pronoun")),
                                 ("nouns", ("noun", "name")))}
    why = ("it has a single word",
           f"verbs found: {', '.join(found['verbs'])}; subjects need a noun or pronoun in the verb's clause",
           f"pronouns found: {', '.join(found['pronouns'])}; nouns found: {', '.join(found['nouns'])}")
    return [f"heads.sentence: the {name} head finds no relation in \"{result.sentence}\" ({reason}); "
            f"each word will attend to itself"
            for name, pairs, reason in zip(HEAD_NAMES, relations(result), why) if not pairs]


def _designed_projections():
    """W_Q, W_K, W_V (h, d_model, d_head) and W_O (d_model, d_model), as the module docstring says."""
    W_Q, W_K, W_V = (np.zeros((N_HEADS, D_MODEL, D_HEAD)) for _ in range(3))
    previous, subject_verb, pronoun = range(N_HEADS)

    # Dimensions 2-3, every head: window centred on p = i (query (c i, c), key (2 j, -j^2)).
    for head in range(N_HEADS):
        W_Q[head, POSITION, 2], W_Q[head, ONE, 3] = LOCALITY, LOCALITY
        W_K[head, POSITION, 2], W_K[head, POSITION_SQUARED, 3] = 2.0, -1.0
    W_Q[previous, ONE, 2] = -LOCALITY  # centre on p = i - 1
    # A verb looks for a subject, its window 1.5 to the left; a subject for a verb, its window 1.5 to the right.
    W_Q[subject_verb, VERB, 0], W_K[subject_verb, SUBJECT, 0] = SUBJECT_BONUS, 1.0
    W_Q[subject_verb, SUBJECT, 1], W_K[subject_verb, VERB, 1] = SUBJECT_BONUS, 1.0
    W_Q[subject_verb, VERB, 2], W_Q[subject_verb, SUBJECT, 2] = -LOOK_BACK / 2, LOOK_BACK / 2
    W_Q[pronoun, PRONOUN_GENDER, 0], W_K[pronoun, NOUN_GENDER, 0] = AGREEMENT, 1.0
    W_Q[pronoun, PRONOUN_NUMBER, 1], W_K[pronoun, NOUN_NUMBER, 1] = AGREEMENT, 1.0

    carried = {previous: CARRIED_BY_PREVIOUS, subject_verb: CARRIED_BY_SUBJECT_VERB, pronoun: CARRIED_BY_PRONOUN}
    for head, columns in carried.items():
        for slot, column in enumerate(columns):
            W_V[head, column, slot] = 1.0
    W_O = np.vstack([W_V[head].T for head in range(N_HEADS)])  # (h * d_head, d_model)
    frozen(W_Q, W_K, W_V, W_O)
    return W_Q, W_K, W_V, W_O


def word_roles(tokens, lang: str = DEFAULT_LANGUAGE) -> tuple:
    """Per word: det, noun, name, verb, subject pronoun, object pronoun, preposition, clause starter,
    relative or other, from the lexicon of ``lang``.

    Listed words keep their class; a capitalised word after the first that is not listed is a name.
    A verb is a known form (listed or conjugated) or has a past, imperfect, future or gerund ending,
    and is not right after a determiner; a word with a present-tense ending ("explica", "owns") is a
    verb only right after a noun, a name, a subject pronoun, a relative word or an object pronoun that
    is no determiner ("lo", "se"), and when the next word is not a verb already. A word that is both determiner and pronoun ("la", "her") is a pronoun
    before a verb, before another listed word or at the end. Everything else is a noun (adjectives too).
    """
    lexicon = load_lexicon(lang)
    forms = [token.lower() for token in tokens]
    closed = [lexicon.is_closed(form) for form in forms]
    names = [i > 0 and not closed[i] and token[:1].isupper() for i, token in enumerate(tokens)]
    sure_verbs = [not closed[i] and not names[i] and (form in lexicon.verbs or form.endswith(lexicon.verb_endings))
                  for i, form in enumerate(forms)]
    determiner_only = [form in lexicon.determiners and form not in lexicon.object_pronouns for form in forms]

    def is_verb(i: int) -> bool:
        if i < 0 or i >= len(forms) or (i and determiner_only[i - 1]):
            return False
        next_is_verb = i + 1 < len(forms) and sure_verbs[i + 1]
        if sure_verbs[i]:
            return not (i and forms[i - 1] in lexicon.determiners and next_is_verb)  # "la cena está"
        previous = forms[i - 1] if i else None
        after_subject = i > 0 and (previous in lexicon.subject_pronouns or previous in lexicon.relatives
                                   or (previous in lexicon.object_pronouns and previous not in lexicon.determiners)
                                   or not (closed[i - 1] or is_verb(i - 1)))
        return (not closed[i] and not names[i] and after_subject and not next_is_verb
                and forms[i].endswith(lexicon.present_endings))

    roles = []
    for i, form in enumerate(forms):
        if is_verb(i):
            roles.append("verb")
        elif form in lexicon.subject_pronouns:
            roles.append("subject pronoun")
        elif form in lexicon.object_pronouns and (form not in lexicon.determiners or i + 1 == len(forms)
                                                   or closed[i + 1] or is_verb(i + 1)):
            roles.append("object pronoun")
        elif form in lexicon.determiners:
            roles.append("det")
        elif form in lexicon.prepositions:
            roles.append("preposition")
        elif form in lexicon.clause_starters:
            roles.append("clause starter")
        elif form in lexicon.relatives:
            roles.append("relative")
        elif form in lexicon.others:
            roles.append("other")
        else:
            roles.append("name" if names[i] else "noun")
    return tuple(roles)


def _noun_agreement(lexicon: Lexicon, form: str, role: str, determiner: str | None) -> tuple:
    """(gender, number) of a noun or name: the determiner before it first, then the lexicon's rules."""
    gender, number = lexicon.determiners[determiner] if determiner else ("unknown", "unknown")
    if number == "unknown":
        number = "plural" if role == "noun" and form.endswith(lexicon.plural_endings) else "singular"
    if gender == "unknown":
        if form in lexicon.noun_genders:
            gender = lexicon.noun_genders[form]
        elif form.endswith(lexicon.feminine_endings):
            gender = "feminine"
        elif form.endswith(lexicon.masculine_endings):
            gender = "masculine"
        else:
            gender = lexicon.name_gender if role == "name" else lexicon.default_gender
    return gender, number


def _subjects(forms, roles, clause_ends: set, lexicon: Lexicon) -> list:
    """Positions of the words taken as subjects: at most one per clause that has a verb."""
    clauses, current = [], []
    for i, role in enumerate(roles):
        if role == "clause starter" and current:
            clauses.append(current)
            current = []
        current.append(i)
        if i in clause_ends:
            clauses.append(current)
            current = []
    clauses.append(current)

    subjects = []
    for clause in clauses:
        verbs = [i for i in clause if roles[i] == "verb"]
        candidates = [i for i in clause if roles[i] in ("noun", "name", "subject pronoun")
                      and not _in_prepositional_phrase(i, forms, roles, lexicon)]
        if verbs and candidates:
            before = [i for i in candidates if i < verbs[0]]
            subjects.append(before[0] if before else candidates[0])
    return subjects


def _in_prepositional_phrase(i: int, forms, roles, lexicon: Lexicon) -> bool:
    """True when a preposition comes right before word i, determiners skipped ("de la niña", "al perro")."""
    j = i - 1
    while j >= 0 and roles[j] == "det":
        if forms[j] in lexicon.prepositions:  # "al", "del"
            return True
        j -= 1
    return j >= 0 and roles[j] == "preposition"
