"""States files of sharded CLI runs (``--shard I/N --states``) and their exact merge (``docs/scaling.md`` §2).

:mod:`~persona_metrics.sharding.files`: the file format (header, checked lines, end line), shard selection;
:mod:`~persona_metrics.sharding.documents`: the per-document layout (DEGRESS / PerSEval / ``pens``) merged;
:mod:`~persona_metrics.sharding.items`: the per-item layout (each result's own codec) merged.
"""
