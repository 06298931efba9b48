"""LLM backends: the client protocol (:mod:`.base`), the embedded llama.cpp model, the
OpenAI-compatible client, the scripted client of the tests, GGUF headers and the backend
registry. Plain clients with no database and no Django models; only the registry reaches
out, to wrap a client in the shared rate limit.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: debates.ratelimit.
"""
