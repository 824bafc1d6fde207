"""Plots the chapters share (matplotlib only)."""
from __future__ import annotations

import numpy as np


def attention_heatmap(weights, source_tokens, target_tokens, ax=None, title: str | None = None, cmap: str = "viridis"):
    """Draw attention weights as a heatmap: target tokens down, source tokens across.

    Args:
        weights: array ``(target_len, source_len)`` (at least as large as the token
            lists; extra rows/columns, e.g. padding, are cut off). Row t holds the
            weights target token t gave each source token.
        source_tokens: list of str, the x-axis labels.
        target_tokens: list of str, the y-axis labels.
        ax: a matplotlib Axes to draw in (default: a new figure).
        title: the axes title.
        cmap: a matplotlib colormap name.

    Returns:
        the matplotlib Axes.

    Raises:
        ValueError: ``weights`` is not 2-D or smaller than the token lists.
    """
    import matplotlib.pyplot as plt

    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2:
        raise ValueError(f"weights must be 2-D (target_len, source_len), got shape {weights.shape}")
    t, s = len(target_tokens), len(source_tokens)
    if weights.shape[0] < t or weights.shape[1] < s:
        raise ValueError(f"weights of shape {weights.shape} are smaller than ({t} target, {s} source) tokens")
    if ax is None:
        _, ax = plt.subplots(figsize=(0.45 * s + 1.5, 0.4 * t + 1.2))
    image = ax.imshow(weights[:t, :s], cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(s), source_tokens, rotation=60, ha="right")
    ax.set_yticks(range(t), target_tokens)
    ax.set_xlabel("source (German)")
    ax.set_ylabel("output (English)")
    if title:
        ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, fraction=0.04, label="attention weight")
    return ax
