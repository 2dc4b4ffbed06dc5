# expect: forbidden
# message: aten::_log_softmax
# fails-on: small-batch
# The one-call shortcut: F.cross_entropy reaches the log-softmax and NLL kernels this problem forbids.
import torch.nn.functional as F


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    return F.cross_entropy(logits, target, ignore_index=ignore_index, label_smoothing=label_smoothing)
