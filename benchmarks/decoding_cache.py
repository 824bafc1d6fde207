"""Speed of the Transformer's key/value cache: cached decoding against recomputing the prefix, on this CPU.

A 2 + 2 block ``Transformer`` (hidden_dim 256, 4 heads, d_ff 1024, 8000 pieces, untrained) decodes 40
tokens for 64 rows: greedy (``run_steps``, 64 sentences) and beam search (``word2bert.samplers.beam_search``,
16 sentences x beam width 4, the end token never chosen so every run takes all 40 steps). Each time is the
median of ``--repeats`` runs, cached and uncached timed in turns, after one run of each that compiles; the
tokens of both ways must be equal.

    KERAS_BACKEND=tensorflow python benchmarks/decoding_cache.py [--repeats 5] [--steps 40]

Timings on a shared CPU vary by several per cent; compare numbers from one run.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

VOCAB, START, END = 8000, 2, 3


def _model_and_source(sentences: int):
    from word2bert.models.transformer import Transformer

    keras.utils.set_random_seed(0)
    model = Transformer(VOCAB, VOCAB, num_layers=2, hidden_dim=256, num_heads=4, intermediate_dim=1024, max_sequence_length=96)
    source = np.random.default_rng(0).integers(1, VOCAB, (sentences, 24)).astype("int32")
    return model, source


def _interleaved(run, repeats: int):
    """Median seconds of ``run(True)`` (cached) and ``run(False)`` (uncached), timed in turns after one run of
    each that compiles (so a change in the machine's load hits both), and the outputs of each."""
    out = {use_cache: run(use_cache)[0] for use_cache in (True, False)}
    times = {True: [], False: []}
    for _ in range(repeats):
        for use_cache in (True, False):
            times[use_cache].append(run(use_cache)[1])
    return float(np.median(times[True])), float(np.median(times[False])), out


def greedy_seconds(batch: int, steps: int, repeats: int):
    """``(cached s, uncached s, tokens)`` of ``steps`` greedy steps for ``batch`` sentences."""
    from word2bert.models.transformer import run_steps

    model, source = _model_and_source(batch)
    memory, mask = model.encode_source(source)
    fns = dict(zip((True, False), model.step_functions(model.source_context(memory, mask))))
    start = np.full(batch, START)
    return _interleaved(lambda use_cache: run_steps(fns[use_cache], model.decoding_state(batch, steps, use_cache),
                                                    start, steps), repeats)


def beam_seconds(sentences: int, beam_width: int, steps: int, repeats: int):
    """``(cached s, uncached s, outputs)`` of a ``steps``-token beam search for ``sentences`` sentences."""
    from word2bert.samplers import beam_search

    model, source = _model_and_source(sentences)
    memory, mask = model.encode_source(source)
    fns = dict(zip((True, False), model.step_functions(model.source_context(memory, mask, repeat=beam_width))))

    def run(use_cache):
        def never_end(state, last_tokens):             # every run decodes all ``steps`` tokens
            log_probs, state = fns[use_cache](state, last_tokens)
            log_probs = np.array(log_probs)
            log_probs[:, END] = -np.inf
            return log_probs, state

        state = model.decoding_state(sentences, steps, use_cache)
        started = time.perf_counter()
        out = beam_search(never_end, state, sentences, START, END, steps, beam_width=beam_width, alpha=0.6)
        return out, time.perf_counter() - started

    return _interleaved(run, repeats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    print(f"backend {keras.config.backend()}, {os.cpu_count()} CPUs, {args.steps} steps, median of {args.repeats}")
    cached, uncached, tokens = greedy_seconds(64, args.steps, args.repeats)
    assert np.array_equal(tokens[True], tokens[False]), "cached and uncached greedy tokens differ"
    print(f"greedy, batch 64: cached {cached:.2f} s, uncached {uncached:.2f} s, speed-up {uncached / cached:.2f}x")
    cached, uncached, outputs = beam_seconds(16, 4, args.steps, args.repeats)
    assert outputs[True] == outputs[False], "cached and uncached beam search outputs differ"
    print(f"beam 4, 16 sentences (64 rows): cached {cached:.2f} s, uncached {uncached:.2f} s, "
          f"speed-up {uncached / cached:.2f}x")

if __name__ == "__main__":
    main()
