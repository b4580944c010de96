-- A compaction found in an imported transcript (vybe session import) gets a receipt, once:
-- source_key names it in its file (Claude's boundary uuid, Codex's compacted line's time).
ALTER TABLE compaction_receipts ADD COLUMN source_key TEXT;
CREATE UNIQUE INDEX compaction_receipts_source ON compaction_receipts (session_id, source_key)
    WHERE source_key IS NOT NULL;
