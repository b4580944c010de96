"""``vybe proxy``: a model-API proxy that records what an agent says and hears, and answers
the agent's own compaction with a vybe checkpoint.

It sits beside cli/ and integrations/: it may import actions, context and llm, and nothing
below imports it. ``relay`` forwards bytes (the hot path, standard library only), ``wire``
knows the three APIs' shapes, ``tee`` rebuilds a reply from the bytes that went by,
``recorder`` turns a request and its reply into the record's rows, which ``writer`` writes
from one thread, ``compaction`` answers a client's compaction request with a checkpoint.
"""
