from django.apps import AppConfig


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates: LLM backends, debate engine, jobs"

    def ready(self) -> None:
        from corpora.views import pool_panel_register

        # The services send their tasks by name (core.broker.task_named), never importing
        # the task module (it imports them): registered here, in every process.
        from . import tasks  # noqa: F401
        from .services.pool_batches import pool_batch_notes
        from .services.progress import job_notes_register
        from .stage0 import stage0_step_register
        from .views import pool_jobs_panel

        # Training a stage-0 judge runs as a corpora Operation (polled like an import);
        # corpora cannot import debates, so debates gives it the step.
        stage0_step_register()
        # A job on a pool with a judging order says so after its progress.
        job_notes_register(pool_batch_notes)
        # A pool's page lists the debate jobs on it (corpora cannot import debates).
        pool_panel_register(pool_jobs_panel)
