"""Only ``debates/services`` calls ``debate_job_start``, ``debate_job_resume`` or
``debate_job_retry_failed``.

Whether a started, resumed or retried job's debates go to the workers or run in this
process is decided in one place, the launch service (``debate_job_launch``,
``debate_job_begin``, ``debate_job_resume_launch``, ``debate_job_retry_launch``); a view,
the API, a command, the pipeline or a bench that called the job controls itself would decide
it again. The modules are parsed with :mod:`ast`, never imported: any import of the names
and any use of them (a call, an attribute, a reference) counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").is_file())
SCANNED = ("core", "corpora", "debates", "assess", "api", "config", "bench")
ALLOWED = ROOT / "debates" / "services"
CONTROLS = frozenset({"debate_job_start", "debate_job_resume", "debate_job_retry_failed"})


def control_uses(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` for every import or use of a name of :data:`CONTROLS` in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom | ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name in CONTROLS]
        elif isinstance(node, ast.Name) and node.id in CONTROLS:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in CONTROLS:
            found.append((node.lineno, node.attr))
    return sorted(set(found))


def _app_modules() -> list[Path]:
    paths = [path for package in SCANNED for path in sorted((ROOT / package).rglob("*.py"))]
    return [p for p in paths if ALLOWED not in p.parents and "migrations" not in p.parts]


def test_the_scan_finds_an_import_a_call_and_an_attribute() -> None:
    source = (
        "from debates.services import debate_job_start\n"
        "import debates.services.jobs as jobs\n"
        "debate_job_start(job=j)\n"
        "jobs.debate_job_resume(job=j, enqueue=False)\n"
        "debate_job_resume_launch(job=j)\n"
    )
    assert control_uses(source) == [
        (1, "debate_job_start"),
        (3, "debate_job_start"),
        (4, "debate_job_resume"),
    ]


def test_no_module_outside_the_debate_services_starts_or_resumes_a_job_itself() -> None:
    modules = _app_modules()
    assert len(modules) > 100  # the scan reached the apps
    uses = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in modules
        for line, name in control_uses(path.read_text(encoding="utf-8"))
    ]
    assert uses == [], (
        "start, resume or retry a job through debates.services.launch "
        "(debate_job_begin, debate_job_resume_launch, debate_job_retry_launch):\n" + "\n".join(uses)
    )
