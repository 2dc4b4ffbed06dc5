# expect: runtime_error
# message: not a judge frame
# Writes a pickle onto the judge's pipe, as if it were an answer. Unpickled, it would create
# /tmp/runner-pickle-pwned on the judge's side; the judge must never unpickle anything.
import os
import pickle
import sys


class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/runner-pickle-pwned",))


def softmax(x, dim=-1):
    response_fd = int(sys.argv[2])
    data = pickle.dumps({"type": "result", "outputs": Payload()})
    os.write(response_fd, data)
    os.write(response_fd, b"RJW1" + len(data).to_bytes(4, "big") + data)
    os._exit(0)
