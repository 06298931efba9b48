"""The job form's cost estimate (``/jobs/new/estimate/``, admins, GET, writes nothing): the
launch form (``templates/debates/job_launch.html``) asks for it with htmx whenever a field
changes, sending only the fields it reads (never an API key), and shows the fragment
``templates/debates/partials/job_estimate.html``: "≈ 1,024 calls, 1.2 M prompt + 0.15 M
completion tokens; ≈ 3.40 at gpt-4o-mini's prices (batch: 1.70)", or "price not set
(DREAM_LLM_PRICES)". The numbers and their assumptions: :mod:`debates.estimate`.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.htmx import htmx_view
from core.roles import Role, role_required
from corpora.models import Pool
from debates import estimate
from debates.engine import MAX_ROUNDS
from debates.estimate_selectors import agent_context_window, job_estimate_inputs
from debates.forms import BACKEND_CHOICES, local_model_choices
from debates.llm.config import AgentConfig
from debates.prices import Price, llm_prices, price_for
from debates.services.backends import AGENT_FIELD_NAMES, agent_config_build, agent_fields_given
from debates.services.common import DebateJobError, default_max_tokens

#: The launch form's fields the estimate reads (the form sends only these: ``hx-params``).
ESTIMATE_FIELDS = (
    "pool",
    "a_backend",
    "a_model_path",
    "a_model",
    "b_backend",
    "b_model_path",
    "b_model",
    "rounds",
    "max_tokens",
    "pair_limit",
    "batch",
    "scale",
    "prompt_version",
)
AGENTS = (("a", "A"), ("b", "B"))


class JobEstimateForm(forms.Form):
    """The launch form's fields an estimate reads, each optional (a half-filled form still
    gets an estimate): empty rounds are the default R = 2, an empty budget the launch's
    default for the agents."""

    pool = forms.ModelChoiceField(queryset=Pool.objects.all(), required=False)
    a_backend = forms.ChoiceField(choices=BACKEND_CHOICES, required=False)
    a_model_path = forms.ChoiceField(choices=[], required=False)
    a_model = forms.CharField(required=False, max_length=200)
    b_backend = forms.ChoiceField(choices=BACKEND_CHOICES, required=False)
    b_model_path = forms.ChoiceField(choices=[], required=False)
    b_model = forms.CharField(required=False, max_length=200)
    rounds = forms.IntegerField(required=False, min_value=1, max_value=MAX_ROUNDS)
    max_tokens = forms.IntegerField(required=False, min_value=16, max_value=1_000_000)
    pair_limit = forms.IntegerField(required=False, min_value=1)
    batch = forms.BooleanField(required=False)
    scale = forms.ChoiceField(choices=[("binary", "binary"), ("graded", "graded")], required=False)
    prompt_version = forms.CharField(required=False, max_length=50)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = local_model_choices()
        for prefix, _agent in AGENTS:
            cast(forms.ChoiceField, self.fields[f"{prefix}_model_path"]).choices = choices

    def agent(self, prefix: str) -> AgentConfig | str:
        """The agent's backend config as the launch would store it (its backend and model
        name its price), or why it cannot be read
        (:func:`~debates.services.backends.agent_config_build`). Never opens a model file."""
        data = self.cleaned_data
        fields = agent_fields_given(
            {name: data.get(f"{prefix}_{name}") for name in AGENT_FIELD_NAMES}
        )
        try:
            # Not checked against the operator's lists: nothing is sent or opened here, and
            # the launch checks them.
            return agent_config_build(fields=fields, agent=prefix.upper(), check_file=False)
        except DebateJobError as exc:
            return str(exc)


def _prices_named(
    configs: tuple[AgentConfig, AgentConfig],
) -> tuple[tuple[Price | None, Price | None], str, str | None]:
    """(A's and B's price, the models as a sentence names them, why a price is missing)."""
    try:
        prices = llm_prices()
    except ValueError as exc:
        return (None, None), "", f"DREAM_LLM_PRICES cannot be read: {exc}"
    pair = (price_for(configs[0], prices), price_for(configs[1], prices))
    models = [c.model or c.backend for c in configs]
    names = models[0] if models[0] == models[1] else f"{models[0]}'s and {models[1]}"
    missing = [m for m, p in zip(models, pair, strict=True) if p is None]
    problem = f"price not set for {' and '.join(dict.fromkeys(missing))}" if missing else None
    return pair, names, problem


def _estimate_context(form: JobEstimateForm) -> dict[str, Any]:
    """The fragment's context: ``problem`` (why there is no estimate), or ``estimate``,
    ``inputs``, ``names``, ``price_problem`` and ``batch``."""
    data = form.cleaned_data
    pool = data.get("pool")
    if pool is None:
        return {"problem": "Choose a pool to see the estimated cost."}
    configs = [form.agent(prefix) for prefix, _agent in AGENTS]
    problems = [c for c in configs if isinstance(c, str)]
    if problems:
        return {"problem": "; ".join(problems)}
    config_a, config_b = cast(list[AgentConfig], configs)
    max_tokens = data.get("max_tokens") or default_max_tokens(config_a, config_b)
    try:
        inputs = job_estimate_inputs(
            pool=pool,
            limit=data.get("pair_limit"),
            rounds=data.get("rounds") or 2,
            max_tokens=max_tokens,
            scale=data.get("scale") or "binary",
            prompt_version=data.get("prompt_version") or "",
            # Both agents read every pair: the smaller context decides what fits.
            context_window=min(agent_context_window(c) for c in (config_a, config_b)),
        )
    except ValueError as exc:
        return {"problem": str(exc)}
    pair, names, price_problem = _prices_named((config_a, config_b))
    result = estimate.job_cost_estimate(
        pairs=inputs.pairs,
        prompt_tokens_per_call=inputs.prompt_tokens_per_call,
        completion_tokens_per_call=inputs.completion_tokens_per_call,
        calls_per_pair=inputs.calls_per_pair,
        price=pair,
    )
    return {
        "estimate": result,
        "inputs": inputs,
        "names": names,
        "price_problem": price_problem,
        "batch": bool(data.get("batch")),
        "prompt_tokens": estimate.format_tokens(result.prompt_tokens),
        "completion_tokens": estimate.format_tokens(result.completion_tokens),
        "money": None if result.money is None else estimate.format_money(result.money),
        "batch_money": (
            None if result.batch_money is None else estimate.format_money(result.batch_money)
        ),
    }


@htmx_view(no_store=True)
@role_required(Role.ADMIN)
@require_GET
def job_estimate(request: HttpRequest) -> HttpResponse:
    """The estimate fragment for the launch form's current fields (query parameters
    :data:`ESTIMATE_FIELDS`); a field that does not validate is named instead."""
    form = JobEstimateForm(request.GET)
    if form.is_valid():
        context = _estimate_context(form)
    else:
        fields = ", ".join(sorted(form.errors))
        context = {"problem": f"No estimate until these fields are valid: {fields}."}
    return render(request, "debates/partials/job_estimate.html", context)
