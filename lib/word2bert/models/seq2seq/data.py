"""Translation data for teacher forcing: id arrays from tokenized pairs, references for BLEU."""
from __future__ import annotations

from word2bert.preprocessing.batching import teacher_forcing_arrays
from word2bert.utils.checks import not_a_string
from word2bert.tokenizers.specials import BOS, EOS, PAD, SPECIALS
from word2bert.tokenizers.words import detokenize, tokenize


def encode_pairs(pairs, src_vocab, tgt_vocab, sequence_length: int):
    """Encode tokenized pairs for teacher forcing (``word2bert.preprocessing.batching.teacher_forcing_arrays``'s policy).

    Args:
        pairs: list of ``(source_tokens, target_tokens)``, each side 1..``sequence_length`` tokens (``prepare_translation``
            leaves longer pairs out).
        src_vocab, tgt_vocab: ``word2bert.vocab.Vocabulary`` with ``<pad>`` at id 0;
            the target vocabulary also needs ``<s>`` and ``</s>`` (``word2bert.tokenizers.specials``).
        sequence_length: longest source / target (tokens, without ``<s>``/``</s>``).

    Returns:
        ``(source, decoder_input, decoder_target)``, int32 arrays of shapes
        ``(N, S)``, ``(N, T + 1)``, ``(N, T + 1)`` (S, T: the longest lengths),
        right-padded with 0. ``decoder_input = <s> y``; ``decoder_target = y </s>``.

    Raises:
        TypeError: a side of a pair is a string rather than a list of tokens.
        ValueError: empty ``pairs``, ``sequence_length`` < 1, a side of a pair empty or longer than ``sequence_length`` (a pair is
            never cut: a cut target no longer translates its source), ``<pad>`` not id 0, or the target
            vocabulary lacks ``<s>``/``</s>``.
    """
    if not pairs:
        raise ValueError("encode_pairs needs at least one pair")
    if sequence_length < 1:
        raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
    for name, vocab in (("src_vocab", src_vocab), ("tgt_vocab", tgt_vocab)):
        if vocab.token_to_id(PAD) != 0 or PAD not in vocab:
            raise ValueError(f"{name} must have {PAD!r} at id 0")
    if BOS not in tgt_vocab or EOS not in tgt_vocab:
        raise ValueError(f"tgt_vocab must contain {BOS!r} and {EOS!r} (pass specials={SPECIALS})")
    for i, (s, t) in enumerate(pairs):
        not_a_string(s, f"pairs[{i}][0]", "a list of source tokens (tokenize it first)")
        not_a_string(t, f"pairs[{i}][1]", "a list of target tokens (tokenize it first)")
        if not (0 < len(s) <= sequence_length and 0 < len(t) <= sequence_length):
            raise ValueError(f"pairs[{i}] has {len(s)} source and {len(t)} target tokens: each side needs 1..sequence_length="
                             f"{sequence_length} (leave the others out, as prepare_translation does)")
    source, dec_in, dec_out, _ = teacher_forcing_arrays(
        [src_vocab.encode(s) for s, _ in pairs], [tgt_vocab.encode(t) for _, t in pairs],
        tgt_vocab.token_to_id(BOS), tgt_vocab.token_to_id(EOS), sequence_length, sequence_length)
    return source, dec_in, dec_out


def group_references(pairs, sequence_length: int | None = None):
    """Group translation pairs by source sentence, for multi-reference BLEU.

    Args:
        pairs: list of ``(source, target)`` str pairs (e.g. ``ding_de_en("test")``).
        sequence_length: keep only sources with at most this many ``tokenize`` tokens (None: all).

    Returns:
        ``(sources, references)``: the distinct source strings in order of first
        appearance, and for each a list of its reference strings, lowercased like the
        model's output (``detokenize(tokenize(target))``).
    """
    groups: dict[str, list[str]] = {}
    for source, target in pairs:
        if sequence_length is not None and len(tokenize(source)) > sequence_length:
            continue
        groups.setdefault(source, []).append(detokenize(tokenize(target)))
    return list(groups), list(groups.values())
