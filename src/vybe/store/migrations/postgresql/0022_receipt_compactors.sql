-- A compaction receipt of Gemini CLI's /compress (its hooks: PreCompress, then the next
-- prompt) or of OpenCode's compaction: the compactor may name them.
ALTER TABLE compaction_receipts DROP CONSTRAINT compaction_receipts_compactor_check;
ALTER TABLE compaction_receipts ADD CONSTRAINT compaction_receipts_compactor_check
    CHECK (compactor IN ('claude', 'codex', 'gemini', 'opencode'));
