from django.apps import AppConfig


class AssessConfig(AppConfig):
    name = "assess"
    verbose_name = "Assess: human judging, final labels, exports"

    def ready(self) -> None:
        # debates cannot import assess (dependencies point one way), so assess adds its
        # review panel (queue, agreement, audit estimate) to the debate job page.
        from debates.views import job_panel_register

        from .review.views import job_review_panel

        job_panel_register(job_review_panel)
