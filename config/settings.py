"""DREAM Assess settings: one file, every deployment choice read from the environment.

| variable            | default                                   |
|---------------------|-------------------------------------------|
| DATABASE_URL        | SQLite file ``var/dream.sqlite3``         |
| CELERY_BROKER_URL   | unset: tasks run in-process (eager)       |
| SECRET_KEY          | a development key (refused when DEBUG=0)  |
| DEBUG               | ``1``                                     |
| ALLOWED_HOSTS       | ``127.0.0.1,localhost``                   |
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DREAM_VAR_DIR", BASE_DIR / "var"))


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DEBUG", True)
_DEV_SECRET = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", _DEV_SECRET)
if not DEBUG and SECRET_KEY == _DEV_SECRET:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
# The development key is public (it is in this file): nothing encrypted with it is protected,
# so the job form refuses to store a typed API key under it (debates.forms.JobLaunchForm).
SECRET_KEY_IS_DEVELOPMENT = SECRET_KEY == _DEV_SECRET
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
    if h.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "ninja",  # the HTTP API's framework; its Swagger UI assets are served from here
    "core",
    "corpora",
    "debates",
    "assess",
    "api",
]

MIDDLEWARE = [
    # First: an upload over the limit is refused before anything reads its body.
    "core.uploads.UploadLimitMiddleware",
    # Outside the others: an error any of them answers under /api/ is JSON too.
    "config.middleware.ApiJsonErrorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

_sqlite_default = f"sqlite:///{VAR_DIR / 'dream.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or _sqlite_default, conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # SQLite serialises writers; a generous timeout lets the web server and an in-process
    # job share the file without "database is locked". IMMEDIATE transactions take the write
    # lock at BEGIN, so two writers queue instead of failing on a read-to-write upgrade
    # (e.g. a double-clicked "Refine"). Write-ahead logging lets readers go on while a
    # writer writes (in the default rollback journal, a writer that spills or commits locks
    # out readers too, and a page polling a refinement got "database is locked"); the mode
    # is stored in the file, so setting it on each connection costs nothing after the first.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=30, transaction_mode="IMMEDIATE", init_command="PRAGMA journal_mode=WAL"
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG

# Celery: with no broker configured, tasks run in-process so the quickstart needs no Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# A redis:// broker through kombu's Redis transport with one client per channel instead of one
# per command (config/redis_transport.py); other brokers through kombu's own transport.
CELERY_BROKER_TRANSPORT = (
    "config.redis_transport:Transport" if CELERY_BROKER_URL.startswith("redis://") else None
)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "1800"))
# Retrieval tasks (corpora.tasks.retrieve_task) work in time slices: at the soft limit the
# task stops, keeps the document vectors it stored and queues itself again to go on
# (corpora.services.runs.run_suspend); the hard limit kills a task that ignores it. Like any
# task limit it must stay below CELERY_VISIBILITY_TIMEOUT.
DREAM_RETRIEVE_TIME_LIMIT = int(
    os.environ.get("DREAM_RETRIEVE_TIME_LIMIT", str(CELERY_TASK_TIME_LIMIT))
)
DREAM_RETRIEVE_SOFT_TIME_LIMIT = DREAM_RETRIEVE_TIME_LIMIT - min(
    60, DREAM_RETRIEVE_TIME_LIMIT // 10
)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Must exceed the task time limit, or Redis redelivers a task that is still running.
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600")),
}
# Celery beat (`celery -A config beat`, or `worker -B` on one worker) runs the periodic
# tasks below: requeue debates whose worker died (every DREAM_REQUEUE_EVERY_SECONDS), sync
# review items, fail stale retrieval runs and resend due webhooks.
CELERY_BEAT_SCHEDULE = {
    "requeue-expired-debates": {
        "task": "debates.requeue_expired_debates",
        "schedule": float(os.environ.get("DREAM_REQUEUE_EVERY_SECONDS", "60")),
    },
    "sync-review-items": {
        "task": "assess.sync_review_items",
        "schedule": float(os.environ.get("DREAM_REVIEW_SYNC_EVERY_SECONDS", "60")),
    },
    # A retrieval run whose worker died holds no advisory lock any more: mark it failed.
    "fail-stale-runs": {
        "task": "corpora.fail_stale_runs",
        "schedule": float(os.environ.get("DREAM_REQUEUE_EVERY_SECONDS", "60")),
    },
    # Webhook deliveries due whose message was lost (or whose retry is too far off to wait
    # in the broker): send them again.
    "resend-due-webhooks": {
        "task": "debates.resend_due_webhooks",
        "schedule": float(os.environ.get("DREAM_REQUEUE_EVERY_SECONDS", "60")),
    },
}
# Debate jobs: a running debate's lease (renewed before every LLM call), the calls per LLM
# request before a transient error fails the attempt, the first delay before a failed
# attempt is run again (doubling after each).
DREAM_DEBATE_LEASE_SECONDS = int(os.environ.get("DREAM_DEBATE_LEASE_SECONDS", "600"))
DREAM_LLM_RETRY_ATTEMPTS = int(os.environ.get("DREAM_LLM_RETRY_ATTEMPTS", "5"))
DREAM_DEBATE_RETRY_SECONDS = int(os.environ.get("DREAM_DEBATE_RETRY_SECONDS", "30"))
# Human judging: a claimed pair's lease and the undo window (seconds); job-page cost estimate.
DREAM_REVIEW_LEASE_SECONDS = int(os.environ.get("DREAM_REVIEW_LEASE_SECONDS", "900"))
DREAM_UNDO_SECONDS = int(os.environ.get("DREAM_UNDO_SECONDS", "900"))
# Active time on the judging page (assess.review.timing): time counts while the page is
# visible and the last input is at most this old (s); the page reports it this often (s). An
# answer faster than the floor (active s) on a chunk of more words is a possible click-through.
DREAM_ACTIVE_IDLE_SECONDS = float(os.environ.get("DREAM_ACTIVE_IDLE_SECONDS", "60"))
DREAM_ACTIVE_HEARTBEAT_SECONDS = float(os.environ.get("DREAM_ACTIVE_HEARTBEAT_SECONDS", "15"))
DREAM_CLICK_THROUGH_SECONDS = float(os.environ.get("DREAM_CLICK_THROUGH_SECONDS", "2"))
DREAM_CLICK_THROUGH_WORDS = int(os.environ.get("DREAM_CLICK_THROUGH_WORDS", "100"))
# The older single LLM price (money per 1,000 tokens, prompt and completion alike): a job
# page's cost uses it only when DREAM_LLM_PRICES (below) does not price the job's agents
# (debates.services.cost).
DREAM_PRICE_PER_1K_TOKENS = os.environ.get("DREAM_PRICE_PER_1K_TOKENS", "")
# Folder whose *.gguf files the job form offers as embedded models (a form never takes a free
# path). A model_path of a job made in the browser or the API must resolve (symlinks
# followed) to a regular file inside it, or be the bundled model's file. Unset: only the
# bundled SmolLM2-135M. Commands take any path (--model-path).
DREAM_MODELS_DIR = os.environ.get("DREAM_MODELS_DIR", "")
# Folders the truth qrels file of a simulated agent ({"backend": "simulated", "truth": ...};
# debates.simulated_client) must lie in, comma-separated, for every job (browser, API and
# commands alike: the file is read and its labels stored). Empty (the default): the simulated
# backend is refused.
DREAM_SIMULATION_DIRS = [
    d.strip() for d in os.environ.get("DREAM_SIMULATION_DIRS", "").split(",") if d.strip()
]
# What an openai agent of a job made in the browser or the API may reach (debates.llm.policy;
# an admin of the app is not the operator of the machine). Endpoints: comma-separated base
# URLs; a base_url is allowed when its scheme, host and port equal an entry's and its path
# starts with the entry's path (no base_url means https://api.openai.com/v1, checked too).
# Key variables: comma-separated NAMES of environment variables an api_key_env may name (none
# means OPENAI_API_KEY, checked too); a refused name is never read. The management commands
# take any --base-url and key variable.
DREAM_LLM_ALLOWED_ENDPOINTS = [
    u.strip()
    for u in os.environ.get("DREAM_LLM_ALLOWED_ENDPOINTS", "https://api.openai.com/v1").split(",")
    if u.strip()
]
DREAM_LLM_KEY_ENVS = [
    n.strip()
    for n in os.environ.get("DREAM_LLM_KEY_ENVS", "OPENAI_API_KEY").split(",")
    if n.strip()
]
# Hosts a job's callback URL may name (debates.webhooks): comma-separated host names, or
# "*.example.org" for any name below example.org. Empty (the default): every callback is
# refused, so no request goes to an internal address unless an admin allows it. Internal
# addresses (loopback, private, ...) are reached only by a host listed by exact name.
DREAM_WEBHOOK_ALLOWED_HOSTS = [
    h.strip().lower()
    for h in os.environ.get("DREAM_WEBHOOK_ALLOWED_HOSTS", "").split(",")
    if h.strip()
]
# Cost of every final label (assess.refined.cost), to compare LLM and human labelling: JSON
# {"backend:model" or "backend": {"prompt": P, "completion": C}} in money per 1,000 tokens,
# and money per hour of human time on task.
DREAM_LLM_PRICES = os.environ.get("DREAM_LLM_PRICES", "")
DREAM_HUMAN_PRICE_PER_HOUR = os.environ.get("DREAM_HUMAN_PRICE_PER_HOUR", "")
# Uploads (benchmarks, qrels, runs: browser and API): the largest request body accepted, in
# bytes (refused with 413 before it is read), and the most an uploaded archive may unpack
# to. Files above FILE_UPLOAD_MAX_MEMORY_SIZE are streamed to a temporary file, never held
# in memory whole.
DREAM_UPLOAD_MAX_BYTES = int(os.environ.get("DREAM_UPLOAD_MAX_BYTES", str(2 * 1024**3)))
DREAM_UPLOAD_MAX_UNPACKED_BYTES = int(
    os.environ.get("DREAM_UPLOAD_MAX_UNPACKED_BYTES", str(20 * 1024**3))
)
# A query or document longer than this many characters is counted as over-long at import
# (corpora.services.long_texts.dataset_long_texts). 100,000 characters are more than 12 for each
# token of the default 8,192-token context, and prose takes 3-6 characters a token on every
# tokenizer we measured, so such a text cannot fit that context: a query that long cannot be
# debated, a document that long is cut to its beginning.
DREAM_LONG_TEXT_CHARS = int(os.environ.get("DREAM_LONG_TEXT_CHARS", "100000"))
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# The HTTP API (api/, django-ninja): items per page of a list.
NINJA_PAGINATION_PER_PAGE = 50

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

from .settings_ui import *  # noqa: E402, F403  (UI settings kept beside, same environment rules)
