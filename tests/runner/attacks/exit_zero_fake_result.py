# expect: runtime_error
# message: exited with code 0
# Prints what a passing verdict looks like and exits cleanly before any test runs.
import json
import os

print(json.dumps({"verdict": "accepted", "tests": [{"name": "rows-last-dim", "status": "passed"}]}), flush=True)
os._exit(0)
