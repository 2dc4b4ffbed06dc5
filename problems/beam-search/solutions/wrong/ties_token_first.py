# expect: wrong_answer
# message: breaking ties by token id before beam
# fails-on: ties
# Lays the candidates out token-major, (vocab, beams), before the stable sort: among equal totals the lower
# token id now comes first whatever beam it extends, where the statement puts the lower beam first.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    tokens = torch.full((1, 1), bos, dtype=torch.int64)
    totals = torch.zeros(1, dtype=torch.float64)
    finished = []
    for t in range(1, max_len + 1):
        log_probs = step(tokens)
        beams = log_probs.shape[0]
        order = (totals[:, None] + log_probs).t().reshape(-1).argsort(descending=True, stable=True)
        beam, token = order % beams, order // beams
        live = token != eos
        walk = (live.cumsum(0) - live.long()) < beam_width
        beam, token = beam[walk], token[walk]
        grown = torch.cat([tokens[beam], token[:, None]], dim=1)
        total = totals[beam] + log_probs[beam, token]
        done = (token == eos) | (t == max_len)
        finished += [(row[1:].tolist(), s / t ** length_penalty) for row, s in zip(grown[done], total[done].tolist())]
        tokens, totals = grown[~done], total[~done]
    finished.sort(key=lambda hypothesis: -hypothesis[1])
    return finished[:beam_width]
