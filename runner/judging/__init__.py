"""One judgement's orchestration, in parts that runner/judge.py puts together.

`plan` splits the tests into lanes, each a user process over some of them; `reference` is the reference side
(the cache's results and the reference's process); `lane` judges one lane's tests in its process; `merge` makes
the lanes' results one judgement, with one stop for all, as one process would have made it. `sandboxes` (how a
process is started and loaded) and `helper` (the trusted side's work drawn ahead) serve the lanes and the
reference side alike.
"""
