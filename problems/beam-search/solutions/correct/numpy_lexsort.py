# expect: accepted
# NumPy: candidates ordered with np.lexsort on (token, beam, -total), the last key the primary one; the beam is
# an array of token rows gathered by parent every step.
import numpy as np
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    rows = np.full((1, 1), bos, dtype=np.int64)
    sums = np.zeros(1)
    done_tokens, done_scores = [], []
    for t in range(1, max_len + 1):
        logp = step(torch.from_numpy(rows.copy())).numpy()
        n, vocab = logp.shape
        total = (sums[:, None] + logp).ravel()
        beam, token = np.divmod(np.arange(n * vocab), vocab)
        order = np.lexsort((token, beam, -total))
        is_live = token[order] != eos
        before = np.cumsum(is_live) - is_live
        order, is_live = order[before < beam_width], is_live[before < beam_width]
        grown = np.concatenate([rows[beam[order]], token[order][:, None]], axis=1)
        ends = ~is_live | (t == max_len)
        for row, s in zip(grown[ends], total[order][ends]):
            done_tokens.append([int(x) for x in row[1:]])
            done_scores.append(float(s) / t ** length_penalty)
        rows, sums = grown[~ends], total[order][~ends]
    best = sorted(range(len(done_scores)), key=lambda i: (-done_scores[i], i))[:beam_width]
    return [(done_tokens[i], done_scores[i]) for i in best]
