-- The write journal: every write the write tools (and jarvis undo) made to
-- a vault's notes, with the bytes each file held before, so that jarvis
-- undo can put them back. internal/write owns these tables (journal.go)
-- and bounds them: after each write, the oldest writes beyond 1,000
-- writes, 64 MiB of stored bytes or 90 days are dropped.
--
-- The vault is kept by name, not by a reference to vaults: a vault's rows
-- there are rebuilt and renamed with the index, and its writes must
-- outlive that.
CREATE TABLE writes (
    id      INTEGER PRIMARY KEY,
    -- Unix milliseconds when the write was made.
    at_ms   INTEGER NOT NULL,
    -- The writer: "create-note", "edit-note", "move-note", "delete-note",
    -- "undo".
    tool    TEXT    NOT NULL,
    vault   TEXT    NOT NULL,
    -- What the write did, in a few words, for jarvis history.
    summary TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX writes_at ON writes(at_ms);

-- One row per file a write changed, in the order of its change.
--
--   change  path         path_after              bytes_before  etag_after
--   create  the note     the note                NULL          its etag
--   edit    the note     the note                old bytes     its etag
--   move    old path     new path                old bytes     its etag
--   delete  the note     its path in the trash   old bytes     NULL
--
-- Undo reads the trash path for nothing: it puts a deleted note back from
-- bytes_before, so that a trash emptied since loses nothing. It is kept
-- to say where the note went.
CREATE TABLE write_files (
    write_id     INTEGER NOT NULL REFERENCES writes(id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    change       TEXT    NOT NULL CHECK (change IN ('create', 'edit', 'move', 'delete')),
    path         TEXT    NOT NULL,
    path_after   TEXT    NOT NULL,
    bytes_before BLOB,
    etag_after   TEXT,
    PRIMARY KEY (write_id, ord)
) WITHOUT ROWID;
