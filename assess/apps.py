from django.apps import AppConfig


class AssessConfig(AppConfig):
    name = "assess"
    verbose_name = "Assess: human judging, final labels, exports"
