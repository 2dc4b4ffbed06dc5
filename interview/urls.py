from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path
from pygments import __version__ as pygments_version

from interview.views import accounts, pages, questions

urlpatterns = [
    path("", pages.home_view, name="home"),
    path("questions/", questions.question_list_view, name="question_list"),
    path("questions/<slug:slug>/", questions.question_detail_view, name="question_detail"),
    path("accounts/signup/", accounts.signup_view, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(f"assets/pygments-{pygments_version}.css", pages.pygments_css_view, name="pygments_css"),
    path("admin/", admin.site.urls),
]
