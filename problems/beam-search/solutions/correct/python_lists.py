# expect: accepted
# Plain Python: the beams are lists of tokens, the candidates (total, beam, token) tuples, and a stable sort on
# the total alone keeps them in beam-major order among equals.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    beams = [([bos], 0.0)]
    finished = []
    for t in range(1, max_len + 1):
        log_probs = step(torch.tensor([tokens for tokens, _ in beams])).tolist()
        candidates = [(total + p, i, v) for i, ((_, total), row) in enumerate(zip(beams, log_probs))
                      for v, p in enumerate(row)]
        candidates.sort(key=lambda c: -c[0])
        survivors, live = [], 0
        for total, i, v in candidates:
            tokens = beams[i][0] + [v]
            if v == eos or t == max_len:
                finished.append((tokens[1:], total / t ** length_penalty))
            else:
                survivors.append((tokens, total))
            if v != eos:
                live += 1
                if live == beam_width:
                    break
        beams = survivors
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
