"""Code that runs inside the sandbox, next to the submission.

Nothing here is secret and nothing here is trusted by the judge: the submission shares the process and can
change any of it. The package imports only the standard library, torch and its own modules (relatively), so
the sandbox mounts this folder alone and runs it as a top-level package.
"""
