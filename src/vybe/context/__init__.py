"""The checkpoint engine: budget, MIND, MEMO, NOW, the checkpoint turn and the assembly of
each request, pure logic over two interfaces, the record and a model (vybe.llm.base)."""
