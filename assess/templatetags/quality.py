"""Template tags of the quality figures: a proportion with its 95% interval."""

from django import template
from django.utils.html import format_html

from assess.review.agreement import Proportion

register = template.Library()


@register.simple_tag
def proportion(value: Proportion | None) -> str:
    """``83% (5 of 6; 95% CI 44–97%)``, or an en dash when there is nothing to show."""
    if value is None or value.estimate is None:
        return "–"
    low = value.low if value.low is not None else 0.0
    high = value.high if value.high is not None else 1.0
    return format_html(
        '{}% <span class="muted small">({} of {}; 95% CI {}–{}%)</span>',
        round(value.estimate * 100),
        value.successes,
        value.n,
        round(low * 100),
        round(high * 100),
    )
