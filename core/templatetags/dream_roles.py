"""Template filters for roles: ``{% load dream_roles %}``.

``{% if user|has_role:"researcher,admin" %}`` and ``{{ user|role_label }}``.
"""

from django import template

from core.roles import user_has_role, user_role_label

register = template.Library()


@register.filter
def has_role(user, roles: str) -> bool:
    """True if ``user`` holds one of the comma-separated ``roles``."""
    return user_has_role(user, *(r.strip() for r in roles.split(",") if r.strip()))


@register.filter
def role_label(user) -> str:
    """The user's roles, comma-separated, for display."""
    return user_role_label(user)
