"""Top-level URL configuration: Django admin, login/logout, home and each app's pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from corpora import views as corpora_views

urlpatterns = [
    # Before admin.site.urls: the admin's own login form must not bypass the rate limit.
    path("admin/login/", corpora_views.rate_limited_login(admin.site.login)),
    path("admin/", admin.site.urls),
    path("login/", corpora_views.login_view, name="login"),
    # Django's LogoutView accepts POST only (a GET answers 405), so a link cannot log anyone out.
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", corpora_views.home, name="home"),
    path("", include("corpora.urls")),
    path("", include("debates.urls")),
    path("", include("assess.urls")),
    path("", include("assess.urls_refined")),
]
