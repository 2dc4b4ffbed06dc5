# expect: wrong_answer
# message: past their EOS
# fails-on: small-beam
# Treats EOS as one more token: a beam that chose it stays in the beam and keeps being extended, so the
# hypotheses returned are the beams at max_len, with tokens after their EOS.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    tokens = torch.full((1, 1), bos, dtype=torch.int64)
    totals = torch.zeros(1, dtype=torch.float64)
    for t in range(1, max_len + 1):
        log_probs = step(tokens)
        vocab = log_probs.shape[1]
        best = (totals[:, None] + log_probs).reshape(-1).argsort(descending=True, stable=True)[:beam_width]
        tokens = torch.cat([tokens[best // vocab], (best % vocab)[:, None]], dim=1)
        totals = totals[best // vocab] + log_probs[best // vocab, best % vocab]
    found = [(row[1:].tolist(), total / max_len ** length_penalty) for row, total in zip(tokens, totals.tolist())]
    return sorted(found, key=lambda h: -h[1])
