"""Dataset adapters: read (and, for PENS, write) the formats the benchmarks and the pipeline use.

* :mod:`~persona_metrics.datasets.personalization`: the personalization JSONL format and the shuffled baseline;
* :mod:`~persona_metrics.datasets.pens`: Microsoft PENS (load, write, baselines, prediction files);
* :mod:`~persona_metrics.datasets.cnndm`: CNN/DailyMail (load, lead-3 / random-3, prediction files);
* :mod:`~persona_metrics.datasets.financial`: the financial-summaries directory format.
"""
