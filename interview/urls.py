from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path
from pygments import __version__ as pygments_version

from interview.views import (
    accounts, api, drills, editor_settings, errors, health, hints, mock_interview_api, mock_interviews, pages, practice,
    problem_sets, problems, questions, search, submissions,
)

urlpatterns = [
    path("", pages.home_view, name="home"),
    path("search/", search.search_view, name="search"),
    path("questions/", questions.question_list_view, name="question_list"),
    path("questions/<slug:slug>/", questions.question_detail_view, name="question_detail"),
    path("problems/", problems.problem_list_view, name="problem_list"),
    path("problems/<slug:slug>/", problems.problem_detail_view, name="problem_detail"),
    path("problems/<slug:slug>/submit", problems.problem_submit_view, name="problem_submit"),
    path("problems/<slug:slug>/solution", problems.problem_solution_view, name="problem_solution"),
    path("problems/<slug:slug>/hints", hints.problem_hint_reveal_view, name="problem_hint_reveal"),
    path("submissions/", submissions.submission_list_view, name="submission_list"),
    path("submissions/<int:pk>/", submissions.submission_detail_view, name="submission_detail"),
    path("submissions/<int:pk>/result", submissions.submission_result_view, name="submission_result"),
    path("api/me", api.me_api, name="me_api"),
    path("api/problems/<slug:slug>", api.problem_api, name="problem_api"),
    path("api/problems/<slug:slug>/submissions", api.problem_submissions_api, name="problem_submissions_api"),
    path("api/problems/<slug:slug>/draft", api.problem_draft_api, name="problem_draft_api"),
    path("api/problems/<slug:slug>/draft/carry", api.problem_draft_carry_api, name="problem_draft_carry_api"),
    path("api/problems/<slug:slug>/draft/pick", api.problem_draft_pick_api, name="problem_draft_pick_api"),
    path("api/submissions/<int:pk>", api.submission_api, name="submission_api"),
    path("api/editor-settings", editor_settings.editor_settings_api, name="editor_settings_api"),
    path("drills/", drills.drill_list_view, name="drill_list"),
    path("drills/<slug:slug>/", drills.drill_detail_view, name="drill_detail"),
    path("drills/<slug:slug>/new", drills.drill_new_attempt_view, name="drill_new_attempt"),
    path("drills/attempts/<int:pk>/", drills.drill_attempt_view, name="drill_attempt"),
    path("drills/attempts/<int:pk>/answer", drills.drill_attempt_answer_view, name="drill_attempt_answer"),
    path("practice/", practice.practice_view, name="practice"),
    path("practice/start", practice.practice_start_view, name="practice_start"),
    path("practice/sessions/<int:pk>/", practice.practice_session_view, name="practice_session"),
    path("practice/sessions/<int:pk>/finish", practice.practice_finish_view, name="practice_finish"),
    path("practice/items/<int:pk>/reveal", practice.practice_reveal_view, name="practice_reveal"),
    path("practice/items/<int:pk>/rate", practice.practice_rate_view, name="practice_rate"),
    path("practice/items/<int:pk>/skip", practice.practice_skip_view, name="practice_skip"),
    path("practice/items/<int:pk>/estimate", practice.practice_estimate_view, name="practice_estimate"),
    path("sets/", problem_sets.problem_set_list_view, name="problem_set_list"),
    path("sets/<slug:slug>/", problem_sets.problem_set_detail_view, name="problem_set_detail"),
    path("mock-interviews/", mock_interviews.mock_interview_list_view, name="mock_interview_list"),
    path("mock-interviews/start", mock_interviews.mock_interview_start_view, name="mock_interview_start"),
    path("mock-interviews/<int:pk>/", mock_interviews.mock_interview_detail_view, name="mock_interview_detail"),
    path("mock-interviews/<int:pk>/items/<int:position>/", mock_interviews.mock_interview_item_view,
         name="mock_interview_item"),
    path("mock-interviews/<int:pk>/items/<int:position>/answer", mock_interviews.mock_interview_answer_view,
         name="mock_interview_answer"),
    path("mock-interviews/<int:pk>/items/<int:position>/submit", mock_interviews.mock_interview_submit_view,
         name="mock_interview_submit"),
    path("mock-interviews/<int:pk>/items/<int:position>/estimate", mock_interviews.mock_interview_estimate_view,
         name="mock_interview_estimate"),
    path("mock-interviews/<int:pk>/items/<int:position>/key-points", mock_interviews.mock_interview_key_points_view,
         name="mock_interview_key_points"),
    path("mock-interviews/<int:pk>/finish", mock_interviews.mock_interview_finish_view, name="mock_interview_finish"),
    path("mock-interviews/<int:pk>/report/", mock_interviews.mock_interview_report_view, name="mock_interview_report"),
    path("api/mock-interviews/<int:pk>/items/<int:position>/draft", mock_interview_api.mock_interview_draft_api,
         name="mock_interview_draft_api"),
    path("api/mock-interviews/<int:pk>/items/<int:position>/submissions",
         mock_interview_api.mock_interview_submissions_api, name="mock_interview_submissions_api"),
    path("healthz", health.healthz_view, name="healthz"),
    path("accounts/signup/", accounts.signup_view, name="signup"),
    path("accounts/login/", accounts.ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/profile/", accounts.profile_view, name="profile"),
    path("accounts/email", accounts.account_email_view, name="account_email"),
    path("accounts/delete/", accounts.account_delete_view, name="account_delete"),
    path("accounts/password/change/", accounts.ThrottledPasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/change/done/", auth_views.PasswordChangeDoneView.as_view(
        template_name="registration/account_password_change_done.html"), name="password_change_done"),
    path("accounts/password/reset/", accounts.ThrottledPasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(
        template_name="registration/account_password_reset_sent.html"), name="password_reset_done"),
    path("accounts/password/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name="registration/account_password_reset_confirm.html"), name="password_reset_confirm"),
    path("accounts/password/reset/done/", auth_views.PasswordResetCompleteView.as_view(
        template_name="registration/account_password_reset_done.html"), name="password_reset_complete"),
    path("accounts/tokens/<int:pk>/revoke", accounts.api_token_revoke_view, name="api_token_revoke"),
    path(f"assets/pygments-{pygments_version}.css", pages.pygments_css_view, name="pygments_css"),
    path("admin/", admin.site.urls),
]

handler404 = errors.page_not_found_view
handler500 = errors.server_error_view
