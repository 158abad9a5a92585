"""A two-layer attention-only transformer in numpy, its loss and its gradients written out.

Shapes: B sequences of T tokens, vocabulary V, residual width d (d_model), H heads per layer of width e = d / H,
L layers. Row vectors, as in the whole package: the residual stream X is (B, T, d).

    X_0 = W_E[tokens] + W_pos[:T]                                   token + learned position embeddings
    Q = X_l W_Q^h,  K = X_l W_K^h,  V = X_l W_V^h                   (B, H, T, e) per head h
    A^h = softmax(Q K^T / sqrt(e) + causal mask)                     (B, H, T, T): the attention pattern
    Z^h = A^h V,    X_{l+1} = X_l + sum_h Z^h W_O^h                 each head adds its output to the stream
    logits = X_L W_U                                                 (B, T, V), no MLP, no LayerNorm
    loss = mean over b and t < T-1 of -log softmax(logits[b, t])[tokens[b, t+1]]

Parameters are a dict of named float64 arrays (``Parameters``): W_E (V, d), W_pos (C, d), W_Q, W_K, W_V
(L, H, d, e), W_O (L, H, e, d), W_U (d, V). The model reads up to C = 3 half positions: it is trained on sequences
longer than the repeated ones (T = 2 half) it is shown, so that every position of those has been trained as the
token after an earlier one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.validation import as_count

Parameters = dict[str, np.ndarray]
PARAMETER_NAMES = ("W_E", "W_pos", "W_Q", "W_K", "W_V", "W_O", "W_U")


@dataclass(frozen=True)
class LearnedShape:
    """The model's sizes: vocabulary V, half (T = 2 half), d_model d, heads H per layer, layers L."""

    vocabulary: int
    half: int
    d_model: int
    heads: int
    layers: int = 2

    def __post_init__(self) -> None:
        as_count("vocabulary", self.vocabulary, 2)
        as_count("half", self.half, 2, self.vocabulary)
        as_count("heads", self.heads, 1)
        as_count("layers", self.layers, 1)
        if as_count("d_model", self.d_model, 1) % self.heads:
            raise ValueError(f"d_model: expected a multiple of heads ({self.heads}), got {self.d_model}")

    @property
    def sequence_length(self) -> int:
        """T = 2 half: the first half and its repetition."""
        return 2 * self.half

    @property
    def context(self) -> int:
        """C = 3 half: the positions the model has (its training sequences' length)."""
        return 3 * self.half

    @property
    def d_head(self) -> int:
        """e = d_model / heads."""
        return self.d_model // self.heads

    def parameter_shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every parameter array, by name."""
        V, C, d, H, e, L = self.vocabulary, self.context, self.d_model, self.heads, self.d_head, self.layers
        return {"W_E": (V, d), "W_pos": (C, d), "W_Q": (L, H, d, e), "W_K": (L, H, d, e), "W_V": (L, H, d, e),
                "W_O": (L, H, e, d), "W_U": (d, V)}


@dataclass(frozen=True)
class Forward:
    """Every intermediate of one forward pass over a batch: what the backward pass reads."""

    tokens: np.ndarray  # (B, T)
    residuals: np.ndarray  # (L + 1, B, T, d): X_0 (embeddings), the stream after each layer
    queries: np.ndarray  # (L, B, H, T, e)
    keys: np.ndarray  # (L, B, H, T, e)
    values: np.ndarray  # (L, B, H, T, e)
    patterns: np.ndarray  # (L, B, H, T, T): A, rows sum to 1, 0 above the diagonal
    mixed: np.ndarray  # (L, B, H, T, e): Z = A V
    logits: np.ndarray  # (B, T, V)


def shape_of(params: Parameters) -> LearnedShape:
    """The LearnedShape the parameter arrays have (their names and shapes checked)."""
    missing = [name for name in PARAMETER_NAMES if name not in params]
    if missing:
        raise ValueError(f"params: missing {', '.join(missing)}")
    V, d = np.shape(params["W_E"])
    L, H, _, _ = np.shape(params["W_Q"])
    shape = LearnedShape(V, len(params["W_pos"]) // 3, d, H, L)
    for name, expected in shape.parameter_shapes().items():
        if np.shape(params[name]) != expected:
            raise ValueError(f"params: expected {name} of shape {expected}, got {np.shape(params[name])}")
    return shape


def initial_parameters(rng: np.random.Generator, shape: LearnedShape) -> Parameters:
    """Random float64 weights: embeddings N(0, 1/2) (their sum has unit variance), projections N(0, 1/d)."""
    scales = {"W_E": np.sqrt(0.5), "W_pos": np.sqrt(0.5)}
    return {name: rng.standard_normal(dims) * scales.get(name, 1 / np.sqrt(shape.d_model))
            for name, dims in shape.parameter_shapes().items()}


def checked_tokens(tokens, shape: LearnedShape) -> np.ndarray:
    """``tokens`` as a (B, T) int array of ids below the vocabulary, 2 <= T <= the model's context."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or not 2 <= tokens.shape[1] <= shape.context or not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"tokens: expected integers of shape (B, T) with 2 <= T <= {shape.context}, "
                         f"got {tokens.dtype} {tokens.shape}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= shape.vocabulary):
        raise ValueError(f"tokens: expected ids from 0 to {shape.vocabulary - 1}")
    return tokens


# Every product below is one small matrix product per sequence (B of them), never one product over the whole batch:
# OpenBLAS spreads a large product over threads that spin waiting for each other, which took ten times the CPU time
# on two busy cores, and the sums over the batch stay in one fixed order.


def per_head(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(B, T, d) @ (H, d, e) -> (B, H, T, e)."""
    B, T, _ = X.shape
    H, d, e = W.shape
    return (X @ W.transpose(1, 0, 2).reshape(d, H * e)).reshape(B, T, H, e).transpose(0, 2, 1, 3)


def heads_joined(Z: np.ndarray) -> np.ndarray:
    """(B, H, T, e) -> (B, T, H e): [Z^1 | ... | Z^H] for each sequence."""
    B, H, T, e = Z.shape
    return Z.transpose(0, 2, 1, 3).reshape(B, T, H * e)


def summed_over_batch(X: np.ndarray, G: np.ndarray) -> np.ndarray:
    """sum_b X_b^T G_b: (B, T, m), (B, T, n) -> (m, n), the gradient of a weight shared by every position."""
    return (X.swapaxes(1, 2) @ G).sum(axis=0)


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """softmax over the last axis of (..., T, T) scores, keys after the query masked to exactly 0."""
    T = scores.shape[-1]
    masked = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    exponentials = np.exp(masked - masked.max(axis=-1, keepdims=True))
    return exponentials / exponentials.sum(axis=-1, keepdims=True)


def forward(params: Parameters, tokens) -> Forward:
    """The forward pass of the module docstring over a (B, T) batch."""
    shape = shape_of(params)
    tokens = checked_tokens(tokens, shape)
    B, T = tokens.shape
    X = params["W_E"][tokens] + params["W_pos"][:T]
    residuals, queries, keys, values, patterns, mixed = [X], [], [], [], [], []
    for layer in range(shape.layers):
        Q, K, V = (per_head(X, params[name][layer]) for name in ("W_Q", "W_K", "W_V"))
        A = causal_softmax(Q @ K.swapaxes(-1, -2) / np.sqrt(shape.d_head))  # (B, H, T, T)
        Z = A @ V  # (B, H, T, e)
        X = X + heads_joined(Z) @ params["W_O"][layer].reshape(-1, shape.d_model)
        for stack, array in ((residuals, X), (queries, Q), (keys, K), (values, V), (patterns, A), (mixed, Z)):
            stack.append(array)
    return Forward(tokens, *map(np.stack, (residuals, queries, keys, values, patterns, mixed)),
                   logits=X @ params["W_U"])


def log_probabilities(logits: np.ndarray) -> np.ndarray:
    """log softmax over the last axis."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def token_losses(params: Parameters, tokens) -> np.ndarray:
    """(B, T - 1) cross-entropy in nats of predicting tokens[:, t + 1] at position t."""
    result = forward(params, tokens)
    log_p = log_probabilities(result.logits[:, :-1])
    return -np.take_along_axis(log_p, result.tokens[:, 1:, None], axis=2)[:, :, 0]


def half_losses(params: Parameters, tokens) -> tuple[float, float]:
    """Mean cross-entropy (nats) of the first half's predictions (targets 1..half-1) and of the repeated half's
    (targets half+1..T-1, whose current token occurred before). Target ``half``, the first repeated token, is in
    neither: only its position, not a previous occurrence, tells it."""
    losses = token_losses(params, tokens)  # column t predicts target t + 1
    half = (losses.shape[1] + 1) // 2
    return float(losses[:, :half - 1].mean()), float(losses[:, half:].mean())


def attention_patterns(params: Parameters, tokens) -> np.ndarray:
    """(L, H, T, T) attention of every head on one sequence of T tokens."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 1:
        raise ValueError(f"tokens: expected one sequence of shape (T,), got shape {tokens.shape}")
    return forward(params, tokens[None]).patterns[:, 0]


def loss_and_gradients(params: Parameters, tokens) -> tuple[float, Parameters]:
    """The mean next-token loss over the batch and its gradient with respect to every parameter, each of the same
    shape as its parameter. From the top, with N = B (T - 1) predictions:
        dlogits = (softmax(logits) - onehot(next token)) / N   (0 at the last position, which predicts nothing),
        dW_U = X_L^T dlogits,  dX_L = dlogits W_U^T,  then ``_backward_layers``."""
    result = forward(params, tokens)
    B, T = result.tokens.shape
    log_p = log_probabilities(result.logits[:, :-1])
    targets = result.tokens[:, 1:, None]
    loss = -float(np.take_along_axis(log_p, targets, axis=2).mean())
    d_logits = np.zeros_like(result.logits)
    d_logits[:, :-1] = np.exp(log_p)
    np.put_along_axis(d_logits[:, :-1], targets, np.take_along_axis(d_logits[:, :-1], targets, axis=2) - 1, axis=2)
    d_logits /= B * (T - 1)
    grads = {"W_U": summed_over_batch(result.residuals[-1], d_logits),
             **_backward_layers(params, result, d_logits @ params["W_U"].T)}
    return loss, {name: grads[name] for name in PARAMETER_NAMES}


def _backward_layers(params: Parameters, result: Forward, d_X: np.ndarray) -> Parameters:
    """Through the layers from the top: X_{l+1} = X_l + sum_h Z^h W_O^h passes dX on unchanged plus what flows
    back through Q, K and V; then the embeddings: dW_E[v] = sum of dX_0 where tokens == v, dW_pos[:T] = sum_b dX_0."""
    layers = {name: np.empty_like(params[name]) for name in ("W_Q", "W_K", "W_V", "W_O")}
    for layer in reversed(range(len(result.patterns))):
        grads = _backward_layer(params, result, layer, d_X)
        d_X = grads.pop("X")
        for name, grad in grads.items():
            layers[name][layer] = grad
    V = params["W_E"].shape[0]
    one_hot = (result.tokens[:, :, None] == np.arange(V)).astype(d_X.dtype)  # (B, T, V)
    d_W_pos = np.zeros_like(params["W_pos"])
    d_W_pos[:d_X.shape[1]] = d_X.sum(axis=0)
    return {**layers, "W_E": summed_over_batch(one_hot, d_X), "W_pos": d_W_pos}


def _backward_layer(params: Parameters, result: Forward, layer: int, d_out: np.ndarray) -> Parameters:
    """One layer's gradients given dL/dX_{l+1} = d_out (B, T, d):
        dW_O^h = Z^h.T dX,  dZ^h = dX W_O^h.T,  dA = dZ V.T,  dV = A.T dZ,
        dS = A * (dA - rowsum(dA * A)) / sqrt(e)   (softmax's Jacobian; masked entries have A = 0),
        dQ = dS K,  dK = dS.T Q,  dW_Q^h = X.T dQ^h (likewise K, V),
        dX_l = dX + dQ W_Q.T + dK W_K.T + dV W_V.T."""
    X, Q, K, V = result.residuals[layer], result.queries[layer], result.keys[layer], result.values[layer]
    A, Z = result.patterns[layer], result.mixed[layer]
    B, H, T, e = Q.shape
    d = X.shape[-1]
    W_O = params["W_O"][layer]  # (H, e, d)
    d_W_O = summed_over_batch(heads_joined(Z), d_out).reshape(H, e, d)
    d_Z = (d_out @ W_O.reshape(H * e, d).T).reshape(B, T, H, e).transpose(0, 2, 1, 3)
    d_A = d_Z @ V.swapaxes(-1, -2)
    d_V = A.swapaxes(-1, -2) @ d_Z
    d_S = A * (d_A - (d_A * A).sum(axis=-1, keepdims=True)) / np.sqrt(e)
    d_Q = d_S @ K
    d_K = d_S.swapaxes(-1, -2) @ Q
    grads: Parameters = {"W_O": d_W_O}
    d_X = d_out.copy()
    for name, d_projected in (("W_Q", d_Q), ("W_K", d_K), ("W_V", d_V)):
        joined = heads_joined(d_projected)  # (B, T, H e)
        grads[name] = summed_over_batch(X, joined).reshape(d, H, e).transpose(1, 0, 2)
        d_X += joined @ params[name][layer].transpose(1, 0, 2).reshape(d, H * e).T
    grads["X"] = d_X
    return grads
