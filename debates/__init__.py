"""Debates: DREAM debates. Owns the LLM backends (:mod:`debates.llm`), prompts, rubric and
reply parsing (an answer apart from its reasoning: :mod:`debates.replies`), one agent's turn
(:mod:`debates.turns`), the debate engine, rate limits and retries, debate jobs and their runner
(:mod:`debates.services`), the job pages and the debate commands. Other apps hear of it
through :mod:`debates.signals` and the job page's panel/notes hooks, never the reverse.

Dependencies point one way, core ← corpora ← debates ← assess; a package may always import
itself. The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora.
"""
