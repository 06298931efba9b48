"""Number formatting for pages: ``{% load dream_format %}{{ count|thousands }}`` → ``5,183``."""

from django import template

register = template.Library()


@register.filter
def thousands(value: object) -> object:
    """An integer with comma thousands separators (as the import commands print counts);
    anything else unchanged."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return f"{value:,}"
