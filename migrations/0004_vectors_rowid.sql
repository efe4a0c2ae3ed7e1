-- Vectors move to a table with rowids. As a WITHOUT ROWID table each
-- 3 KB vector sat in the primary key's own pages, so every check of whether
-- a chunk has a vector read a whole page from disk: 36,000 checks took
-- about 2 s on a 10k-note vault. Here the (embedder_id, hash) key has an
-- index of its own, small enough to stay in the page cache, and the same
-- checks take under 0.1 s.
CREATE TABLE vectors_new (
    id          INTEGER PRIMARY KEY,
    embedder_id INTEGER NOT NULL REFERENCES embedders(id) ON DELETE CASCADE,
    hash        TEXT    NOT NULL,
    vector      BLOB    NOT NULL,
    UNIQUE (embedder_id, hash)
);
INSERT INTO vectors_new (embedder_id, hash, vector)
    SELECT embedder_id, hash, vector FROM vectors ORDER BY embedder_id, hash;
DROP TABLE vectors;
ALTER TABLE vectors_new RENAME TO vectors;
