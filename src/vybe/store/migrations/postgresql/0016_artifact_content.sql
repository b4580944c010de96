-- Content-addressed artifacts: the SHA-256 of a file's bytes when it was linked, so the same
-- file with the same content linked to a task again is the artifact already there.
ALTER TABLE artifacts ADD COLUMN content_sha256 TEXT;
CREATE INDEX artifacts_content ON artifacts (task_id, file_path, content_sha256)
    WHERE content_sha256 IS NOT NULL;
