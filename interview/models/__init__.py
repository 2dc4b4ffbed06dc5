from interview.models.accounts import ApiToken, LoginFailure
from interview.models.drills import Drill, DrillAttempt, DrillCard
from interview.models.editor_settings import EditorSettings, Keymap
from interview.models.judgements import Judgement, JudgementTest, TestStatus, Verdict
from interview.models.mock_interviews import (
    InterviewState, Level, MockInterview, MockInterviewItem, MockInterviewSubmission,
)
from interview.models.practice import (
    ItemState, PracticeItem, PracticeSession, Rating, Review, ReviewCard, SessionState, StudyProfile,
)
from interview.models.problem_sets import ProblemSet, ProblemSetItem
from interview.models.problems import (
    DraftOrigin, HintReveal, Needs, Problem, ProblemDraft, ProblemFollowUp, SolutionReveal, WhyReveal,
)
from interview.models.questions import Difficulty, Origin, Question, Topic
from interview.models.submissions import Queue, Status, Submission, Suite
from interview.models.workers import WorkerHeartbeat, WorkerState

__all__ = [
    "ApiToken", "Difficulty", "DraftOrigin", "Drill", "DrillAttempt", "DrillCard", "EditorSettings", "HintReveal",
    "InterviewState", "ItemState", "Judgement", "JudgementTest", "Keymap", "Level", "LoginFailure", "MockInterview",
    "MockInterviewItem", "MockInterviewSubmission", "Needs", "Origin",
    "PracticeItem", "PracticeSession", "Problem", "ProblemDraft", "ProblemFollowUp", "ProblemSet", "ProblemSetItem",
    "Question", "Queue", "Rating", "Review", "ReviewCard", "SessionState", "SolutionReveal", "Status", "StudyProfile",
    "Submission", "Suite", "TestStatus", "Topic", "Verdict", "WhyReveal", "WorkerHeartbeat", "WorkerState",
]
