# expect: wrong_answer
# message: call it once per step
# fails-on: small-beam
# Right hypotheses, but the model is called once per live beam: beam_width forward passes of one row each
# per step, where one batched pass of all the beams costs about the same as one of them.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    beams = [([bos], 0.0)]
    finished = []
    for t in range(1, max_len + 1):
        log_probs = [step(torch.tensor([tokens]))[0].tolist() for tokens, _ in beams]
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
