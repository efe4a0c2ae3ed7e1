-- How many links from other notes lead to each file, counted as links
-- change: read-note states the count beside the page of backlinks it lists,
-- and counting the links to a hub on every call reads its whole list
-- (23,000 entries of links_target, about 2 ms, for a 50-link answer).
-- A file that no other note has linked to has no row; one whose last
-- backlink went keeps a row of 0 until it is deleted.
--
-- Triggers keep the counts in the transaction of the change, whatever
-- makes it: a note's links written or deleted, a link resolved again to
-- another file, or the links to a deleted file set to NULL by the cascade.
-- A link from a note to itself ([[#Heading]]) is not a backlink.
CREATE TABLE backlink_counts (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    n       INTEGER NOT NULL
);

CREATE TRIGGER links_backlinks_insert AFTER INSERT ON links
    WHEN new.target_id IS NOT NULL AND new.target_id != new.source_id BEGIN
    INSERT INTO backlink_counts (file_id, n) VALUES (new.target_id, 1)
        ON CONFLICT (file_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER links_backlinks_delete AFTER DELETE ON links
    WHEN old.target_id IS NOT NULL AND old.target_id != old.source_id BEGIN
    UPDATE backlink_counts SET n = n - 1 WHERE file_id = old.target_id;
END;
-- Also fired when deleting a file sets the links to it to NULL.
CREATE TRIGGER links_backlinks_retarget AFTER UPDATE OF source_id, target_id ON links
    WHEN old.target_id IS NOT new.target_id OR old.source_id != new.source_id BEGIN
    UPDATE backlink_counts SET n = n - 1
        WHERE file_id = old.target_id AND old.target_id != old.source_id;
    INSERT INTO backlink_counts (file_id, n) SELECT new.target_id, 1
        WHERE new.target_id IS NOT NULL AND new.target_id != new.source_id
        ON CONFLICT (file_id) DO UPDATE SET n = n + 1;
END;

-- The counts of what is already indexed.
INSERT INTO backlink_counts (file_id, n)
    SELECT target_id, count(*) FROM links
        WHERE target_id IS NOT NULL AND target_id != source_id
        GROUP BY target_id;
