"""Plots the chapters share (matplotlib only): training curves, attention heatmaps, scores with intervals."""
from __future__ import annotations

import numpy as np

from word2bert.utils.imports import require


def _curves(history) -> dict:
    """A ``keras.callbacks.History``, its ``.history`` dict, or a dict of lists -> dict of float arrays."""
    history = getattr(history, "history", history)
    if not isinstance(history, dict):
        raise ValueError(f"expected a keras History or a dict of per-epoch lists, got {type(history).__name__}")
    return {k: np.asarray(v, dtype=np.float64) for k, v in history.items()}


def history(histories, keys=("loss", "val_loss"), ax=None, title: str | None = None, ylabel: str | None = None,
            xlabel: str = "epoch", mark_best: str | None = None, smooth: int = 1, logy: bool = False):
    """Draw training curves: one or several runs, one or several logged quantities.

    Args:
        histories: a ``keras.callbacks.History`` (or its ``.history`` dict of per-epoch lists),
            or ``{label: History or dict}`` to compare runs.
        keys: which logged quantities to draw (those a run lacks are skipped), e.g.
            ``("loss", "val_loss")`` or ``("perplexity", "val_perplexity")``.
        ax: a matplotlib Axes (default: a new figure).
        title, ylabel, xlabel: labels (``ylabel`` defaults to the first key).
        mark_best: a key whose minimum is marked with a dotted vertical line (e.g. ``"val_loss"``,
            the epoch early stopping keeps).
        smooth: running-mean window (for per-batch curves; 1: none).
        logy: logarithmic y axis.

    Returns:
        the matplotlib Axes.

    Raises:
        ValueError: nothing to draw (no run has any of ``keys``), or ``smooth`` < 1.
    """
    plt = require("matplotlib.pyplot", purpose="word2bert.plots")

    if smooth < 1:
        raise ValueError(f"smooth must be >= 1, got {smooth}")
    if not (hasattr(histories, "history") or isinstance(histories, dict)):
        raise ValueError(f"histories must be a keras History, a dict of per-epoch lists, or a dict "
                         f"{{label: History or dict}}, got {type(histories).__name__}")
    single = hasattr(histories, "history") or (
        isinstance(histories, dict) and all(np.ndim(v) == 1 for v in histories.values()))
    runs = {"": _curves(histories)} if single else {label: _curves(h) for label, h in histories.items()}
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.4))
    drawn = 0
    for label, curves in runs.items():
        for key in keys:
            if key not in curves or not len(curves[key]):
                continue
            y = curves[key]
            if smooth > 1 and len(y) > 2 * smooth:
                y = np.convolve(y, np.ones(smooth) / smooth, mode="valid")
            name = " ".join(p for p in (label, key.replace("val_", "valid ").replace("_", " ")) if p) \
                if (len(keys) > 1 or not label) else label
            ax.plot(np.arange(1, len(y) + 1), y, "o-" if len(y) <= 60 else "-", ms=3, label=name)
            drawn += 1
        if mark_best and mark_best in curves and len(curves[mark_best]):
            ax.axvline(int(np.argmin(curves[mark_best])) + 1, color="gray", ls=":", lw=1)
    if not drawn:
        raise ValueError(f"no run logged any of {list(keys)}")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or keys[0])
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


def attention_heatmap(weights, source_tokens, target_tokens, ax=None, title: str | None = None, cmap: str = "viridis",
                      source_label: str = "source", target_label: str = "output"):
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
        source_label, target_label: the axis titles (e.g. the two languages).

    Returns:
        the matplotlib Axes.

    Raises:
        ValueError: ``weights`` is not 2-D or smaller than the token lists.
    """
    plt = require("matplotlib.pyplot", purpose="word2bert.plots")

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
    ax.set_xlabel(source_label)
    ax.set_ylabel(target_label)
    if title:
        ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, fraction=0.04, label="attention weight")
    return ax


def with_intervals(ax, xs, intervals, **kwargs):
    """Draw scores with their confidence intervals: at each ``x`` the ``Interval``'s score, with an error bar from
    its ``low`` to its ``high`` (``word2bert.metrics.bootstrap_interval`` gives them).

    Args:
        ax: a matplotlib ``Axes``.
        xs: the x positions, one per interval.
        intervals: ``Interval`` values (anything with ``score``, ``low`` and ``high``).
        **kwargs: passed to ``ax.errorbar`` (``fmt``, ``color``, ``label``...); ``capsize`` is 3 unless given.

    Returns:
        the ``ErrorbarContainer``.

    Raises:
        ValueError: ``xs`` and ``intervals`` of different lengths, none given, or an interval whose score lies
            outside its bounds.
    """
    xs, intervals = list(xs), list(intervals)
    if not intervals or len(xs) != len(intervals):
        raise ValueError(f"need one x per interval and at least one, got {len(xs)} x and {len(intervals)} intervals")
    scores = np.array([i.score for i in intervals], np.float64)
    low, high = np.array([i.low for i in intervals]), np.array([i.high for i in intervals])
    if np.any(low > scores + 1e-12) or np.any(high < scores - 1e-12):
        raise ValueError("every interval must hold its score (low <= score <= high)")
    kwargs.setdefault("capsize", 3)
    return ax.errorbar(xs, scores, yerr=[scores - low, high - scores], **kwargs)
