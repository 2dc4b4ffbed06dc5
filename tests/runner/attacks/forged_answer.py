# expect: runtime_error
# message: malformed answer
# Writes its own well-formed frame onto the judge's pipe, claiming a status the harness can never report,
# then stops: a forged "passed" must not pass.
import json
import os
import sys
import time


def softmax(x, dim=-1):
    header = json.dumps({"type": "result", "error": {"status": "passed", "message": ""}, "peak_bytes": 0,
                         "tensors": [], "blobs": []}).encode()
    os.write(int(sys.argv[2]), b"RJW1" + len(header).to_bytes(4, "big") + header)
    time.sleep(3600)
