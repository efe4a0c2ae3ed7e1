-- Notes split into heading-aware chunks: the unit of keyword snippets and of
-- embeddings. A note's chunks are replaced whenever the note is parsed again.
CREATE TABLE chunks (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    -- The headings above the chunk, outermost first, joined with " > ";
    -- empty before the first heading.
    heading    TEXT    NOT NULL DEFAULT '',
    -- 1-based, inclusive line range of the chunk in the file.
    start_line INTEGER NOT NULL,
    end_line   INTEGER NOT NULL,
    text       TEXT    NOT NULL,
    -- Hex SHA-256 of the text an embedder is given for this chunk (title,
    -- heading path and text; see vault.Chunk.EmbedText). Vectors are keyed
    -- by it, so a note edit re-embeds only the chunks that changed and a
    -- rename re-embeds nothing.
    hash       TEXT    NOT NULL,
    UNIQUE (file_id, ord)
);
-- No index on hash: it cost a sixth of a full index run, and the queries
-- that match chunks to vectors go through the vectors primary key or read
-- all hashes once (NOT IN).

-- Each embedder that has produced vectors in this database. fingerprint
-- names provider, model, dimension and anything else that makes its vectors
-- incomparable with another's (for the lexical embedder, its frozen IDF).
CREATE TABLE embedders (
    id          INTEGER PRIMARY KEY,
    fingerprint TEXT    NOT NULL UNIQUE,
    provider    TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    dimension   INTEGER NOT NULL,
    -- Opaque state the embedder needs to embed again as it did (the lexical
    -- embedder's document frequencies), or NULL.
    state       BLOB,
    created_ms  INTEGER NOT NULL
);

-- One vector per embedder and embedded text: little-endian float32,
-- L2-normalised. Rows no chunk refers to any more are removed after each
-- index run.
CREATE TABLE vectors (
    embedder_id INTEGER NOT NULL REFERENCES embedders(id) ON DELETE CASCADE,
    hash        TEXT    NOT NULL,
    vector      BLOB    NOT NULL,
    PRIMARY KEY (embedder_id, hash)
) WITHOUT ROWID;
