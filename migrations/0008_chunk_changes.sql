-- A count of the changes made to chunks: every insert, update and delete
-- adds one, whoever makes it (an index run, --rebuild, --forget, a cascade
-- from files). A vector sync that finishes records the count it brought
-- the vectors in step with (embedders.synced_changes); the next one, finding
-- the count unchanged, knows that nothing needs embedding or removing
-- without reading every chunk, which at 100,000 notes takes seconds.
CREATE TABLE chunk_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO chunk_changes (id, n) VALUES (1, 0);

CREATE TRIGGER chunks_inserted AFTER INSERT ON chunks BEGIN
    UPDATE chunk_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_updated AFTER UPDATE ON chunks BEGIN
    UPDATE chunk_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_deleted AFTER DELETE ON chunks BEGIN
    UPDATE chunk_changes SET n = n + 1 WHERE id = 1;
END;

-- NULL until a sync of the embedder's vectors finishes.
ALTER TABLE embedders ADD COLUMN synced_changes INTEGER;
