"""`vybe ui`: a read-only local web viewer of the record (stdlib http.server)."""
