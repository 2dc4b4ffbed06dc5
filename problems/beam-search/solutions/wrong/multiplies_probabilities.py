# expect: wrong_answer
# message: multiplying probabilities
# fails-on: ties
# Keeps each hypothesis's probability, the product of exp(log-prob), and takes the log only for the score.
# Products round where the sums of the scripted log-probs are exact, so tied totals come apart in an order of
# their own; and past about 745 nats the product underflows to 0 in float64: every candidate ties at 0 and
# the scores are -inf.
import math

import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    beams = [([bos], 1.0)]
    finished = []
    for t in range(1, max_len + 1):
        probs = step(torch.tensor([tokens for tokens, _ in beams])).exp().tolist()
        candidates = [(prob * p, i, v) for i, ((_, prob), row) in enumerate(zip(beams, probs))
                      for v, p in enumerate(row)]
        candidates.sort(key=lambda c: -c[0])
        survivors, live = [], 0
        for prob, i, v in candidates:
            tokens = beams[i][0] + [v]
            if v == eos or t == max_len:
                score = math.log(prob) if prob > 0 else -math.inf
                finished.append((tokens[1:], score / t ** length_penalty))
            else:
                survivors.append((tokens, prob))
            if v != eos:
                live += 1
                if live == beam_width:
                    break
        beams = survivors
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
