# expect: forbidden
# message: aten::_softmax
# threads: allowed
# Calls the forbidden torch.softmax on a helper thread: a dispatch mode is thread-local, so a watch pushed
# on the calling thread alone never sees it.
import threading

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    result = {}
    worker = threading.Thread(target=lambda: result.update(y=torch.softmax(x, dim)))
    worker.start()
    worker.join()
    return result["y"]
