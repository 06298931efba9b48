from django.apps import AppConfig


class AssessConfig(AppConfig):
    name = "assess"
    verbose_name = "Assess: human judging, final labels, exports"

    def ready(self) -> None:
        # debates cannot import assess (dependencies point one way), so assess adds its
        # review panel (queue, agreement, audit estimate) to the debate job page.
        from debates.services.progress import job_notes_register
        from debates.views import job_panel_register

        from .review.selectors import job_review_notes
        from .review.views import job_review_panel

        job_panel_register(job_review_panel)
        # ... and its queue and audit lines to `debate_job ID progress` (issue 15).
        job_notes_register(job_review_notes)
