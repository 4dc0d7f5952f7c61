"""Persona style fidelity and persona quality: stylometric features, persona centroids, content + style scores.

* :mod:`~persona_metrics.persona.stylometry`: the 10 features of a text (pure);
* :mod:`~persona_metrics.persona.style`: persona samples, centroids, style similarity, held-out evaluation;
* :mod:`~persona_metrics.persona.quality`: ROUGE-Lsum, BERTScore, optional BLEURT and the 70/30 combination.
"""
