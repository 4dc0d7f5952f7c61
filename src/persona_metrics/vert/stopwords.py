"""NLTK's English stopword list as the original VERT code used it (179 words), shipped as data: no download.

The list lives in :mod:`persona_metrics.text_services` (SummaryEval's completeness drops the same words); this
module keeps the path ``docs/vert.md`` §3 names. Later NLTK data releases added 19 more contractions; they are
deliberately not in it, so that the word mover's distance drops the same words as the original.
"""

from __future__ import annotations

from persona_metrics.text_services import NLTK_ENGLISH_STOPWORD_LIST, NLTK_ENGLISH_STOPWORDS, STOPWORDS_NAME

__all__ = ["NLTK_ENGLISH_STOPWORDS", "NLTK_ENGLISH_STOPWORD_LIST", "STOPWORDS_NAME"]
