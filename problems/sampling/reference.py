import torch


def sample(logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, *,
           generator: torch.Generator) -> torch.Tensor:
    if temperature == 0:
        return logits.argmax(dim=-1)                                  # greedy; argmax takes the first maximum
    probs, order = torch.softmax(logits.float() / temperature, dim=-1).sort(dim=-1, descending=True)
    if top_k > 0:
        # Keep every token at least as probable as the k-th, so a tie at the boundary is kept whole.
        kth = probs[:, min(top_k, probs.shape[-1]) - 1 : min(top_k, probs.shape[-1])]
        probs = torch.where(probs >= kth, probs, 0.0)
    if top_p < 1.0:
        # A token is in the nucleus when the tokens more probable than it hold less than top_p of the mass
        # (after top-k): the exclusive cumulative sum, taken at the first token of each run of ties.
        mass_before = (probs.cumsum(dim=-1) - probs) / probs.sum(dim=-1, keepdim=True)
        smallest_kept = torch.where(mass_before < top_p, probs, torch.inf).amin(dim=-1, keepdim=True)
        probs = torch.where(probs >= smallest_kept, probs, 0.0)
    # Inverse CDF: one uniform per row, located in the cumulative sum of the kept (unnormalised) mass.
    cdf = probs.cumsum(dim=-1)
    u = torch.rand(probs.shape[0], 1, generator=generator, device=probs.device) * cdf[:, -1:]
    # u can round up to the total in float32: cap at the last kept token, never one outside the filters.
    position = torch.minimum(torch.searchsorted(cdf, u, right=True), (probs > 0).sum(dim=-1, keepdim=True) - 1)
    return order.gather(-1, position).squeeze(-1)
