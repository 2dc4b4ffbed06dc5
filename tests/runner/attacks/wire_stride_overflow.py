# expect: runtime_error
# message: not a judge frame
# Sends a frame whose tensor has shape [0, 10**18, 10**18]: no elements and no bytes, but strides no 64-bit
# integer holds. Building it raised in the judge's frame reader, which died, and the judge waited for an
# answer until its clock ran out.
import json
import os
import sys
import time

ENTRY = {"name": "y", "dtype": "float32", "shape": [0, 10**18, 10**18], "nbytes": 0}


def softmax(x, dim=-1):
    header = json.dumps({"type": "result", "tensors": [ENTRY], "blobs": []}).encode()
    os.write(int(sys.argv[2]), b"RJW1" + len(header).to_bytes(4, "big") + header)
    time.sleep(3600)
