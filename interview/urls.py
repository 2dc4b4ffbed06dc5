from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path
from pygments import __version__ as pygments_version

from interview.views import accounts, api, health, pages, problems, questions, submissions

urlpatterns = [
    path("", pages.home_view, name="home"),
    path("questions/", questions.question_list_view, name="question_list"),
    path("questions/<slug:slug>/", questions.question_detail_view, name="question_detail"),
    path("problems/", problems.problem_list_view, name="problem_list"),
    path("problems/<slug:slug>/", problems.problem_detail_view, name="problem_detail"),
    path("problems/<slug:slug>/submit", problems.problem_submit_view, name="problem_submit"),
    path("problems/<slug:slug>/solution", problems.problem_solution_view, name="problem_solution"),
    path("submissions/", submissions.submission_list_view, name="submission_list"),
    path("submissions/<int:pk>/", submissions.submission_detail_view, name="submission_detail"),
    path("submissions/<int:pk>/result", submissions.submission_result_view, name="submission_result"),
    path("api/problems/<slug:slug>/submissions", api.problem_submissions_api, name="problem_submissions_api"),
    path("api/problems/<slug:slug>/draft", api.problem_draft_api, name="problem_draft_api"),
    path("api/submissions/<int:pk>", api.submission_api, name="submission_api"),
    path("healthz", health.healthz_view, name="healthz"),
    path("accounts/signup/", accounts.signup_view, name="signup"),
    path("accounts/login/", accounts.ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/profile/", accounts.profile_view, name="profile"),
    path("accounts/tokens/<int:pk>/revoke", accounts.api_token_revoke_view, name="api_token_revoke"),
    path(f"assets/pygments-{pygments_version}.css", pages.pygments_css_view, name="pygments_css"),
    path("admin/", admin.site.urls),
]
