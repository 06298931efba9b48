"""Evaluation: IR metrics, re-benchmarking (tables and plots) and RAG alignment. Reads only
qrel sets, runs, queries and stored RAG generations: may import corpora, debates and
``assess.models``; never ``assess.review`` nor ``assess.refined``.
"""
