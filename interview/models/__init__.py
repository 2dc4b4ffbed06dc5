from interview.models.accounts import ApiToken, LoginFailure
from interview.models.problems import Needs, Problem, ProblemDraft, SolutionReveal
from interview.models.questions import Difficulty, Origin, Question, Topic
from interview.models.submissions import Queue, Status, Submission, SubmissionTest, Suite
from interview.models.workers import WorkerHeartbeat, WorkerState

__all__ = [
    "ApiToken", "Difficulty", "LoginFailure", "Needs", "Origin", "Problem", "ProblemDraft", "Question", "Queue",
    "SolutionReveal", "Status", "Submission", "SubmissionTest", "Suite", "Topic", "WorkerHeartbeat", "WorkerState",
]
