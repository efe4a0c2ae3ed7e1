-- Full-text search over notes, for keyword search (internal/search).
--
-- Tokenizer of every table: unicode61 splits at anything that is not a
-- letter, digit or private-use character and folds case; remove_diacritics
-- 2 makes "café", "cafe" and a decomposed "café" one word; porter stems
-- English ("links", "linking" -> "link"), which helps the questions an
-- assistant asks in plain language more than it hurts exact lookups, and
-- leaves other languages as they are. Chinese and Japanese, written
-- without spaces, need chunk_cjk below.
--
-- No prefix index (prefix='...'): it would triple the terms written for
-- every word, and the prefix match keyword search does on a query's last
-- word (at least three characters) scans a narrow range of terms quickly
-- without one.
--
-- How rows are kept in step: the indexer writes a note's chunks, then its
-- search_notes row; the insert trigger on search_notes adds every
-- full-text row of the note at once. Deleting chunks or a search_notes row
-- removes their full-text rows through triggers, so that every path of
-- deletion (a note parsed again, a file gone from disk, a vault or the
-- whole index cleared, cascading from files to chunks) leaves nothing
-- behind. The indexer writes each table in few statements per batch, rows
-- in rowid order: FTS5 writes what it holds in memory to a new segment at
-- the start of nearly every statement of a transaction and at any rowid
-- lower than the last, and row-by-row writes would leave thousands of
-- tiny segments to merge.

-- What every full-text row of a note repeats, one row per note. No foreign
-- key: the row must outlive its chunks while files cascade to them (the
-- chunk trigger reads it), and files_search_delete removes it afterwards.
CREATE TABLE search_notes (
    file_id INTEGER PRIMARY KEY,
    title   TEXT    NOT NULL,
    aliases TEXT    NOT NULL,   -- one per line
    path    TEXT    NOT NULL,   -- vault-relative, without ".md"
    tags    TEXT    NOT NULL,   -- space-separated, without '#'
    -- Title and aliases rewritten for chunk_cjk, or '' without Chinese or
    -- Japanese characters.
    cjk     TEXT    NOT NULL,
    chunks  INTEGER NOT NULL    -- how many chunks the note has
);
CREATE INDEX search_notes_empty ON search_notes (file_id << 24) WHERE chunks = 0;

-- The text of every full-text row: each chunk with its note's fields, and
-- a row without text for each note without chunks, so that an empty note
-- is still found by its name. The indexer gives a chunk the id
-- file_id << 24 | ord, and a note without chunks takes file_id << 24 for
-- this row: a search finds the note of any row with rowid >> 24, without
-- a join, and the rowids a batch writes rise, which FTS5 needs to avoid
-- writing a segment at every lower rowid.
CREATE VIEW chunk_text (id, title, aliases, headings, body, path, tags) AS
    SELECT c.id, n.title, n.aliases, c.heading, c.text, n.path, n.tags
        FROM chunks c JOIN search_notes n ON n.file_id = c.file_id
    UNION ALL
    SELECT n.file_id << 24, n.title, n.aliases, '', '', n.path, n.tags
        FROM search_notes n WHERE n.chunks = 0;

-- Chunks and names in one table, so that one BM25 query with column
-- weights ranks names, headings and text together, and a query whose
-- words are split between a note's title and its text still matches.
-- External content: the text stays in chunks and search_notes once, and
-- snippet() reads it back through chunk_text.
CREATE VIRTUAL TABLE chunk_fts USING fts5 (
    title, aliases, headings, body, path, tags,
    content = 'chunk_text', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Writing: a pending-data buffer of 4 MB (the default is 1 MB) turns an
-- index batch into one segment instead of several, and merging 8 segments
-- of a level at a time instead of 4 rewrites the index less often; a first
-- index of a large vault spends markedly less time in FTS5, and a search
-- reads a few more segments.
INSERT INTO chunk_fts (chunk_fts, rank) VALUES ('hashsize', 4194304);
INSERT INTO chunk_fts (chunk_fts, rank) VALUES ('automerge', 8);

-- One row per note, rowid = file_id: names-only search ranks names among
-- names, not diluted by the length of a note's first chunk.
CREATE VIRTUAL TABLE note_fts USING fts5 (
    title, aliases, path, cjk,
    content = 'search_notes', content_rowid = 'file_id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Chinese and Japanese: the rows of chunk_fts that hold any (same rowids),
-- with every run of Han, Hiragana and Katakana characters rewritten by the
-- indexer into overlapping pairs, "喫茶店" -> "喫茶 茶店 店" (see
-- vault.CJKPairs). Queries are rewritten the same way, so a two-character
-- word, the commonest length in Chinese, is one term with a proper BM25
-- weight, a longer word is a phrase of its pairs, and one character is a
-- prefix. SQLite's trigram tokenizer was the other candidate; it cannot
-- match or rank anything shorter than three characters.
--
-- Contentless, with contentless_delete so rows go by rowid: the rewritten
-- text is no use to show, and snippets come from chunks.text.
CREATE VIRTUAL TABLE chunk_cjk USING fts5 (
    title, aliases, headings, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_notes_insert AFTER INSERT ON search_notes BEGIN
    INSERT INTO note_fts (rowid, title, aliases, path, cjk)
        VALUES (new.file_id, new.title, new.aliases, new.path, new.cjk);
    INSERT INTO chunk_fts (rowid, title, aliases, headings, body, path, tags)
        SELECT c.id, new.title, new.aliases, c.heading, c.text, new.path, new.tags
            FROM chunks c WHERE c.file_id = new.file_id
        UNION ALL
        SELECT new.file_id << 24, new.title, new.aliases, '', '', new.path, new.tags
            WHERE new.chunks = 0;
END;

-- External content rows are deleted by giving FTS5 the values they were
-- indexed with; the triggers pass the old row's.
CREATE TRIGGER search_notes_delete AFTER DELETE ON search_notes BEGIN
    INSERT INTO note_fts (note_fts, rowid, title, aliases, path, cjk)
        VALUES ('delete', old.file_id, old.title, old.aliases, old.path, old.cjk);
    INSERT INTO chunk_fts (chunk_fts, rowid, title, aliases, headings, body, path, tags)
        SELECT 'delete', old.file_id << 24, old.title, old.aliases, '', '', old.path, old.tags
            WHERE old.chunks = 0;
    DELETE FROM chunk_cjk WHERE rowid = old.file_id << 24 AND old.chunks = 0;
END;

CREATE TRIGGER chunks_search_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_fts (chunk_fts, rowid, title, aliases, headings, body, path, tags)
        SELECT 'delete', old.id, n.title, n.aliases, old.heading, old.text, n.path, n.tags
            FROM search_notes n WHERE n.file_id = old.file_id;
    DELETE FROM chunk_cjk WHERE rowid = old.id;
END;

-- Runs after the cascade from files has deleted the chunks, whose trigger
-- still needed the search_notes row.
CREATE TRIGGER files_search_delete AFTER DELETE ON files BEGIN
    DELETE FROM search_notes WHERE file_id = old.id;
END;

-- Notes indexed before this version have no chunks and no search rows.
-- An impossible modification time and no hash make the next index run
-- read and write every note again, as it does for a note whose write was
-- cut off; nothing else changes until then.
UPDATE files SET hash = '', mtime_ns = -1 WHERE kind = 'note';
