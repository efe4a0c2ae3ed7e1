-- Anchor text: how other notes link to a note describes it, often in the
-- words a reader would search with ("see [[Sync regions|where your data is
-- stored]]"). Each note's full-text row gets a field holding the display
-- text (or target as written) of the links to it from other notes.
--
-- FTS5 cannot add a column to a table, so note_fts, the view it reads and
-- the triggers writing it are made again, with the same settings as in
-- 0003_fts.sql, and the index rebuilt from the rows already stored: search
-- keeps working through the upgrade without reading any note again. The
-- anchor text itself is the indexer's to compute (internal/index,
-- anchors.go), in the pass that ends an index run, once every link of the
-- run is stored and resolved: every note is marked for it here, so the
-- next `jarvis index` fills the anchors in without parsing a note.
--
-- The same pass now writes the search_notes rows of the notes an index
-- run parsed (from what the run stored in files, aliases, headings and
-- tags), instead of each batch writing its own. Written per batch, a
-- note's row would hold the anchors of the links stored so far, and on a
-- first index most rows would be indexed by FTS5 twice: once without the
-- links of later batches, again with them.

DROP TRIGGER search_notes_insert;
DROP TRIGGER search_notes_delete;
DROP TABLE note_fts;
DROP VIEW note_text;

-- The anchor text a note's full-text row was indexed with. It is kept
-- here, not only computed, because deleting an external-content row needs
-- exactly the values it was indexed with: when links to a note change,
-- the indexer updates this column, and the triggers below take the old
-- values out of note_fts and put the new ones in.
ALTER TABLE search_notes ADD COLUMN anchors TEXT NOT NULL DEFAULT '';

CREATE VIEW note_text (id, title, aliases, headings, body, path, tags, anchors) AS
    SELECT n.file_id, n.title, n.aliases, n.headings,
        coalesce((SELECT group_concat(c.text, char(10) ORDER BY c.ord) FROM chunks c WHERE c.file_id = n.file_id), ''),
        n.path, n.tags, n.anchors
    FROM search_notes n;

-- As in 0003_fts.sql, with anchors last so that the other columns keep
-- their numbers (snippet() and highlight() name columns by number).
CREATE VIRTUAL TABLE note_fts USING fts5 (
    title, aliases, headings, body, path, tags, anchors,
    content = 'note_text', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO note_fts (note_fts, rank) VALUES ('hashsize', 4194304);
INSERT INTO note_fts (note_fts, rank) VALUES ('automerge', 8);
INSERT INTO note_fts (note_fts) VALUES ('rebuild');

CREATE TRIGGER search_notes_insert AFTER INSERT ON search_notes BEGIN
    INSERT INTO note_fts (rowid, title, aliases, headings, body, path, tags, anchors)
        SELECT id, title, aliases, headings, body, path, tags, anchors FROM note_text WHERE id = new.file_id;
    INSERT INTO name_fts (rowid, title, aliases, path, cjk)
        VALUES (new.file_id, new.title, new.aliases, new.path, new.cjk);
END;

CREATE TRIGGER search_notes_delete BEFORE DELETE ON search_notes BEGIN
    INSERT INTO note_fts (note_fts, rowid, title, aliases, headings, body, path, tags, anchors)
        SELECT 'delete', id, title, aliases, headings, body, path, tags, anchors FROM note_text WHERE id = old.file_id;
    INSERT INTO name_fts (name_fts, rowid, title, aliases, path, cjk)
        VALUES ('delete', old.file_id, old.title, old.aliases, old.path, old.cjk);
    DELETE FROM note_cjk WHERE rowid = old.file_id;
END;

-- A row's anchors are the only column ever updated in place (the indexer
-- replaces a note's row whole when the note itself changes). Before the
-- update, note_text still reads the old anchors, which is what FTS5 needs
-- to delete the row; after it, the new ones are indexed.
CREATE TRIGGER search_notes_anchors_before BEFORE UPDATE OF anchors ON search_notes BEGIN
    INSERT INTO note_fts (note_fts, rowid, title, aliases, headings, body, path, tags, anchors)
        SELECT 'delete', id, title, aliases, headings, body, path, tags, anchors FROM note_text WHERE id = old.file_id;
END;
CREATE TRIGGER search_notes_anchors_after AFTER UPDATE OF anchors ON search_notes BEGIN
    INSERT INTO note_fts (rowid, title, aliases, headings, body, path, tags, anchors)
        SELECT id, title, aliases, headings, body, path, tags, anchors FROM note_text WHERE id = new.file_id;
END;

-- Notes whose anchor text may have changed: the targets of every link
-- added, removed or resolved elsewhere, recorded as it happens and in the
-- same transaction, so that a run cut off before its last pass leaves
-- them for the next. No foreign key: a row for a note deleted since is
-- simply dropped by that pass.
CREATE TABLE anchors_pending (
    file_id INTEGER PRIMARY KEY
);
-- (Not INSERT OR IGNORE: in a trigger fired by a foreign key's cascade,
-- the cascade's own conflict handling, abort, would override the IGNORE.)
CREATE TRIGGER links_anchors_insert AFTER INSERT ON links WHEN new.target_id IS NOT NULL BEGIN
    INSERT INTO anchors_pending (file_id) SELECT new.target_id
        WHERE NOT EXISTS (SELECT 1 FROM anchors_pending WHERE file_id = new.target_id);
END;
CREATE TRIGGER links_anchors_delete AFTER DELETE ON links WHEN old.target_id IS NOT NULL BEGIN
    INSERT INTO anchors_pending (file_id) SELECT old.target_id
        WHERE NOT EXISTS (SELECT 1 FROM anchors_pending WHERE file_id = old.target_id);
END;
CREATE TRIGGER links_anchors_update AFTER UPDATE OF target_id ON links BEGIN
    INSERT INTO anchors_pending (file_id) SELECT old.target_id
        WHERE old.target_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM anchors_pending WHERE file_id = old.target_id);
    INSERT INTO anchors_pending (file_id) SELECT new.target_id
        WHERE new.target_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM anchors_pending WHERE file_id = new.target_id);
END;

-- A note's note_cjk row is written with its chunks, before its
-- search_notes row, so a file deleted in between must take it too.
DROP TRIGGER files_search_delete;
CREATE TRIGGER files_search_delete BEFORE DELETE ON files BEGIN
    DELETE FROM search_notes WHERE file_id = old.id;
    DELETE FROM note_cjk WHERE rowid = old.id;
END;

INSERT INTO anchors_pending (file_id) SELECT file_id FROM search_notes;
UPDATE vaults SET resolve_pending = 1;
