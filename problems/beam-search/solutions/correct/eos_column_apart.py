# expect: accepted
# The EOS column is taken apart: the live beams are the beam_width best non-EOS candidates (a stable sort with
# EOS masked out), and an EOS candidate finishes when it ranks before the last of them, totals first, then
# beam index, then token id (or always, when fewer than beam_width live candidates exist). Finished
# hypotheses keep their finishing order in a counter for the final sort.
import torch


def beam_search(step, bos, eos, beam_width, max_len, length_penalty=1.0):
    history = torch.full((1, 1), bos, dtype=torch.long)
    totals = torch.zeros(1, dtype=torch.float64)
    finished = []  # (score, order, tokens)
    for t in range(1, max_len + 1):
        scores = totals[:, None] + step(history)
        beams, vocab = scores.shape
        masked = scores.clone()
        masked[:, eos] = -float("inf")
        flat = masked.flatten()
        keep = flat.argsort(descending=True, stable=True)[:min(beam_width, beams * (vocab - 1))]
        last_total, last_index = flat[keep[-1]].item(), keep[-1].item()
        ended = []
        for b in range(beams):
            total = scores[b, eos].item()
            index = b * vocab + eos
            if len(keep) < beam_width or total > last_total or (total == last_total and index < last_index):
                ended.append((total, index, b))
        walk = sorted([(flat[k].item(), k.item(), "live") for k in keep] + [(s, i, "eos") for s, i, _ in ended],
                      key=lambda c: (-c[0], c[1]))
        for total, index, kind in walk:
            if kind == "eos" or t == max_len:
                b, v = divmod(index, vocab)
                tokens = history[b, 1:].tolist() + [v]
                finished.append((total / t ** length_penalty, len(finished), tokens))
        parents, tokens = keep // vocab, keep % vocab
        history = torch.cat([history[parents], tokens[:, None]], dim=1)
        totals = flat[keep]
    finished.sort(key=lambda f: (-f[0], f[1]))
    return [(tokens, score) for score, _, tokens in finished[:beam_width]]
