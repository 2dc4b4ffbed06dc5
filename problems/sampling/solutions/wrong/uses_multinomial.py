# expect: forbidden
# message: aten::multinomial
# fails-on: temperature
# torch.multinomial draws from the filtered distribution in one call: the sampler itself is the exercise.
import torch


def sample(logits, temperature=1.0, top_k=0, top_p=1.0, *, generator):
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_k > 0:
        kth = probs.topk(min(top_k, probs.shape[-1]), dim=-1).values[:, -1:]
        probs = torch.where(probs >= kth, probs, 0.0)
    if top_p < 1.0:
        ordered = probs.sort(dim=-1, descending=True).values
        before = (ordered.cumsum(dim=-1) - ordered) / ordered.sum(dim=-1, keepdim=True)
        smallest = torch.where(before < top_p, ordered, torch.inf).amin(dim=-1, keepdim=True)
        probs = torch.where(probs >= smallest, probs, 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
