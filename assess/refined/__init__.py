"""Refined benchmarks: final labels, refining a pool into a refined qrel set, and the exports
(jobs, rows and file formats). May import corpora, debates, ``assess.models`` and
``assess.review`` (its judgments and agreement); never ``assess.evaluation``, whose pages its
URLconf only includes so they keep the ``refined`` URL namespace.
"""
