"""Input checks shared by the library: a clear error instead of a silent wrong result.

The commonest slip with text APIs is passing a string where a list of tokens is
expected: Python happily iterates over its characters and every function downstream
returns plausible numbers. These helpers turn that into a ``TypeError`` naming the
argument.
"""
from __future__ import annotations


def not_a_string(value, name: str, expected: str = "a list of tokens"):
    """Raise ``TypeError`` if ``value`` is a str (or bytes); return it unchanged otherwise."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {expected}, got a string {value[:40]!r}: split it first, e.g. text.split()")
    return value


def token_lists(sentences, name: str = "sentences") -> list:
    """Check a corpus given as a list of token lists; return it as a list.

    Raises:
        TypeError: ``sentences`` is a string, or one of its items is (a sentence must
            be a list of tokens, not a string).
    """
    not_a_string(sentences, name, "a list of sentences (each a list of tokens)")
    sentences = list(sentences)
    for i, sentence in enumerate(sentences):
        not_a_string(sentence, f"{name}[{i}]", "a list of tokens")
    return sentences
