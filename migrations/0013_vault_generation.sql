-- A vault's generation: a value that changes with every change to what
-- query.Load reads of the vault (its files, their frontmatter, tags,
-- aliases and links, and where links resolve), so that a reader holding
-- the vault's files decoded in memory knows, by one small read, whether
-- they are still current.
--
-- It is random() rather than a count: a database rebuilt or replaced by
-- another starts its counts again, and a count could then match the one
-- a reader holds of the old file; a random 64-bit value does not.
--
-- A note's tags, aliases and links are written in the transaction that
-- writes its row in files, so the triggers on files cover them; links of
-- other notes that resolve anew (a note added or removed) are covered by
-- the trigger on links.target_id.
ALTER TABLE vaults ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
UPDATE vaults SET generation = random();

CREATE TRIGGER vaults_generation_insert AFTER INSERT ON vaults BEGIN
    UPDATE vaults SET generation = random() WHERE id = new.id;
END;
CREATE TRIGGER files_generation_insert AFTER INSERT ON files BEGIN
    UPDATE vaults SET generation = random() WHERE id = new.vault_id;
END;
CREATE TRIGGER files_generation_update AFTER UPDATE ON files BEGIN
    UPDATE vaults SET generation = random() WHERE id = new.vault_id;
END;
CREATE TRIGGER files_generation_delete AFTER DELETE ON files BEGIN
    UPDATE vaults SET generation = random() WHERE id = old.vault_id;
END;
CREATE TRIGGER links_generation_resolve AFTER UPDATE OF target_id ON links BEGIN
    UPDATE vaults SET generation = random() WHERE id = (SELECT vault_id FROM files WHERE id = new.source_id);
END;
