"""The numbers behind every scene: pure numpy, no manim.

Conventions, stated once for the whole package:

* Row vectors. A sequence of n tokens with d-dimensional embeddings is a matrix
  X of shape (n, d); projections multiply on the right: ``Q = X @ W_Q`` with
  ``W_Q`` of shape (d, d_k). (The AI Visual Lab writes ``q_i = W_Q @ x_i``;
  ``attn_math.lab`` converts, see there.)
* ``scores = Q @ K.T`` are the raw compatibilities, ``scaled`` divides them by
  sqrt(d_k) and by the temperature, masked entries are ``-inf`` and become exactly
  0 after the softmax.
* Entropies are in bits unless a function says otherwise.
* Every public function validates its inputs and raises ``ValueError`` naming the
  argument and the expected shape; results are frozen dataclasses whose arrays are
  read-only, holding every intermediate a scene shows.
"""

from attn_math.attention import AttentionSteps, causal_mask, entropy, self_attention, softmax

__all__ = ["AttentionSteps", "causal_mask", "entropy", "self_attention", "softmax"]
