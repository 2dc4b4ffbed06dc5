# expect: runtime_error
# message: not a judge frame
# Sends a frame whose tensor has shape [0, 2**64]: zero bytes, so the sizes agree, but torch cannot build
# it. The judge's frame reader raised TypeError and died, and the judge waited for an answer until its
# clock ran out (a time limit) instead of calling the frame broken.
import json
import os
import sys
import time

ENTRY = {"name": "y", "dtype": "float32", "shape": [0, 2**64], "nbytes": 0}


def softmax(x, dim=-1):
    header = json.dumps({"type": "result", "tensors": [ENTRY], "blobs": []}).encode()
    os.write(int(sys.argv[2]), b"RJW1" + len(header).to_bytes(4, "big") + header)
    time.sleep(3600)
