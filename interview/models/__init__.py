from interview.models.questions import Difficulty, Origin, Question, Topic

__all__ = ["Difficulty", "Origin", "Question", "Topic"]
