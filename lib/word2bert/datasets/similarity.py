"""Word-similarity and analogy sets that gensim ships as test data.

WordSim-353 (Finkelstein et al. 2002, CC BY 4.0, 353 pairs), SimLex-999 (Hill et al. 2015, free for
research, 999 pairs), Google's analogy questions (Mikolov et al. 2013, Apache-2.0, 19,544 questions).
"""
from __future__ import annotations

from word2bert.datasets.paths import gensim_data_path


def _read_pairs(path: str) -> list[tuple[str, str, float]]:
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            a, b, score = line.rstrip("\n").split("\t")[:3]
            pairs.append((a.lower(), b.lower(), float(score)))
    return pairs


def wordsim353() -> list[tuple[str, str, float]]:
    """WordSim-353: 353 word pairs with mean human relatedness scores (0-10).

    Returns:
        list of ``(word1, word2, score)``, words lowercased.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Finkelstein et al. (2002), "Placing search in context"; file shipped by gensim.
    """
    return _read_pairs(gensim_data_path("wordsim353"))


def simlex999() -> list[tuple[str, str, float]]:
    """SimLex-999: 999 pairs scored for similarity (not relatedness), 0-10.

    Returns:
        list of ``(word1, word2, score)``.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Hill, Reichart & Korhonen (2015), "SimLex-999"; file shipped by gensim.
    """
    return _read_pairs(gensim_data_path("simlex999"))


def google_analogies() -> dict[str, list[tuple[str, str, str, str]]]:
    """Google's word-analogy questions (a : b :: c : d), 19,544 in 14 sections.

    Returns:
        dict ``{section: [(a, b, c, d), ...]}`` in file order, words lowercased.
        Sections named ``gram*`` are syntactic, the others semantic.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Mikolov et al. (2013), "Efficient Estimation of Word Representations in
    Vector Space", section 4.1; ``questions-words.txt`` shipped by gensim.
    """
    sections: dict[str, list] = {}
    current = None
    with open(gensim_data_path("analogies"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(":"):
                current = line[1:].strip()
                sections[current] = []
            elif line.strip():
                sections[current].append(tuple(line.lower().split()))
    return sections
