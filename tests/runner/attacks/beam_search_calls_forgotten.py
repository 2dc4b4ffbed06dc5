# expect: wrong_answer
# problem: beam-search
# tests: all
# message: call it once per step
# Calls the model once per live beam, then empties every list it finds in step's closure and defaults, and in
# those of every function they hold (the driver kept its record of step calls in such a list): the calls it made
# would go unseen. The kit keeps that record where nothing step refers to reaches it.
import torch


def _forget_calls(function, seen=None):
    seen = set() if seen is None else seen
    if id(function) in seen or not callable(function):
        return
    seen.add(id(function))
    held = [cell.cell_contents for cell in getattr(function, "__closure__", None) or ()]
    held += list(getattr(function, "__defaults__", None) or ())
    for value in held:
        if isinstance(value, list):
            value.clear()
        else:
            _forget_calls(value, seen)


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
    _forget_calls(step)
    finished.sort(key=lambda h: -h[1])
    return finished[:beam_width]
