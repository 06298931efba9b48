from django.apps import AppConfig


class CorporaConfig(AppConfig):
    name = "corpora"
    verbose_name = "Corpora: datasets, qrels, runs and pools"

    def ready(self) -> None:
        # The services send their tasks by name (core.broker.task_named), never importing
        # the task module (it imports them): registered here, in every process.
        from . import tasks  # noqa: F401
