# expect: runtime_error
# message: not a judge frame
# Sends a frame whose tensor's dtype is a list: unhashable, it raised TypeError in the judge's frame reader,
# which died, and the judge waited for an answer until its clock ran out.
import json
import os
import sys
import time

ENTRY = {"name": "y", "dtype": ["float32"], "shape": [1], "nbytes": 4}


def softmax(x, dim=-1):
    header = json.dumps({"type": "result", "tensors": [ENTRY], "blobs": []}).encode()
    os.write(int(sys.argv[2]), b"RJW1" + len(header).to_bytes(4, "big") + header)
    time.sleep(3600)
