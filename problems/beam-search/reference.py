import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    """Beam search over step(tokens) -> log-probs: the beam refills to beam_width live beams every step, and
    every EOS candidate walked past on the way finishes."""
    tokens = torch.full((1, 1), bos, dtype=torch.int64)        # live beams: bos and the tokens generated so far
    totals = torch.zeros(1, dtype=torch.float64)                # their sums of log-probs
    finished = []                                               # (tokens, score), in the order they finish
    for t in range(1, max_len + 1):
        log_probs = step(tokens)                                # (beams, vocab), one call for every live beam
        vocab = log_probs.shape[1]
        # Beam-major flattening and a stable sort: equal totals go to the lower beam, then the lower token.
        order = (totals[:, None] + log_probs).reshape(-1).argsort(descending=True, stable=True)
        live = order % vocab != eos
        # Walk the candidates best first up to the beam_width-th live one; the EOS candidates before it finish.
        walked = order[(live.cumsum(0) - live.long()) < beam_width]
        beam, token = walked // vocab, walked % vocab
        grown = torch.cat([tokens[beam], token[:, None]], dim=1)
        total = totals[beam] + log_probs[beam, token]
        done = (token == eos) | (t == max_len)                  # at max_len the live beams finish as they are
        finished += [(row[1:].tolist(), s / t ** length_penalty) for row, s in zip(grown[done], total[done].tolist())]
        tokens, totals = grown[~done], total[~done]
    finished.sort(key=lambda hypothesis: -hypothesis[1])         # stable: equal scores in the order they finished
    return finished[:beam_width]
