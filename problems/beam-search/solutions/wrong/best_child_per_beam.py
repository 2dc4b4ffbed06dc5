# expect: wrong_answer
# message: each beam keep its own best continuation
# fails-on: small-beam
# Takes the top-k of each beam separately and lets every beam keep its best continuation: after the first
# step the search is beam_width greedy searches side by side, never comparing one beam's candidates with
# another's.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    beams = [([bos], 0.0)]
    finished = []
    for t in range(1, max_len + 1):
        log_probs = step(torch.tensor([tokens for tokens, _ in beams])).tolist()
        survivors = []
        for (tokens, total), row in zip(beams, log_probs):
            ranked = sorted(range(len(row)), key=lambda v: -row[v])
            keep = beam_width if len(beams) == 1 else 1
            for v in ranked:
                grown = tokens + [v]
                if v == eos or t == max_len:
                    finished.append((grown[1:], (total + row[v]) / t ** length_penalty))
                if v != eos:
                    if t < max_len:
                        survivors.append((grown, total + row[v]))
                    keep -= 1
                    if keep == 0:
                        break
        beams = survivors
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
