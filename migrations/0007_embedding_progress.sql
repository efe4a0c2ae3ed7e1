-- How far the sync making an embedder's vectors has got: written by the
-- process doing it (`jarvis mcp` embeds in the background, for minutes
-- with a neural model) after each batch it stores, and read by the others
-- (`jarvis doctor`) to report progress and the time left. One row per
-- embedder; it goes with the embedder's vectors.
CREATE TABLE embedding_progress (
    embedder_id INTEGER PRIMARY KEY REFERENCES embedders(id) ON DELETE CASCADE,
    done        INTEGER NOT NULL, -- distinct texts embedded by this sync
    total       INTEGER NOT NULL, -- distinct texts it set out to embed
    per_second  REAL    NOT NULL, -- its measured throughput
    updated_ms  INTEGER NOT NULL  -- when it last stored a batch
);
