"""The API object: version 1 under ``/api/v1/``, its OpenAPI 3 document at
``/api/v1/openapi.json`` and interactive docs at ``/api/v1/docs`` (Swagger UI, served from
django-ninja's own static files: no internet needed). Every route needs a token. Errors
are JSON, one shape for all (:mod:`api.errors`)."""

from __future__ import annotations

from ninja import NinjaAPI

from . import annotators, datasets, exports, job_failures, jobs, review
from .common import READ, query_unknown_refuse
from .errors import api_errors_install

api = NinjaAPI(
    title="DREAM Assess API",
    version="1",
    description=(
        "Import benchmarks, build runs and pools, launch and steer DREAM debate jobs, read "
        "review figures, refine and download benchmarks. Authenticate with "
        "`Authorization: Bearer <token>` (make one on /account/tokens/ or with "
        "`./dream manage api_token USER`)."
    ),
    auth=READ,
    urls_namespace="api-v1",
)
api_errors_install(api)
api.add_decorator(query_unknown_refuse)
api.add_router("", datasets.router)
api.add_router("", jobs.router)
api.add_router("", job_failures.router)
api.add_router("", exports.router)
api.add_router("", annotators.router)
api.add_router("", review.router)
api.add_router("", "api.guidelines.router")
