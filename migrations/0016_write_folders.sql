-- The folders a write made for its notes (create-note "New/Deep/x.md"
-- makes New and New/Deep; a move into a folder not there yet, or the
-- first delete into .trash, make theirs), in the order made, outermost
-- first: jarvis undo removes them again, deepest first and each only
-- when empty, so that undoing a write leaves no empty folder it made and
-- never removes one that was there before. internal/write owns this
-- table (journal.go). A write recorded before this table has no rows:
-- its undo removes no folder.
CREATE TABLE write_folders (
    write_id INTEGER NOT NULL REFERENCES writes(id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    -- The folder's path in the vault.
    path     TEXT    NOT NULL,
    PRIMARY KEY (write_id, ord)
) WITHOUT ROWID;
