"""Web UI settings (login, cache, Content-Security-Policy); imported at the end of settings.py.

| variable         | default                                                          |
|------------------|------------------------------------------------------------------|
| REDIS_URL        | unset: per-process memory cache (login rate limits per process)  |
| CLIENT_IP_HEADER | unset: the client address is ``REMOTE_ADDR``                     |
"""

import os

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# The login rate limit lives in the cache, so every process must share it: with several web
# processes (gunicorn workers) set REDIS_URL, or each process counts failures on its own.
_REDIS_URL = os.environ.get("REDIS_URL", "")
if _REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _REDIS_URL,
            "KEY_PREFIX": "dream",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "dream",
        }
    }

# Failed logins allowed per username and per client address within the window (seconds);
# the next attempt gets HTTP 429 until the window, counted from the first failure, ends.
LOGIN_RATE_LIMIT = 5
LOGIN_RATE_WINDOW = 15 * 60
# Behind a reverse proxy every request comes from the proxy's address: name the request.META
# key the proxy fills with the client's address (e.g. HTTP_X_REAL_IP), or the per-address
# limit locks everyone out together. Only set it when the proxy overwrites that header.
LOGIN_CLIENT_IP_HEADER = os.environ.get("CLIENT_IP_HEADER", "")

# No inline script or style anywhere: htmx is told not to inject its indicator <style>
# (meta htmx-config in base.html) and all behaviour lives in static/app.js.
CSP_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)

# The CSRF token reaches htmx through <body hx-headers>, so no script needs the cookie.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
