"""Debate jobs, debates and turns (see issue: DREAM debates)."""
