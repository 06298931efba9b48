"""LLM backends: the client protocol (:mod:`.base`), the embedded llama.cpp model, the
OpenAI-compatible client, the scripted client of the tests, GGUF headers, the shared rate
limit (:mod:`.ratelimit`, Redis or in-process) and the backend registry. Plain clients with
no database and no Django models.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: nothing.
"""
