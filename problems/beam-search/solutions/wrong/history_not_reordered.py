# expect: wrong_answer
# message: instead of its parent's
# fails-on: small-beam
# Picks the right candidates but appends candidate j's token to row j of the old beam, not to the row of the
# beam it came from: the histories (and the prefixes the model sees) belong to other hypotheses.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    tokens = torch.full((1, 1), bos, dtype=torch.int64)
    totals = torch.zeros(1, dtype=torch.float64)
    finished = []
    for t in range(1, max_len + 1):
        log_probs = step(tokens)
        vocab = log_probs.shape[1]
        order = (totals[:, None] + log_probs).reshape(-1).argsort(descending=True, stable=True)
        live = order % vocab != eos
        walked = order[(live.cumsum(0) - live.long()) < beam_width]
        beam, token = walked // vocab, walked % vocab
        rows = torch.arange(len(walked)).clamp(max=len(tokens) - 1)     # should be tokens[beam]
        grown = torch.cat([tokens[rows], token[:, None]], dim=1)
        total = totals[beam] + log_probs[beam, token]
        done = (token == eos) | (t == max_len)
        finished += [(row[1:].tolist(), s / t ** length_penalty) for row, s in zip(grown[done], total[done].tolist())]
        tokens, totals = grown[~done], total[~done]
    finished.sort(key=lambda hypothesis: -hypothesis[1])
    return finished[:beam_width]
