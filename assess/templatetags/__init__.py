"""Template tags of the assess pages (quality figures)."""
