# expect: memory_limit_exceeded
# mistake: the replay's pack hook hands each recomputed tensor back to autograd; an op that saves its own output then holds itself through its grad_fn, a cycle through C++ that the garbage collector never frees, so every step leaks the activations of every block
# message: peak
import torch
from torch import nn


class _Recomputation:
    """Replays one forward of the block the first time backward asks for one of its saved tensors."""

    def __init__(self, block: nn.Module, x: torch.Tensor):
        self.block = block
        self.x = x
        self.cuda_devices = [x.get_device()] if x.is_cuda else []
        self.cpu_rng = torch.get_rng_state()
        self.cuda_rng = [torch.cuda.get_rng_state(d) for d in self.cuda_devices]
        self.device_type = x.device.type
        self.autocast = torch.is_autocast_enabled(self.device_type), torch.get_autocast_dtype(self.device_type)
        self.slots = 0
        self.replayed: list[torch.Tensor] | None = None

    def pack(self, _tensor: torch.Tensor) -> int:
        self.slots += 1
        return self.slots - 1

    def unpack(self, slot: int) -> torch.Tensor:
        if self.replayed is None:
            self.replayed = []
            # Same requires_grad as in forward: autograd saves different tensors for an input that needs
            # grad than for one that does not, and the slot numbers must line up.
            x = self.x.detach().requires_grad_(self.x.requires_grad)
            enabled, dtype = self.autocast
            with torch.random.fork_rng(devices=self.cuda_devices):
                torch.set_rng_state(self.cpu_rng)
                for device, state in zip(self.cuda_devices, self.cuda_rng):
                    torch.cuda.set_rng_state(state, device)
                with (
                    torch.enable_grad(),
                    torch.autocast(self.device_type, enabled=enabled, dtype=dtype),
                    torch.autograd.graph.saved_tensors_hooks(self._keep, _discarded),
                ):
                    self.block(x)
        return self.replayed[slot]

    def _keep(self, tensor: torch.Tensor) -> torch.Tensor:
        self.replayed.append(tensor)
        return tensor


def _discarded(_packed: None) -> None:
    raise RuntimeError("the replayed forward is only run to collect saved tensors; it is never backpropagated")


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        replay = _Recomputation(self.block, x)
        # Every tensor autograd would keep for backward is replaced by a small int; the graph itself (and
        # so the gradient routing to x and to the parameters) is the ordinary one.
        with torch.autograd.graph.saved_tensors_hooks(replay.pack, replay.unpack):
            return self.block(x)
