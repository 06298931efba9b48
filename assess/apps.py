from django.apps import AppConfig


class AssessConfig(AppConfig):
    name = "assess"
    verbose_name = "Assess: human judging, final labels, exports"

    def ready(self) -> None:
        # debates cannot import assess (dependencies point one way), so assess adds its
        # review panel (queue, agreement, audit estimate) to the debate job page.
        from corpora.simulated import simulated_label_counter_register
        from corpora.views import simulated_qrel_sets_register
        from debates.services.progress import job_notes_register
        from debates.services.reuse import human_answers_register
        from debates.stage0 import (
            stage0_band_labels_register,
            stage0_human_labels_register,
            stage0_simulated_human_register,
        )
        from debates.views import job_panel_register

        from . import tasks  # noqa: F401  (registers the tasks: services enqueue them by name)
        from .datasheet_intervals import refinement_intervals_sheet
        from .evaluation.budget import job_budget_panel
        from .models.simulated import qrel_set_simulated_labels, qrel_sets_simulated
        from .refined.benchmark_zip import benchmark_intervals_register
        from .refined.operations import refine_step_register
        from .refined.panels import job_costs_panel
        from .review import receivers
        from .review.answered import human_answered_pairs
        from .review.band_labels import dataset_band_labels
        from .review.calibration import job_calibration_panel
        from .review.human_labels import dataset_human_labels
        from .review.selectors import job_review_notes
        from .review.simulated_marks import dataset_simulated_human_pairs
        from .review.stage0_report import job_stage0_notes, job_stage0_panel
        from .review.views import job_review_panel

        # What stage 0 settled and its audited error (the guarantee's scope said), first: the
        # review panel below audits the same labels among the others.
        job_panel_register(job_stage0_panel)
        job_panel_register(job_review_panel)
        # The refined side adds its own panel (the cost of the final labels), so the review
        # package never imports the refined one (assess/review/__init__.py).
        job_panel_register(job_costs_panel)
        # The budget planner (more human labels for a tighter nDCG@10, undecided system
        # pairs) is evaluation's: it reads the intervals of the pool's newest refined set.
        job_panel_register(job_budget_panel)
        # How well the agents' label probabilities match the human labels (gold, audits).
        job_panel_register(job_calibration_panel)
        # The benchmark zip's datasheet shows the intervals, which the refined package may
        # not compute (it never imports evaluation): this app's own module does.
        benchmark_intervals_register(refinement_intervals_sheet)
        # assess also adds its review-queue and audit-estimate lines to `debate_job ID
        # progress`, which debates cannot compute without importing assess.
        job_notes_register(job_review_notes)
        job_notes_register(job_stage0_notes)
        # Review items are created where a debate ends and where a job's audit share or human
        # budget changes (debates.signals), never by a page that reads them.
        receivers.connect()
        # Refining a pool runs as an Operation (corpora's background steps, polled like an
        # import); corpora cannot import assess, so assess gives it the step.
        refine_step_register()
        # The dataset page lists every qrel set; only the refined side knows which hold
        # simulated labels, which the page must mark (corpora never imports assess).
        simulated_qrel_sets_register(qrel_sets_simulated)
        # ... and every download of such a set must say so (its file name, a header).
        simulated_label_counter_register(qrel_set_simulated_labels)
        # Stage 0 learns from people's labels too, which debates cannot read: assess gives them.
        stage0_human_labels_register(dataset_human_labels)
        # ... and sets its routing band on them, as a sample of pooled pairs: with the chance
        # each pair went to people (escalated or audited), which only the review knows.
        stage0_band_labels_register(dataset_band_labels)
        # ... and counts the simulated annotator's among both, which marks its own labels
        # simulated (it learns from them all the same: the cascade study's design).
        stage0_simulated_human_register(dataset_simulated_human_pairs)
        # Label reuse leaves an escalated pair people have answered to them (no LLM call);
        # only the review knows which pairs people answered.
        human_answers_register(human_answered_pairs)
