# expect: wrong_answer
# message: shrinking the beam
# fails-on: small-beam
# The textbook variant where a finished hypothesis takes its slot with it: the search keeps only
# beam_width - len(finished) live beams, so after a few EOS the beam is a fraction of its width.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    beams = [([bos], 0.0)]
    finished = []
    for t in range(1, max_len + 1):
        if not beams:
            break
        log_probs = step(torch.tensor([tokens for tokens, _ in beams])).tolist()
        candidates = [(total + p, i, v) for i, ((_, total), row) in enumerate(zip(beams, log_probs))
                      for v, p in enumerate(row)]
        candidates.sort(key=lambda c: -c[0])
        width = beam_width - len(finished)
        survivors = []
        for total, i, v in candidates[:width]:
            tokens = beams[i][0] + [v]
            if v == eos or t == max_len:
                finished.append((tokens[1:], total / t ** length_penalty))
            else:
                survivors.append((tokens, total))
        beams = survivors
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
