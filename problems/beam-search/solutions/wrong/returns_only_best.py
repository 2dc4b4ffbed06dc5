# expect: wrong_answer
# message: return the beam_width best finished hypotheses
# fails-on: small-beam
# A correct search that returns only its best hypothesis, as generate() does by default: the statement asks
# for the beam_width best, as num_return_sequences = num_beams would.
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
        grown = torch.cat([tokens[beam], token[:, None]], dim=1)
        total = totals[beam] + log_probs[beam, token]
        done = (token == eos) | (t == max_len)
        finished += [(row[1:].tolist(), s / t ** length_penalty) for row, s in zip(grown[done], total[done].tolist())]
        tokens, totals = grown[~done], total[~done]
    return [max(finished, key=lambda hypothesis: hypothesis[1])]
