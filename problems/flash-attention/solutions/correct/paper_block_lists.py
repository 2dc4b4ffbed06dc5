# expect: accepted
# Algorithm 1 of the FlashAttention paper as PyTorch walkthroughs write it: q, k and v split into lists of
# blocks, the outer loop over key/value blocks and the inner one over query blocks, and each query block's
# output kept normalised after every step (rescaled by l_old·exp(m_old - m_new) / l_new) rather than divided
# once at the end. Masked scores take the dtype's lowest value and their probabilities are zeroed.
import math

import torch


def flash_attention(q, k, v, causal=False, block_q=64, block_k=64):
    scale = 1 / math.sqrt(q.shape[-1])
    q_blocks = torch.split(q, block_q, dim=-2)
    k_blocks = torch.split(k, block_k, dim=-2)
    v_blocks = torch.split(v, block_k, dim=-2)
    o_blocks = [torch.zeros_like(qi) for qi in q_blocks]
    l_blocks = [qi.new_zeros(qi.shape[:-1] + (1,)) for qi in q_blocks]
    m_blocks = [qi.new_full(qi.shape[:-1] + (1,), -math.inf) for qi in q_blocks]
    for j, (kj, vj) in enumerate(zip(k_blocks, v_blocks)):
        k_first = j * block_k
        for i, qi in enumerate(q_blocks):
            q_first, q_last = i * block_q, i * block_q + qi.shape[-2] - 1
            if causal and k_first > q_last:
                continue  # every key of this block comes after every query of this one
            s = (qi @ kj.transpose(-2, -1)) * scale
            if causal:
                later = (torch.arange(k_first, k_first + kj.shape[-2], device=q.device)
                         > torch.arange(q_first, q_last + 1, device=q.device)[:, None])
                s = s.masked_fill(later, torch.finfo(s.dtype).min)
            m_tile = s.amax(dim=-1, keepdim=True)
            p = torch.exp(s - m_tile)
            if causal:
                p = p.masked_fill(later, 0.0)
            l_tile = p.sum(dim=-1, keepdim=True)
            m_new = torch.maximum(m_blocks[i], m_tile)
            kept = l_blocks[i] * torch.exp(m_blocks[i] - m_new)
            added = torch.exp(m_tile - m_new)
            l_new = kept + added * l_tile
            o_blocks[i] = (kept * o_blocks[i] + added * (p @ vj)) / l_new
            l_blocks[i], m_blocks[i] = l_new, m_new
    return torch.cat(o_blocks, dim=-2)
