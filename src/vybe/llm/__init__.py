"""Model adapters behind one small interface (see ``vybe.llm.base``)."""
