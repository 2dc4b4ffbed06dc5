"""debug-next-token-lm's own code: the judge's data (sequences of a sparse Markov chain, padded), the initial
weights, the model in float64, and what each failed check means here."""

import math

import torch
import torch.nn.functional as F

PAD = 0
# Every real token has three successors, taken with these probabilities: the chain's entropy, the least
# next-token loss any model can reach, is 0.898 nats whatever successors the judge draws.
SUCCESSORS = (0.6, 0.3, 0.1)
ENTROPY = -sum(p * math.log(p) for p in SUCCESSORS)
WIDTH, SHORTEST, LONGEST = 32, 2, 16
# Held-out sequences the trained weights are scored on, on this side only (about 8000 targets: the loss's
# standard error is under 0.01 nats); sequences the submission's evaluate is called on.
HELD_OUT, EVALUATED = 1024, 64

LESSONS = {
    "unmoved": "Every parameter must be updated: the optimizer must hold all of model.parameters(), each in exactly "
               "one parameter group, and none may be frozen",
    "diverged": "Training diverged: the learning rate is too high for plain SGD on this model",
    "held_out_loss": lambda params, scores: (
        f"Its training loss, {scores['train_loss']:.3f}, is below the chain's entropy, {ENTROPY:.3f}, which no model "
        "beats on new sequences: it memorises its training sequences, and a smaller learning rate or fewer steps "
        "for this optimizer generalise" if scores.get("train_loss", ENTROPY) < ENTROPY - 0.05 else
        "Well above the uniform guess, the model is confidently wrong: it was scored against a token it can see "
        "(targets not shifted by one, or shifted the wrong way), or the learning rate overshoots. Near the uniform "
        "guess, it barely learned: the loss is given probabilities instead of logits, or the learning rate is too "
        "small. Between the target and about 1.5 nats, padding is counted as targets and the model learns to "
        "predict PAD"),
    "train_loss": "A model this size memorises four short sequences: when it cannot, it is not trained on the "
                  "next token (targets not shifted by one), or the loss is given probabilities instead of logits",
    "evaluation": "evaluate must return the model's logits, one row per position, as forward computes them",
}


def inputs(params, generator):
    config = params["config"]
    vocab, context, d_embed, d_hidden = config["vocab"], config["context"], config["d_embed"], config["d_hidden"]
    successors = torch.stack([torch.randperm(vocab - 1, generator=generator)[:3] + 1 for _ in range(vocab - 1)])
    chain = torch.zeros(vocab, vocab, dtype=torch.float64)
    chain[torch.arange(1, vocab)[:, None], successors] = torch.tensor(SUCCESSORS, dtype=torch.float64)

    def drawn(n):
        tokens = torch.zeros(n, WIDTH, dtype=torch.long)
        tokens[:, 0] = torch.randint(1, vocab, (n,), generator=generator)
        for t in range(1, WIDTH):
            tokens[:, t] = torch.multinomial(chain[tokens[:, t - 1]], 1, generator=generator)[:, 0]
        lengths = torch.randint(SHORTEST, LONGEST + 1, (n, 1), generator=generator)
        return tokens.masked_fill(torch.arange(WIDTH) >= lengths, PAD)

    tensors = {"tokens": drawn(params["sequences"]), "tokens_eval": drawn(EVALUATED),
               "held_out.tokens": drawn(HELD_OUT),
               "model.embed.weight": torch.randn(vocab, d_embed, generator=generator)}  # nn.Embedding's: N(0, 1)
    for name, fan_in, fan_out in (("hidden", context * d_embed, d_hidden), ("out", d_hidden, vocab)):
        bound = fan_in ** -0.5  # nn.Linear's own initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        tensors[f"model.{name}.weight"] = (torch.rand(fan_out, fan_in, generator=generator) * 2 - 1) * bound
        tensors[f"model.{name}.bias"] = (torch.rand(fan_out, generator=generator) * 2 - 1) * bound
    return tensors


def predict(params, weights, inputs):
    """Logits (n, T, vocab): position t's prediction of token t + 1 from the `context` tokens ending at t."""
    context = params["config"]["context"]
    windows = F.pad(inputs[0], (context - 1, 0), value=PAD).unfold(-1, context, 1)
    h = torch.tanh(F.linear(F.embedding(windows, weights["embed.weight"]).flatten(-2), weights["hidden.weight"],
                            weights["hidden.bias"]))
    return F.linear(h, weights["out.weight"], weights["out.bias"])


def next_token_loss(logits, tokens):
    """Mean cross-entropy, in nats, of each real token given the tokens before it."""
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten(), ignore_index=PAD).item()


def scores(params, inputs, predict):
    return {"held_out_loss": next_token_loss(predict(inputs["held_out.tokens"]), inputs["held_out.tokens"]),
            "train_loss": next_token_loss(predict(inputs["tokens"]), inputs["tokens"])}


def describe(params, inputs):
    vocab = params["config"]["vocab"]
    return (f"trained on {params['sequences']} sequences for {params['steps']} steps (a uniform guess over {vocab} "
            f"ids scores ln {vocab} = {math.log(vocab):.3f} nats, and the chain's entropy, 0.898, is the floor)")
