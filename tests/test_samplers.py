"""Tests for word2bert.samplers: beam width 1 is greedy; beam search finds the best
sequence of a toy model whose sequence probabilities are enumerated by brute force; beam search
reorders a state of backend tensors as it reorders NumPy arrays, and the Transformer's key/value
caches stay backend tensors through a whole search."""
import itertools

import keras
import numpy as np
import pytest

from word2bert.samplers import beam_search, greedy_search, length_penalty

from backends import once_on_tensorflow


START, END, A, B = 0, 1, 2, 3
VOCAB = 4

# p(next | prefix) of a toy model; prefixes not listed use DEFAULT
TABLE = {
    (): [0.0, 0.0, 0.6, 0.4],
    (A,): [0.0, 0.4, 0.3, 0.3],
    (B,): [0.0, 0.9, 0.05, 0.05],
}
DEFAULT = [0.0, 0.5, 0.25, 0.25]


def _probs(prefix):
    return np.array(TABLE.get(tuple(prefix), DEFAULT))


def toy_step(state, last_tokens):
    """state: {"prefix": (batch, max_len) ids, "length": (batch,)} -- all rows carry the batch axis."""
    prefix, length = state["prefix"].copy(), state["length"].copy()
    started = last_tokens != START
    rows = np.flatnonzero(started)
    prefix[rows, length[rows]] = last_tokens[rows]
    length[rows] += 1
    with np.errstate(divide="ignore"):
        log_probs = np.log(np.stack([_probs(prefix[r, : length[r]]) for r in range(len(length))]))
    return log_probs, {"prefix": prefix, "length": length}


def _init(batch, max_len=8):
    return {"prefix": np.zeros((batch, max_len), np.int64), "length": np.zeros((batch,), np.int64)}


def brute_force_best(max_len, alpha):
    """Enumerate every sequence y (ending in END, or cut at max_len) and its normalised score."""
    best, best_score = None, -np.inf
    for n in range(1, max_len + 1):
        for body in itertools.product([A, B], repeat=n - 1):
            for last in ([END] if n < max_len else [END, A, B]):
                seq = list(body) + [last]
                with np.errstate(divide="ignore"):
                    logp = sum(np.log(_probs(seq[:i])[seq[i]]) for i in range(len(seq)))
                score = logp / length_penalty(len(seq), alpha)
                if score > best_score:
                    best, best_score = [t for t in seq if t != END], score
    return best, best_score


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_greedy_takes_the_locally_best_path():
    out = greedy_search(toy_step, _init(1), 1, START, END, max_length=5)
    assert out == [[A]]  # 0.6 then END 0.4: p = 0.24


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.0])
def test_beam_finds_the_brute_force_best(alpha):
    expected, expected_score = brute_force_best(max_len=4, alpha=alpha)
    out, scores = beam_search(toy_step, _init(2), 2, START, END, max_length=4, beam_width=4, alpha=alpha,
                              return_scores=True)
    assert out == [expected, expected]
    np.testing.assert_allclose(scores, expected_score, rtol=1e-9)
    if alpha == 0.0:
        assert expected == [B]  # p(B END) = 0.36 > p(A END) = 0.24: greedy misses it


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_beam_width_one_equals_greedy_on_random_model():
    rng = np.random.default_rng(0)
    batch, vocab, max_len = 8, 7, 6
    table = rng.dirichlet(np.ones(vocab) * 0.5, size=(batch, vocab))  # p(next | row, last token)

    def step(state, last):
        return np.log(table[state["row"], last]), {"row": state["row"]}

    init = {"row": np.arange(batch)}
    greedy = greedy_search(step, init, batch, 0, 1, max_len)
    beam = beam_search(step, init, batch, 0, 1, max_len, beam_width=1, alpha=0.6)
    assert beam == greedy
    assert any(len(g) < max_len for g in greedy)  # some rows stop at the end token
    assert any(len(g) == max_len for g in greedy)  # and some run to the length cap


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_bad_arguments():
    with pytest.raises(ValueError, match="beam_width"):
        beam_search(toy_step, _init(1), 1, START, END, 4, beam_width=0)
    with pytest.raises(ValueError, match="alpha"):
        beam_search(toy_step, _init(1), 1, START, END, 4, alpha=-1)
    with pytest.raises(ValueError, match="max_length"):
        greedy_search(toy_step, _init(1), 1, START, END, 0)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_length_penalty_rejects_negative_alpha():
    np.testing.assert_allclose(length_penalty([1, 7], 1.0), [1.0, 2.0])
    with pytest.raises(ValueError, match="alpha"):
        length_penalty(3, -0.5)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_step_function_mistakes_get_clear_errors():
    def nan_step(state, last):
        return np.full((len(last), 4), np.nan), state

    def short_step(state, last):
        return np.zeros((1, 4)), state

    state = {"h": np.zeros((2, 1))}
    with pytest.raises(ValueError, match="NaN"):
        greedy_search(nan_step, state, 2, start_id=0, end_id=1, max_length=3)
    with pytest.raises(ValueError, match="NaN"):
        beam_search(nan_step, state, 2, start_id=0, end_id=1, max_length=3, beam_width=2)
    with pytest.raises(ValueError, match=r"shape \(2, vocabulary_size\)"):
        greedy_search(short_step, state, 2, start_id=0, end_id=1, max_length=3)
    with pytest.raises(ValueError, match="end_id 9"):
        beam_search(lambda s, t: (np.log(np.full((len(t), 4), 0.25)), s), state, 2, start_id=0, end_id=9,
                    max_length=3, beam_width=2)
    with pytest.raises(ValueError, match="alpha"):
        beam_search(nan_step, state, 2, start_id=0, end_id=1, max_length=3, alpha=float("nan"))


# --------------------------------------------- beam search against a plain reference implementation
def _random_model(seed, vocab):
    """p(next | prefix) drawn afresh for every prefix (a dict keeps them fixed); START never comes next."""
    rng, table = np.random.default_rng(seed), {}

    def probs(prefix):
        key = tuple(int(t) for t in prefix)
        if key not in table:
            p = rng.dirichlet(np.full(vocab - 1, 0.7))
            table[key] = np.concatenate([[0.0], p])
        return table[key]

    def step(state, last_tokens):
        prefix, length = state["prefix"].copy(), state["length"].copy()
        rows = np.flatnonzero(last_tokens != START)
        prefix[rows, length[rows]] = last_tokens[rows]
        length[rows] += 1
        with np.errstate(divide="ignore"):
            log_probs = np.log(np.stack([probs(prefix[r, : length[r]]) for r in range(len(length))]))
        return log_probs, {"prefix": prefix, "length": length}

    return probs, step


def _reference_beam(probs, vocab, k, max_len, alpha):
    """Beam search as the docstring states it, on lists: a finished hypothesis keeps its score and length."""
    def score(h):
        return h[1] / length_penalty(len(h[0]), alpha)
    beams, candidates = [((), 0.0, False)], []
    for _ in range(max_len):
        extended = []
        for seq, logp, done in beams:
            if done:
                extended.append((seq, logp, True))
                continue
            p = probs(seq)
            extended += [(seq + (t,), logp + np.log(p[t]), t == END) for t in range(vocab) if p[t] > 0]
        beams = sorted(extended, key=score, reverse=True)[:k]
        candidates += [h for h in beams if h[2] and h not in candidates]
        if all(h[2] for h in beams):
            break
    candidates += [h for h in beams if not h[2]]
    best = max(candidates, key=score)
    return [t for t in best[0] if t != END], score(best)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
@pytest.mark.parametrize("alpha", [0.6, 1.0])
def test_beam_search_equals_a_reference_implementation_with_a_narrow_beam(alpha):
    # beam width 2 over 5 tokens: which hypotheses survive matters, so a finished hypothesis whose
    # length (and so its normalised score) kept growing would crowd out others and change results
    _check_beam_against_the_reference(vocab=5, k=2, max_len=5, alpha=alpha, seeds=40)


def _check_beam_against_the_reference(vocab, k, max_len, alpha, seeds, as_tensors=False):
    """Beam search on ``_random_model`` equals ``_reference_beam`` (state as NumPy arrays or backend tensors)."""
    for seed in range(seeds):
        probs, numpy_step = _random_model(seed, vocab)
        expected, expected_score = _reference_beam(probs, vocab, k, max_len, alpha)
        step, init = numpy_step, _init(1)
        if as_tensors:
            def step(state, last_tokens, numpy_step=numpy_step):
                assert all(_is_backend_tensor(v) for v in state.values())
                log_probs, new = numpy_step({key: keras.ops.convert_to_numpy(v) for key, v in state.items()},
                                            np.asarray(last_tokens))
                return log_probs, {key: keras.ops.convert_to_tensor(v) for key, v in new.items()}

            init = {key: keras.ops.convert_to_tensor(v) for key, v in init.items()}
        (out,), score = beam_search(step, init, 1, START, END, max_len, beam_width=k, alpha=alpha,
                                    return_scores=True)
        assert out == expected, seed
        np.testing.assert_allclose(score, expected_score, rtol=1e-9)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_sampling_draws_from_the_tempered_distribution_and_stops_at_the_end_token():
    from word2bert.samplers import sample_search
    p = np.array([0.0, 0.1, 0.6, 0.3])            # 0 = start, 1 = end

    def step(state, last):
        return np.log(np.tile(p, (len(last), 1)) + 1e-300), state

    draws = sample_search(step, {}, 4000, 0, None, 1, temperature=1.0, seed=0)
    freq = np.bincount([d[0] for d in draws], minlength=4) / 4000
    np.testing.assert_allclose(freq, p, atol=0.025)
    sharp = p ** 2 / (p ** 2).sum()                  # temperature 0.5 squares the probabilities
    draws = sample_search(step, {}, 4000, 0, None, 1, temperature=0.5, seed=0)
    np.testing.assert_allclose(np.bincount([d[0] for d in draws], minlength=4) / 4000, sharp, atol=0.025)
    runs = sample_search(step, {}, 50, 0, 1, 30, seed=3)
    assert runs == sample_search(step, {}, 50, 0, 1, 30, seed=3)        # same seed, same samples
    assert all(1 not in r for r in runs) and any(len(r) < 30 for r in runs)
    with pytest.raises(ValueError, match="temperature"):
        sample_search(step, {}, 1, 0, 1, 3, temperature=-0.5)
    top2 = np.array([0.0, 0.0, 0.6, 0.3]) / 0.9      # top_k=2 keeps tokens 2 and 3, renormalised
    draws = sample_search(step, {}, 4000, 0, None, 1, top_k=2, seed=0)
    np.testing.assert_allclose(np.bincount([d[0] for d in draws], minlength=4) / 4000, top2, atol=0.025)
    for bad in (0, 2.5, -1):
        with pytest.raises(ValueError, match="top_k"):
            sample_search(step, {}, 1, 0, 1, 3, top_k=bad)
    with pytest.raises(ValueError, match="larger than the vocabulary"):
        sample_search(step, {}, 1, 0, 1, 3, top_k=5)


def _markov_step(vocabulary_size=40, seed=0):
    """A random first-order chain: log P(next | last) from a fixed table; it records each step's log-probs."""
    table = np.log(np.random.default_rng(seed).dirichlet(np.full(vocabulary_size, 0.3), size=vocabulary_size) + 1e-12)
    seen = []

    def step(state, last):
        log_probs = table[np.asarray(last)]
        seen.append(log_probs)
        return log_probs, state
    return step, seen


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_top_k_sampling_never_leaves_the_k_most_probable_tokens():
    from word2bert.samplers import sample_search
    step, seen = _markov_step()
    k = 3
    out = sample_search(step, {}, 64, 0, None, 25, temperature=1.5, top_k=k, seed=1)
    drawn = np.array(out)                                                  # (64, 25): no end token, every draw
    assert drawn.shape == (64, 25)
    for t, log_probs in enumerate(seen):
        allowed = np.argsort(-log_probs, axis=1, kind="stable")[:, :k]    # the k most probable of each row
        assert all(drawn[row, t] in allowed[row] for row in range(64)), t
    # without the cut the same temperature leaves the top 3 often: the check above can fail
    step, seen = _markov_step()
    free = np.array(sample_search(step, {}, 64, 0, None, 25, temperature=1.5, seed=1))
    outside = [free[row, t] not in np.argsort(-lp[row])[:k] for t, lp in enumerate(seen) for row in range(64)]
    assert np.mean(outside) > 0.2


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_temperature_zero_and_top_1_are_greedy_search():
    from word2bert.samplers import greedy_search, sample_search
    step, _ = _markov_step(seed=4)
    greedy = greedy_search(step, {}, 8, 0, 1, 30)
    assert sample_search(step, {}, 8, 0, 1, 30, temperature=0.0, seed=9) == greedy
    assert sample_search(step, {}, 8, 0, 1, 30, top_k=1, seed=5) == greedy
    assert sample_search(step, {}, 8, 0, 1, 30, temperature=1.0, seed=5) != greedy     # sampling differs


# --------------------------------------------- a state of backend tensors (the Transformer's key/value caches)
def _is_backend_tensor(x):
    return not isinstance(x, np.ndarray) and keras.ops.is_tensor(x)


def test_beam_reorder_of_backend_tensors_equals_the_numpy_reorder_by_hand():
    from word2bert.samplers import _take

    rows = np.array([2, 0, 0, 1])                      # beam search's parent rows: row 2, row 0 twice, row 1
    k = np.arange(12, dtype="float32").reshape(3, 2, 2, 1)         # a cache (batch, slots, heads, key_dim)
    h = np.array([[0.5], [1.5], [2.5]], "float32")
    expected_k = np.stack([k[2], k[0], k[0], k[1]])
    expected_h = np.array([[2.5], [0.5], [0.5], [1.5]], "float32")
    state = {"cache": (keras.ops.convert_to_tensor(k), [keras.ops.convert_to_tensor(h)]), "index": np.arange(3)}
    out = _take(state, rows)
    assert isinstance(out["cache"], tuple) and isinstance(out["cache"][1], list)
    assert _is_backend_tensor(out["cache"][0]) and _is_backend_tensor(out["cache"][1][0])
    assert isinstance(out["index"], np.ndarray)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(out["cache"][0]), expected_k)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(out["cache"][1][0]), expected_h)
    np.testing.assert_array_equal(out["index"], [2, 0, 0, 1])
    numpy_out = _take({"cache": (k, [h])}, rows)            # the NumPy path gives the same rows
    np.testing.assert_array_equal(numpy_out["cache"][0], expected_k)
    np.testing.assert_array_equal(numpy_out["cache"][1][0], expected_h)


@pytest.mark.parametrize("alpha", [0.6, 1.0])
def test_beam_search_over_a_state_of_backend_tensors_equals_the_reference(alpha):
    # the random model of the reference test, its state held as backend tensors: beam search must
    # reorder them exactly as it reorders NumPy arrays, or later steps read the wrong prefixes
    _check_beam_against_the_reference(vocab=6, k=3, max_len=6, alpha=alpha, seeds=20, as_tensors=True)


def _spy_on_caches(step, seen):
    """``step`` that records, at every call, whether each key/value cache of the state it is given (after the
    search's reorder) and of the state it returns is a backend tensor."""
    def spied(state, last_tokens):
        log_probs, new = step(state, last_tokens)
        seen.append([_is_backend_tensor(v) for s in (state, new) for key, v in s.items() if key.startswith("self_")])
        return log_probs, new

    return spied


@pytest.mark.slow
@pytest.mark.jax_too
@pytest.mark.parametrize("beam_width", [1, 3])
def test_transformer_caches_stay_backend_tensors_through_a_search(beam_width):
    from word2bert.models.transformer import DecoderOnlyTransformer, Transformer

    keras.utils.set_random_seed(1)
    sizes = dict(num_layers=2, hidden_dim=8, num_heads=2, intermediate_dim=16, max_sequence_length=10)
    model, lm = Transformer(13, 11, **sizes), DecoderOnlyTransformer(11, **sizes)
    source = np.array([[3, 4, 5, 6, 0], [12, 11, 10, 9, 8]], np.int32)
    memory, mask = model.encode_source(source)
    for m, context, rows in ((model, model.source_context(memory, mask, repeat=beam_width), 2), (lm, None, 1)):
        step, _ = m.step_functions(context)
        state = m.decoding_state(rows, 6, use_cache=True)
        caches = [v for key, v in state.items() if key.startswith("self_")]
        assert len(caches) == 4 and all(_is_backend_tensor(c) for c in caches)
        seen = []
        spied = _spy_on_caches(step, seen)
        if beam_width == 1:
            greedy_search(spied, state, rows, start_id=1, end_id=0, max_length=6)
        else:
            beam_search(spied, state, rows, start_id=1, end_id=0, max_length=6, beam_width=beam_width)
        assert len(seen) >= 3 and all(len(s) == 8 and all(s) for s in seen), seen


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_top_k_of_the_whole_vocabulary_is_no_cut_and_ties_at_the_kth_place_go_to_the_lower_id():
    from word2bert.samplers import sample_search
    p = np.array([1, 2, 3, 2, 1, 3, 3, 3, 1]) / 19     # 2, 5, 6 and 7 tie for first place; 1 and 3 for 5th

    def step(state, last):
        return np.log(np.tile(p, (len(last), 1))), state

    # top_k = the vocabulary size is allowed and cuts nothing: the same draws as no top_k, seed for seed
    assert sample_search(step, {}, 300, 0, None, 4, top_k=9, seed=2) == sample_search(step, {}, 300, 0, None, 4, seed=2)
    # top_k=2: the two lowest ids of the four tied (2 and 5; np.argpartition alone kept 2 and 7), half each
    draws = np.array(sample_search(step, {}, 3000, 0, None, 1, top_k=2, seed=0))[:, 0]
    np.testing.assert_allclose(np.bincount(draws, minlength=9) / 3000, [0, 0, .5, 0, 0, .5, 0, 0, 0], atol=0.03)
    # top_k=5: the four 3s and the lower of the tied 2s (token 1), renormalised over 14
    draws = np.array(sample_search(step, {}, 3000, 0, None, 1, top_k=5, seed=0))[:, 0]
    np.testing.assert_allclose(np.bincount(draws, minlength=9) / 3000, np.array([0, 2, 3, 0, 0, 3, 3, 3, 0]) / 14,
                               atol=0.03)
