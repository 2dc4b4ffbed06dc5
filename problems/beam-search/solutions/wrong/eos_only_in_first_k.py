# expect: wrong_answer
# message: however far the beam had to refill
# fails-on: eos-competes
# The Hugging Face rule: an EOS candidate finishes only when it is among the first beam_width candidates;
# the beam then refills with live candidates further down, and the EOS candidates met on the way there are
# skipped, though they rank above live beams that are kept.
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
        for rank, (total, i, v) in enumerate(candidates):
            tokens = beams[i][0] + [v]
            if v == eos:
                if rank < beam_width:
                    finished.append((tokens[1:], total / t ** length_penalty))
                continue
            if t == max_len:
                finished.append((tokens[1:], total / t ** length_penalty))
            else:
                survivors.append((tokens, total))
            live += 1
            if live == beam_width:
                break
        beams = survivors
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
