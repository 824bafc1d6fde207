"""The binary Huffman tree of hierarchical softmax (Mikolov et al. 2013a, section 3; Morin & Bengio 2005).

Frequent words get short codes, so the expected path length is close to the entropy of the
unigram distribution.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from word2bert.models.word2vec.sampling import counts_array


@dataclass
class HuffmanTree:
    """A binary Huffman tree over a vocabulary, as hierarchical softmax uses it.

    Attributes:
        codes: list (one per word id) of int8 arrays of 0/1 branch choices, root first.
        points: list (one per word id) of int32 arrays: the inner nodes on the path from
            the root, ``points[w][j]`` being the node whose branch ``codes[w][j]`` is taken.
            Inner nodes are numbered ``0 .. vocabulary_size - 2``; the root is ``vocabulary_size - 2``.
        path_nodes, path_codes: ``(vocabulary_size, max_depth)`` int32 arrays, zero-padded.
        path_mask: ``(vocabulary_size, max_depth)`` bool, True on real path steps.
    """

    codes: list
    points: list
    path_nodes: np.ndarray
    path_codes: np.ndarray
    path_mask: np.ndarray

    @property
    def code_lengths(self) -> np.ndarray:
        """int array: the depth of each word's leaf (its code length)."""
        return self.path_mask.sum(axis=1)


def build_huffman_tree(counts) -> HuffmanTree:
    """Build the Huffman tree of word counts: frequent words get short codes.

    Repeatedly merge the two least frequent nodes (ties: the node created first, leaves
    before inner nodes, then lower id) into a new inner node; the first of the two gets
    code 0, the second code 1. The result is an optimal prefix-free code: its expected
    length lies within 1 bit of the entropy of ``counts / sum(counts)``.

    Args:
        counts: 1-D array of non-negative counts, length >= 2 (words with count 0 get the
            longest codes but still a leaf, so every id has a probability).

    Returns:
        ``HuffmanTree``.

    Raises:
        ValueError: fewer than 2 words, or negative, NaN or infinite counts.

    Reference: Huffman (1952); Mikolov et al. (2013a), section 3.
    """
    counts = np.asarray(counts, dtype=np.float64)
    v = len(counts)
    if counts.ndim != 1 or v < 2:
        raise ValueError(f"counts must be 1-D with at least 2 words, got shape {counts.shape}")
    counts = counts_array(counts)
    # heap items: (count, order, node); leaves are 0..v-1, inner nodes v..2v-2
    heap = [(c, i, i) for i, c in enumerate(counts)]
    heapq.heapify(heap)
    parent = np.zeros(2 * v - 1, dtype=np.int64)
    branch = np.zeros(2 * v - 1, dtype=np.int8)
    order = v
    for node in range(v, 2 * v - 1):
        c0, _, n0 = heapq.heappop(heap)
        c1, _, n1 = heapq.heappop(heap)
        parent[n0], branch[n0] = node, 0
        parent[n1], branch[n1] = node, 1
        heapq.heappush(heap, (c0 + c1, order, node))
        order += 1
    root = 2 * v - 2
    codes, points = [], []
    for w in range(v):
        code, path, node = [], [], w
        while node != root:
            code.append(branch[node])
            path.append(parent[node] - v)  # inner node index 0..v-2
            node = parent[node]
        codes.append(np.array(code[::-1], dtype=np.int8))
        points.append(np.array(path[::-1], dtype=np.int32))
    depth = max(len(c) for c in codes)
    path_nodes = np.zeros((v, depth), dtype=np.int32)
    path_codes = np.zeros((v, depth), dtype=np.int32)
    path_mask = np.zeros((v, depth), dtype=bool)
    for w in range(v):
        k = len(codes[w])
        path_nodes[w, :k], path_codes[w, :k], path_mask[w, :k] = points[w], codes[w], True
    return HuffmanTree(codes, points, path_nodes, path_codes, path_mask)
