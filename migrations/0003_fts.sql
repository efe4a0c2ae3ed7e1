-- Full-text search over notes, for keyword search (internal/search).
--
-- One row per note, not per chunk: keyword search returns notes, and BM25
-- costs FTS5 a few microseconds for every row that matches, so ranking a
-- common word over 10,000 notes instead of 35,000 chunks keeps a search in
-- milliseconds. The passage shown is the snippet FTS5 picks in the note's
-- text, mapped back to the chunk and line it comes from.
--
-- Tokenizer of every table: unicode61 splits at anything that is not a
-- letter, digit or private-use character and folds case;
-- remove_diacritics 2 makes "café", "cafe" and a decomposed "café" one
-- word; porter stems English ("links", "linking" -> "link"), which helps
-- the questions an assistant asks in plain language more than it hurts
-- exact lookups, and leaves other languages as they are. Chinese and
-- Japanese, written without spaces, need note_cjk below.
--
-- No prefix index (prefix='...'): it would triple the terms written for
-- every word, and the prefix match keyword search does on the last word of
-- a short query (at least three characters) scans a narrow range of terms
-- quickly without one.
--
-- How rows are kept in step: the indexer writes a note's chunks, then its
-- search_notes row, whose insert trigger adds the note's full-text rows.
-- Deleting the search_notes row removes them, and deleting a file deletes
-- its search_notes row first, while the chunks the rows were made from are
-- still there. So every path of deletion (a note parsed again, a file gone
-- from disk, a vault or the whole index cleared) leaves nothing behind;
-- chunks themselves are only ever replaced after their note's search_notes
-- row is gone. The indexer writes each table in a few statements per
-- batch, in rowid order: FTS5 moves what it holds in memory to a new
-- segment at the start of nearly every statement and at any rowid lower
-- than the last, and writing note by note would leave thousands of tiny
-- segments to merge.

-- What the full-text rows of a note hold besides its text, one row per
-- note. No foreign key: files_search_delete removes it before the cascade
-- from files takes the chunks.
CREATE TABLE search_notes (
    file_id  INTEGER PRIMARY KEY,
    title    TEXT    NOT NULL,
    aliases  TEXT    NOT NULL,   -- one per line
    headings TEXT    NOT NULL,   -- every heading of the note, one per line
    path     TEXT    NOT NULL,   -- vault-relative, without ".md"
    tags     TEXT    NOT NULL,   -- space-separated, without '#'
    -- Title and aliases rewritten for note_cjk, or '' without Chinese or
    -- Japanese characters.
    cjk      TEXT    NOT NULL
);

-- The text of each note's full-text row; body is the note's chunks in
-- order, one line break between two, as snippet() reads it back.
CREATE VIEW note_text (id, title, aliases, headings, body, path, tags) AS
    SELECT n.file_id, n.title, n.aliases, n.headings,
        coalesce((SELECT group_concat(c.text, char(10) ORDER BY c.ord) FROM chunks c WHERE c.file_id = n.file_id), ''),
        n.path, n.tags
    FROM search_notes n;

-- Names, headings and text in one table, so that one BM25 query with
-- column weights ranks them together and a query whose words are split
-- between a note's title and its text still matches. External content:
-- the text stays in chunks once.
CREATE VIRTUAL TABLE note_fts USING fts5 (
    title, aliases, headings, body, path, tags,
    content = 'note_text', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Writing: a pending-data buffer of 4 MB (the default is 1 MB) turns an
-- index batch into one segment instead of several, and merging 8 segments
-- of a level at a time instead of 4 rewrites the index less often. A first
-- index of 10,000 notes spends a few percent less time; a search reads a
-- few more segments, which it does not notice.
INSERT INTO note_fts (note_fts, rank) VALUES ('hashsize', 4194304);
INSERT INTO note_fts (note_fts, rank) VALUES ('automerge', 8);

-- Names only (title, aliases, path), for names-only search: ranked among
-- names, not diluted by the length of a note's text. cjk is the title and
-- aliases rewritten as in note_cjk.
CREATE VIRTUAL TABLE name_fts USING fts5 (
    title, aliases, path, cjk,
    content = 'search_notes', content_rowid = 'file_id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Chinese and Japanese: the notes that hold any, with every run of Han,
-- Hiragana and Katakana characters rewritten by the indexer into
-- overlapping pairs, "喫茶店" -> "喫茶 茶店 店" (see vault.CJKPairs). Queries
-- are rewritten the same way, so a two-character word, the commonest
-- length in Chinese, is one term with a proper BM25 weight, a longer word
-- is a phrase of its pairs, and one character is a prefix. SQLite's
-- trigram tokenizer was the other candidate; it cannot match or rank
-- anything shorter than three characters.
--
-- Contentless, with contentless_delete so rows go by rowid: the rewritten
-- text is no use to show; snippets come from chunks.text.
CREATE VIRTUAL TABLE note_cjk USING fts5 (
    title, aliases, headings, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_notes_insert AFTER INSERT ON search_notes BEGIN
    INSERT INTO note_fts (rowid, title, aliases, headings, body, path, tags)
        SELECT id, title, aliases, headings, body, path, tags FROM note_text WHERE id = new.file_id;
    INSERT INTO name_fts (rowid, title, aliases, path, cjk)
        VALUES (new.file_id, new.title, new.aliases, new.path, new.cjk);
END;

-- An external-content row is deleted by giving FTS5 the values it was
-- indexed with: the old search_notes row and the chunks, still in place.
CREATE TRIGGER search_notes_delete BEFORE DELETE ON search_notes BEGIN
    INSERT INTO note_fts (note_fts, rowid, title, aliases, headings, body, path, tags)
        SELECT 'delete', id, title, aliases, headings, body, path, tags FROM note_text WHERE id = old.file_id;
    INSERT INTO name_fts (name_fts, rowid, title, aliases, path, cjk)
        VALUES ('delete', old.file_id, old.title, old.aliases, old.path, old.cjk);
    DELETE FROM note_cjk WHERE rowid = old.file_id;
END;

CREATE TRIGGER files_search_delete BEFORE DELETE ON files BEGIN
    DELETE FROM search_notes WHERE file_id = old.id;
END;

-- Notes indexed before this version have no chunks and no search rows.
-- An impossible modification time and no hash make the next index run
-- read and write every note again, as it does for a note whose write was
-- cut off; nothing else changes until then.
UPDATE files SET hash = '', mtime_ns = -1 WHERE kind = 'note';
