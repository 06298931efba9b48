"""The URL converter of the app's names (:mod:`core.names`): a dataset slug, like any name,
is letters, digits, ".", "_" and "-", starting with a letter or digit. Django's ``slug``
converter has no ".", so a dataset slugged ``trec.covid`` (a name the importer accepts) would
have no address, and every page linking it would fail to render."""

from __future__ import annotations

from django.urls import register_converter


class NameConverter:
    """``<name:slug>``: one path segment that is a name by :data:`core.names.NAME_RULE` or a
    Django slug (the ".." a name may not hold is refused there; here it matches and finds
    nothing)."""

    # Names (core.names) and Django's slugs alike: a slug made before the name rule, or in
    # the admin, may start with "-" or "_" and must keep its address too.
    regex = r"[-a-zA-Z0-9_.]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def converters_register() -> None:
    """Register ``name`` (:class:`NameConverter`) with Django's URL resolver; called from
    ``CoreConfig.ready``, before any URL module is loaded."""
    register_converter(NameConverter, "name")
