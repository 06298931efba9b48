"""The form that launches a debate job.

Per agent: backend (embedded or openai), model, base URL and the NAME of the environment
variable holding the API key. The form has no field for a key and ignores any posted one:
keys live only in the environment of the workers, never in the database, the page or the
Celery message.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms

from corpora.models import Pool
from debates.engine import MAX_ROUNDS
from debates.llm import registry
from debates.services import DebateJobError, agent_config_validate

AGENTS = (("a", "A"), ("b", "B"))
BACKEND_CHOICES = [
    ("embedded", "embedded (SmolLM2-135M, in-process)"),
    ("openai", "OpenAI-compatible"),
]


class PoolChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Pool) -> str:
        return f"{obj.dataset.name} / {obj.name} (depth {obj.depth})"


class JobLaunchForm(forms.Form):
    """Settings of a new debate job. ``cleaned_data`` gains ``agent_a`` and ``agent_b``:
    validated backend configs (:func:`debates.services.agent_config_validate`)."""

    pool = PoolChoiceField(queryset=Pool.objects.select_related("dataset").order_by("pk"))
    a_backend = forms.ChoiceField(choices=BACKEND_CHOICES, initial="embedded", label="Backend")
    a_model = forms.CharField(required=False, max_length=200, label="Model")
    a_base_url = forms.CharField(required=False, max_length=500, label="Base URL")
    a_api_key_env = forms.CharField(
        required=False,
        max_length=100,
        label="API key variable",
        help_text="Name of the environment variable holding the key, e.g. OPENAI_API_KEY.",
    )
    b_backend = forms.ChoiceField(choices=BACKEND_CHOICES, initial="embedded", label="Backend")
    b_model = forms.CharField(required=False, max_length=200, label="Model")
    b_base_url = forms.CharField(required=False, max_length=500, label="Base URL")
    b_api_key_env = forms.CharField(
        required=False,
        max_length=100,
        label="API key variable",
        help_text="Name of the environment variable holding the key, e.g. OPENAI_API_KEY.",
    )
    rounds = forms.IntegerField(
        min_value=1, max_value=MAX_ROUNDS, initial=2, label="Rounds (R)", help_text="1 to 5."
    )
    judgments_per_pair = forms.IntegerField(
        min_value=1,
        max_value=9,
        initial=1,
        label="Human judgments per escalated pair",
    )
    audit_percent = forms.DecimalField(
        min_value=Decimal(0),
        max_value=Decimal(100),
        decimal_places=2,
        initial=Decimal(2),
        label="Audit share (%)",
        help_text="Share of agreed labels also sent to humans, unmarked.",
    )
    pair_limit = forms.IntegerField(
        min_value=1,
        required=False,
        label="Pair limit",
        help_text="Only the first N pairs (query id, then document id). Empty: all.",
    )
    note = forms.CharField(required=False, max_length=200)

    def _agent_config(self, prefix: str, agent: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        backend = data.get(f"{prefix}_backend")
        if backend is None:
            return None
        config: dict[str, Any] = {"backend": backend}
        if backend == "openai":
            for name in ("model", "base_url", "api_key_env"):
                value = (data.get(f"{prefix}_{name}") or "").strip()
                if value:
                    config[name] = value
        try:
            return agent_config_validate(config, agent=agent)
        except DebateJobError as exc:
            message = str(exc)
            field = message.split(": ", 2)[1] if message.count(": ") >= 2 else "backend"
            target = f"{prefix}_{field}" if f"{prefix}_{field}" in self.fields else None
            if field == "api_key_env":
                # Whatever was typed there may be the key itself: neither echo it in the
                # message nor send it back in the field.
                message = (
                    f"agent {agent}: api_key_env must be the NAME of an environment variable "
                    "(letters, digits and _, not starting with a digit), never the key itself"
                )
                self.data = self.data.copy()
                self.data[target] = ""
            self.add_error(target or f"{prefix}_backend", message)
            return None

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for prefix, agent in AGENTS:
            data[f"agent_{prefix}"] = self._agent_config(prefix, agent)
        return data


def describe(config: dict[str, Any]) -> str:
    """One line describing a stored backend config (see :func:`registry.describe_backend`)."""
    try:
        return registry.describe_backend(config)
    except ValueError:
        return str(config.get("backend", "?"))
