"""The form that launches a debate job.

Per agent: backend (embedded or openai), the embedded model (the bundled SmolLM2 or one of the
``.gguf`` files in ``settings.DREAM_MODELS_DIR``: a choice, never a free path), model, base
URL, context window, timeout, shared rate limit, a reasoning model's ``reasoning_effort`` and
``extra_body``, and the API key: either the NAME of the
environment variable holding it on the workers, or the key itself in a password field. A
typed key is never rendered back (not even when the form is shown again with errors), never
put in the backend config, and stored only encrypted (:mod:`debates.api_keys`); it never
reaches a page, the admin, an export or the Celery message.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, cast

from django import forms
from django.conf import settings
from django.http import QueryDict

from core.fields import StorableCharField
from corpora.models import Pool
from debates import prompts
from debates.api_keys import DEVELOPMENT_KEY_REFUSAL
from debates.audit_design import ALLOCATIONS
from debates.engine import MAX_ROUNDS
from debates.llm.config import EXTRA_BODY_MAX_CHARS, REASONING_EFFORTS, AgentConfig
from debates.services.backends import (
    AGENT_FIELD_NAMES,
    KEY_ENVS_SETTING,
    agent_config_build,
    agent_fields_given,
    model_file_permitted,
)
from debates.services.common import MAX_CONCURRENCY, DebateJobError
from debates.services.launch import (
    MAX_JUDGMENTS_PER_PAIR,
    MAX_MAX_TOKENS,
    MAX_PAIRS,
    MIN_MAX_TOKENS,
    JobSpec,
    job_option_default,
    job_option_names,
)
from debates.services.webhooks import webhook_url_check
from debates.stage0_band import LEVEL_MAX as STAGE0_LEVEL_MAX
from debates.stage0_band import LEVEL_MIN as STAGE0_LEVEL_MIN

AGENTS = (("a", "A"), ("b", "B"))
# The simulated backend is left out on purpose: it plans studies from the API and the
# commands (docs/debates-and-backends.md, "Simulated debaters"), never a choice beside LLMs.
BACKEND_CHOICES = [
    ("embedded", "embedded (SmolLM2-135M, in-process)"),
    ("openai", "OpenAI-compatible"),
]


BUNDLED_MODEL_LABEL = "SmolLM2-135M-Instruct (bundled)"


def local_model_choices() -> list[tuple[str, str]]:
    """The embedded models the form offers: ``("", bundled SmolLM2)`` first, then every
    ``*.gguf`` regular file directly in ``settings.DREAM_MODELS_DIR`` as ``(absolute path,
    "name (size MB)")``, sorted by name, leaving out links to a file outside the folder
    (:func:`~debates.services.backends.model_file_permitted`). Unset or unreadable folder:
    the bundled model only.
    The files are checked (GGUF header, chat template) when the form is validated."""
    choices = [("", BUNDLED_MODEL_LABEL)]
    folder = getattr(settings, "DREAM_MODELS_DIR", "") or ""
    if not folder:
        return choices
    try:
        files = sorted(Path(folder).expanduser().absolute().glob("*.gguf"))
    except OSError:
        return choices
    for path in files:
        try:
            # A link to a file outside the folder is not offered (the launch refuses it).
            if path.is_file() and model_file_permitted(path=str(path)):
                choices.append((str(path), f"{path.name} ({path.stat().st_size / 1e6:,.0f} MB)"))
        except OSError:  # vanished or unreadable between listing and stat
            continue
    return choices


def _prompt_version_choices() -> list[tuple[str, str]]:
    """ "" (the scale's newest version) first, then every version this code has, by scale."""
    newest = f"{prompts.PROMPT_VERSION} / {prompts.GRADED_PROMPT_VERSION}"
    choices = [("", f"newest ({newest}): laid out for prefix caches")]
    for scale, versions in prompts.PROMPT_VERSIONS.items():
        choices += [(version, f"{version} ({scale})") for version in reversed(versions)]
    return choices


def _model_path_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        required=False,
        choices=[("", BUNDLED_MODEL_LABEL)],
        label="Embedded model",
        help_text="Embedded backend only; more: .gguf files in DREAM_MODELS_DIR.",
    )


def _s(count: int) -> str:
    # "budget 1 pair", "budget 2 pairs".
    return "" if count == 1 else "s"


class PoolChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Pool) -> str:
        order = "" if obj.strategy == Pool.Strategy.DEPTH else f", {obj.strategy} order"
        budget = "" if obj.budget is None else f", budget {obj.budget:,} pair{_s(obj.budget)}"
        return f"{obj.dataset.name} / {obj.name} (depth {obj.depth}{order}{budget})"


def _api_key_field(*, agent_b: bool = False) -> forms.CharField:
    help_text = "Optional; wins over the variable. Stored encrypted, never shown again."
    if agent_b:
        help_text += " Empty: agent A's key when both use the same base URL."
    return forms.CharField(
        required=False,
        max_length=500,
        label="API key",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text=help_text,
    )


def _context_window_field() -> forms.IntegerField:
    return forms.IntegerField(
        required=False,
        min_value=256,
        max_value=10_000_000,
        label="Context window (tokens)",
        help_text="Empty: what the server reports, else 8192; embedded: 2048 for SmolLM2, "
        "else the model's training context up to 4096.",
    )


def _timeout_field() -> forms.FloatField:
    return forms.FloatField(
        required=False,
        min_value=0.1,
        max_value=3600,
        label="Timeout (s)",
        help_text="Per request; empty: 60.",
    )


def _rpm_field() -> forms.IntegerField:
    return forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1_000_000,
        label="Requests per minute",
        help_text="Shared by all workers; empty: unlimited.",
    )


def _reasoning_effort_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        required=False,
        choices=[("", "not sent")] + [(e, e) for e in REASONING_EFFORTS],
        label="Reasoning effort",
        help_text="OpenAI o-series and gpt-5, gpt-oss; Ollama: none switches thinking off.",
    )


def _extra_body_field() -> forms.CharField:
    return forms.CharField(
        required=False,
        max_length=EXTRA_BODY_MAX_CHARS,
        label="Extra request body (JSON)",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='Sent as it is, e.g. {"chat_template_kwargs": {"enable_thinking": false}} '
        "for Qwen3 on vLLM or SGLang (manual: Debates and backends, Reasoning models).",
    )


# The launch form's words for each audit allocation (debates.audit_design.ALLOCATIONS).
ALLOCATION_LABELS = {
    "proportional": "proportional: every stratum at the share",
    "neyman": "Neyman: a pilot at a tenth of the share, the rest where the debate errs most",
}


class JobLaunchForm(forms.Form):
    """Settings of a new debate job. ``cleaned_data`` gains ``agent_a`` and ``agent_b``:
    typed backend configs (:func:`debates.services.backends.agent_config_validate`), and
    ``api_keys``: ``{"A"/"B": key}`` of the keys typed for openai agents (for
    :func:`debates.services.launch.debate_job_launch`, which stores them encrypted);
    :meth:`job_spec` gives the job to launch."""

    pool = PoolChoiceField(queryset=Pool.objects.select_related("dataset").order_by("pk"))
    a_backend = forms.ChoiceField(choices=BACKEND_CHOICES, initial="embedded", label="Backend")
    a_model_path = _model_path_field()
    a_model = forms.CharField(required=False, max_length=200, label="Model")
    a_base_url = forms.CharField(required=False, max_length=500, label="Base URL")
    a_api_key_env = forms.CharField(
        required=False,
        max_length=100,
        label="API key variable",
        help_text="Name of the environment variable holding the key, e.g. OPENAI_API_KEY.",
    )
    a_api_key = _api_key_field()
    a_context_window = _context_window_field()
    a_timeout = _timeout_field()
    a_rpm = _rpm_field()
    a_reasoning_effort = _reasoning_effort_field()
    a_extra_body = _extra_body_field()
    b_backend = forms.ChoiceField(choices=BACKEND_CHOICES, initial="embedded", label="Backend")
    b_model_path = _model_path_field()
    b_model = forms.CharField(required=False, max_length=200, label="Model")
    b_base_url = forms.CharField(required=False, max_length=500, label="Base URL")
    b_api_key_env = forms.CharField(
        required=False,
        max_length=100,
        label="API key variable",
        help_text="Name of the environment variable holding the key, e.g. OPENAI_API_KEY.",
    )
    b_api_key = _api_key_field(agent_b=True)
    b_context_window = _context_window_field()
    b_timeout = _timeout_field()
    b_rpm = _rpm_field()
    b_reasoning_effort = _reasoning_effort_field()
    b_extra_body = _extra_body_field()
    rounds = forms.IntegerField(
        min_value=1, max_value=MAX_ROUNDS, label="Rounds (R)", help_text="1 to 5."
    )
    max_tokens = forms.IntegerField(
        required=False,
        min_value=MIN_MAX_TOKENS,
        max_value=MAX_MAX_TOKENS,
        label="Token budget per call",
        help_text="A turn's first budget. Empty: 2048 with an openai agent (a reasoning model "
        "thinks for thousands of tokens), 384 with the embedded one.",
    )
    max_tokens_cap = forms.IntegerField(
        required=False,
        min_value=MIN_MAX_TOKENS,
        max_value=MAX_MAX_TOKENS,
        label="Budget cap",
        help_text="A reply cut at its budget is asked once more with twice it, up to this. "
        "Empty: twice the budget.",
    )
    scale = forms.ChoiceField(
        choices=[
            ("binary", "binary (relevant / not relevant)"),
            ("graded", "graded (0..G, G = the qrels' top grade)"),
        ],
        required=False,
        label="Scale",
        help_text="Graded: each agent gives a grade with a written rubric.",
    )
    consensus = forms.ChoiceField(
        choices=[
            ("exact", "exact: the same grade"),
            ("binary", "binary: the same side, the lower grade"),
        ],
        required=False,
        label="Consensus (graded)",
        help_text="When a round of a graded debate agrees.",
    )
    prompt_version = forms.ChoiceField(
        choices=_prompt_version_choices(),
        required=False,
        label="Prompt version",
        help_text="Newest: every call of a debate repeats the prompt prefix of the calls "
        "before it (cheaper with a prefix cache). v1: the layout before, to reproduce an "
        "earlier job. It must belong to the scale.",
    )
    judgments_per_pair = forms.IntegerField(
        min_value=1,
        max_value=MAX_JUDGMENTS_PER_PAIR,
        label="Human judgments per escalated pair",
    )
    audit_percent = forms.DecimalField(
        min_value=Decimal(0),
        max_value=Decimal(100),
        decimal_places=2,
        label="Audit share (%)",
        help_text="Share of agreed labels also sent to humans, unmarked.",
    )
    audit_allocation = forms.ChoiceField(
        choices=[(name, ALLOCATION_LABELS[name]) for name in ALLOCATIONS],
        required=False,
        label="Audit allocation",
        help_text=(
            "How the audit share is spread: over the strata (consensus label x round), or "
            "under Neyman over units of stratum x the pair's best rank in its pool."
        ),
    )
    gold_percent = forms.DecimalField(
        required=False,
        min_value=Decimal(0),
        max_value=Decimal(50),
        decimal_places=2,
        label="Gold share (%)",
        help_text="Share of each annotator's pairs that are known-answer pairs from the "
        "original qrels, unmarked, to measure the annotator; 0 turns them off (empty: 5). "
        "They are shown as audits are, without a debate: with far fewer audits than gold "
        "pairs, a pair without a debate is likely gold.",
    )
    human_budget = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_PAIRS,
        label="Human budget (pairs)",
        help_text="At most this many pairs go to humans (escalated and audited together), "
        "highest impact on the benchmark first; empty: no limit. Editable on the job page.",
    )
    pair_limit = forms.IntegerField(
        min_value=1,
        max_value=MAX_PAIRS,
        required=False,
        label="Pair limit",
        help_text="Only the first N pairs in the pool's judging order (its strategy's, else "
        "query id then document id). Empty: the pool's budget, else all.",
    )
    concurrency = forms.IntegerField(
        min_value=1,
        max_value=MAX_CONCURRENCY,
        required=False,
        label="Concurrency",
        help_text="Debates at once (LLM requests in flight). Empty: 16 for openai agents, 1 "
        "with an embedded one. Celery workers bound it with their -c.",
    )
    batch = forms.BooleanField(
        required=False,
        label="Batch mode",
        help_text="No direct calls: each round's requests go out as one batch (OpenAI's Batch "
        "API at half the price, or vllm run-batch), advanced with debate_batch. openai agents "
        "only.",
    )
    min_agreement_probability = forms.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        label="Escalate agreements below P(label)",
        help_text="An agreement where an agent's label probability (from the server's "
        "logprobs) is below this goes to humans as low confidence; 0 or empty: off.",
    )
    stage0 = forms.BooleanField(
        required=False,
        label="Stage 0 first",
        help_text="The dataset's cheap calibrated judge (trained first when it has none) "
        "settles the pairs it is sure of; only the others are debated. Binary direct jobs.",
    )
    stage0_alpha = forms.FloatField(
        required=False,
        min_value=STAGE0_LEVEL_MIN,
        max_value=STAGE0_LEVEL_MAX,
        label="Stage 0: error allowed (alpha)",
        help_text="At most this share of stage-0 labels may disagree with humans.",
    )
    stage0_delta = forms.FloatField(
        required=False,
        min_value=STAGE0_LEVEL_MIN,
        max_value=STAGE0_LEVEL_MAX,
        label="Stage 0: risk (delta)",
        help_text="The chance allowed that the bounds fail (the band is chosen on human "
        "labels of pooled pairs by fixed-sequence testing).",
    )
    stage0_beta = forms.FloatField(
        required=False,
        min_value=STAGE0_LEVEL_MIN,
        max_value=1.0,
        label="Stage 0: holes given up (beta)",
        help_text="A relevant pair may be settled not relevant with at most this chance "
        "(bounded with the error, at the same risk; at 0.1 it takes 29 relevant pairs among "
        "the human labels before any pair is settled not relevant); 1: not bounded.",
    )
    note = StorableCharField(required=False, max_length=200)
    allow_duplicate = forms.BooleanField(
        required=False,
        label="Launch a duplicate",
        help_text="Launch even when a running or paused job debates this pool with the same "
        "settings (it debates every pair again, at the same cost).",
    )
    check_judged = forms.BooleanField(
        required=False,
        label="Check the judged pairs",
        help_text="Debate only the pairs the qrels judge (a pool built keeping judged pairs), "
        "never showing the agents the original label: a consensus against it goes to humans "
        "as a suspect original label, an agreeing one confirms it. No audit is drawn.",
    )
    reuse = forms.BooleanField(
        required=False,
        label="Reuse settled debates with the same key",
        help_text="A pair an earlier job of this dataset settled as agreed, with the same "
        "agents, sampling, prompts, scale, rounds and consensus rule, takes that label "
        "without an LLM call (free); untick to ask every pair again.",
    )
    callback_url = forms.URLField(
        required=False,
        max_length=500,
        assume_scheme="https",
        label="Callback URL",
        help_text="Optional: gets a signed POST when the job finishes, fails, is paused or "
        "cancelled. Its host must be allowed by DREAM_WEBHOOK_ALLOWED_HOSTS.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Listed per form, so a file added to the folder shows without a restart; a POSTed
        # path not in the list is refused by the ChoiceField.
        choices = local_model_choices()
        for prefix, _agent in AGENTS:
            cast(forms.ChoiceField, self.fields[f"{prefix}_model_path"]).choices = choices

    def job_spec(self) -> JobSpec:
        """The job this valid form describes (its typed API keys are in
        ``cleaned_data["api_keys"]``, passed to the launch separately): every option of
        :data:`FORM_OPTIONS` from its field, the others at their defaults."""
        data = self.cleaned_data
        values: dict[str, Any] = {}
        for option, name in FORM_OPTIONS.items():
            default, value = job_option_default(option), data.get(name)
            if option in PERCENT_OPTIONS:
                value = default if value is None else float(value) / 100.0
            elif isinstance(default, bool):
                value = bool(value)
            elif isinstance(default, str):
                value = value or default
            elif isinstance(default, float) and value is None:
                value = default  # an empty optional level: the option's default
            values[option] = value
        return JobSpec(
            pool=data["pool"], agent_a=data["agent_a"], agent_b=data["agent_b"], **values
        )

    def clean_callback_url(self) -> str:
        """The callback URL if a callback may go there (checked again at launch)."""
        try:
            return webhook_url_check(url=self.cleaned_data.get("callback_url") or "")
        except DebateJobError as exc:
            raise forms.ValidationError(str(exc)) from None

    def _agent_config(self, prefix: str, agent: str) -> AgentConfig | None:
        data = self.cleaned_data
        backend = data.get(f"{prefix}_backend")
        if backend is None or f"{prefix}_model_path" in self.errors:
            return None
        config = agent_fields_given(
            {name: data.get(f"{prefix}_{name}") for name in AGENT_FIELD_NAMES}
        )
        try:
            # The operator's lists first: a refused file is never opened, a refused variable
            # never read (the launch checks again).
            return agent_config_build(fields=config, agent=agent, untrusted=True)
        except DebateJobError as exc:
            message = str(exc)
            # "agent A: FIELD: why", "agent A: model_path PATH: why" or "agent A: FIELD VALUE
            # is not one of ... (SETTING)".
            rest = message.split(": ", 1)[1] if ": " in message else ""
            field = rest.split(" ")[0].removesuffix(":")
            field = {"n_ctx": "context_window"}.get(field, field)
            target = f"{prefix}_{field}" if f"{prefix}_{field}" in self.fields else None
            if field == "api_key_env":
                # Whatever was typed there may be the key itself: neither echo it in the
                # message nor send it back in the field (the operator's refusal names no
                # value, so it is kept).
                if KEY_ENVS_SETTING not in message:
                    message = (
                        f"agent {agent}: api_key_env must be the NAME of an environment "
                        "variable (letters, digits and _, not starting with a digit), never "
                        "the key itself"
                    )
                data = cast(QueryDict, self.data).copy()  # a bound form's QueryDict is immutable
                data[f"{prefix}_api_key_env"] = ""
                self.data = data
            self.add_error(target or f"{prefix}_backend", message)
            return None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        # Not sent (older pages, scripted posts): the paper's binary method.
        for option in ("scale", "consensus", "prompt_version"):
            data[option] = data.get(option) or job_option_default(option)
        try:
            prompts.prompt_version_check(data["prompt_version"], data["scale"])
        except ValueError as exc:
            self.add_error("prompt_version", str(exc))
        for prefix, agent in AGENTS:
            data[f"agent_{prefix}"] = self._agent_config(prefix, agent)
        keys: dict[str, str] = {}
        for prefix, agent in AGENTS:
            config = data.get(f"agent_{prefix}")
            key = data.get(f"{prefix}_api_key") or ""
            if key and config is not None and config.backend == "openai":
                if getattr(settings, "SECRET_KEY_IS_DEVELOPMENT", False):
                    self.add_error(f"{prefix}_api_key", DEVELOPMENT_KEY_REFUSAL)
                    continue
                keys[agent] = key
        config_a, config_b = data.get("agent_a"), data.get("agent_b")
        if (
            "A" in keys
            and "B" not in keys
            and config_a is not None
            and config_b is not None
            and config_b.backend == "openai"
            and config_b.base_url == config_a.base_url
        ):
            keys["B"] = keys["A"]
        data["api_keys"] = keys
        return data


# The job options the form has a field for, by field name (JobOptions's other options keep
# their defaults: agents have a group of fields each, see AGENTS; temperature is the paper's
# 0; a graded job's G comes from the qrels). The fields' initial values are the options'
# defaults; shares are shown as percentages.
FORM_NAMES = {"limit": "pair_limit", "audit_share": "audit_percent", "gold_share": "gold_percent"}
NOT_IN_FORM = ("agent_a", "agent_b", "temperature", "max_grade")
PERCENT_OPTIONS = ("audit_share", "gold_share")
FORM_OPTIONS = {
    option: FORM_NAMES.get(option, option)
    for option in job_option_names()
    if option not in NOT_IN_FORM
}


def _percent(share: float) -> Decimal:
    """``share`` (0..1) as a percentage, written as short as it is (0.02: 2, 0.025: 2.5)."""
    percent = Decimal(str(share)) * 100
    whole = percent.to_integral_value()
    return whole if percent == whole else percent.normalize()


def _initial(option: str) -> Any:
    default = job_option_default(option)
    return _percent(default) if option in PERCENT_OPTIONS else default


for _option, _name in FORM_OPTIONS.items():
    JobLaunchForm.base_fields[_name].initial = _initial(_option)


class HumanBudgetForm(forms.Form):
    """The human budget of a running or finished job: empty for no limit."""

    human_budget = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_PAIRS,
        label="Human budget (pairs)",
        help_text="At most this many pairs go to humans, highest impact first; empty: no limit.",
    )
