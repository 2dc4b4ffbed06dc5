import torch


def beam_search(step, bos: int, eos: int, beam_width: int, max_len: int,
                length_penalty: float = 1.0) -> list[tuple[list[int], float]]:
    """Beam search over step(tokens) -> log_probs.

    step takes an int64 tensor (beams, t), each row bos followed by the tokens generated so far, and returns
    float64 log-probs (beams, vocab) of the next token. Returns the beam_width best finished hypotheses as
    (tokens without bos, score) pairs, best first, score = sum of log-probs / len(tokens) ** length_penalty.
    """
    raise NotImplementedError
