-- Prefix queries of one or two characters answered from FTS5 prefix indexes.
--
-- Without them FTS5 merges the posting list of every word a short prefix matches before it
-- returns the first row: `t*` over 1M messages took 1.2-2.2 s, inside one step no time bound
-- can interrupt. With `prefix = '1 2'` such a query reads one precomputed list (about 1 ms);
-- longer prefixes match few enough words to merge quickly. The words index grows about 2.2x
-- (22 MB -> 49 MB per 200k messages of real shape), each indexed message about 15 us.
--
-- An FTS5 table's options are fixed when it is created, so both indexes are made again and
-- every row goes back to the backlog: `vybe upgrade` and `vybe maintain` index it again,
-- newest first, a batch per transaction, as they did for 0008 (search says
-- `index_complete: false` until then). Both go, not only search_words, because the backlog
-- fills both at once and a contentless index cannot tell a row it already holds.

DROP TABLE search_words;

CREATE VIRTUAL TABLE search_words USING fts5(
    body, tags, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2'
);

DROP TABLE search_literal;

CREATE VIRTUAL TABLE search_literal USING fts5(body, content = '', tokenize = 'trigram');

DELETE FROM search_backlog;

INSERT INTO search_backlog (source, below)
SELECT 'messages', MAX(id) + 1 FROM messages HAVING COUNT(*) > 0;

INSERT INTO search_backlog (source, below)
SELECT 'events', MAX(id) + 1 FROM events HAVING COUNT(*) > 0;
